"""The bodies of an external account's ownership verification: ``POST .../challenge`` (the
published OwnershipChallengeRequest) and ``POST .../verify`` (OwnershipVerifyRequest)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "LivenessChallengeOut",
    "OwnershipChallengeCreate",
    "OwnershipChallengeOut",
    "OwnershipMethod",
    "OwnershipVerify",
    "WalletSignatureChallengeOut",
]


class OwnershipMethod(str, Enum):
    WALLET_SIGNATURE = "WALLET_SIGNATURE"
    LIVENESS = "LIVENESS"


class SignatureScheme(str, Enum):
    bip137 = "bip137"
    electrum = "electrum"


class OwnershipChallengeCreate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    method: OwnershipMethod


class OwnershipVerify(BaseModel):
    model_config = ConfigDict(extra="ignore")

    signature: Annotated[str, Field(min_length=1, max_length=1000)]
    signatureScheme: SignatureScheme = SignatureScheme.bip137


class WalletSignatureChallengeOut(BaseModel):
    """The published WalletSignatureChallenge: the message the wallet's key signs."""

    method: Literal["WALLET_SIGNATURE"]
    messageToSign: str
    expiresAt: str


class LivenessChallengeOut(BaseModel):
    """The published LivenessChallenge: the link where the owner proves liveness."""

    method: Literal["LIVENESS"]
    verificationLink: str
    token: str | None = None
    expiresAt: str


#: The published OwnershipChallenge (either, by its ``method``); the sandbox refuses every
#: challenge (409), but a client reads the real service's.
OwnershipChallengeOut = WalletSignatureChallengeOut | LivenessChallengeOut
