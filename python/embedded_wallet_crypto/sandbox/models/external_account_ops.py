"""The bodies of an external account's ownership verification: ``POST .../challenge`` (the
published OwnershipChallengeRequest) and ``POST .../verify`` (OwnershipVerifyRequest)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["OwnershipChallengeCreate", "OwnershipMethod", "OwnershipVerify"]


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
