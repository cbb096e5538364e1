"""The embedded wallet: credentials (``/auth/credentials``), sessions (``/auth/sessions``) and
the wallet export (``/internal-accounts/{id}/export``)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CLIENT_PUBLIC_KEY_PATTERN",
    "UNCOMPRESSED_KEY_PATTERN",
    "Assertion",
    "Attestation",
    "AuthMethodList",
    "AuthMethodOut",
    "AuthMethodWithBundle",
    "ChallengeBody",
    "CredentialChallengeOut",
    "CredentialCreate",
    "CredentialType",
    "ExportBody",
    "ExportOut",
    "PasskeyChallengeOut",
    "SessionList",
    "SessionOut",
    "SessionRefreshBody",
    "SignedRequestChallengeOut",
    "VerifyBody",
]

#: A P-256 public key, SEC1 hex: compressed or uncompressed.
CLIENT_PUBLIC_KEY_PATTERN = r"^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$"
#: A P-256 public key, uncompressed SEC1 hex (an export's target key).
UNCOMPRESSED_KEY_PATTERN = r"^04[0-9a-fA-F]{128}$"

_Text = Annotated[str, Field(min_length=1, max_length=20000)]
_ShortText = Annotated[str, Field(min_length=1, max_length=200)]
_ClientKey = Annotated[str, Field(pattern=CLIENT_PUBLIC_KEY_PATTERN)]


class CredentialType(str, Enum):
    OAUTH = "OAUTH"
    EMAIL_OTP = "EMAIL_OTP"
    SMS_OTP = "SMS_OTP"
    PASSKEY = "PASSKEY"


class Attestation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    credentialId: _Text
    clientDataJson: _Text
    attestationObject: _Text
    transports: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=10)] = []


class Assertion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    credentialId: _Text
    clientDataJson: _Text
    authenticatorData: _Text
    signature: _Text
    userHandle: Annotated[str, Field(max_length=2000)] | None = None


class CredentialCreate(BaseModel):
    """EMAIL_OTP, SMS_OTP: type, accountId. OAUTH: also oidcToken. PASSKEY: also nickname,
    challenge, attestation."""

    model_config = ConfigDict(extra="forbid")
    type: CredentialType
    accountId: _ShortText
    oidcToken: _Text | None = None
    # The real service's rule: 1-100 letters, digits, spaces and . _ - ' ( ).
    nickname: (
        Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[\w .'()\-]+$")] | None
    ) = None
    challenge: Annotated[str, Field(min_length=1, max_length=1000)] | None = None
    attestation: Attestation | None = None


class ChallengeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clientPublicKey: _ClientKey | None = None


class VerifyBody(BaseModel):
    """EMAIL_OTP, SMS_OTP: type, otp, clientPublicKey; or type, encryptedOtpBundle (the
    encrypted login: 202, then the retry stamped by the key sealed in the bundle). OAUTH:
    type, oidcToken, clientPublicKey. PASSKEY: type, assertion (and the Request-Id header)."""

    model_config = ConfigDict(extra="forbid")
    type: CredentialType
    otp: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    oidcToken: _Text | None = None
    clientPublicKey: _ClientKey | None = None
    assertion: Assertion | None = None
    encryptedOtpBundle: _Text | None = None


class AuthMethodOut(BaseModel):
    id: str
    accountId: str
    type: CredentialType
    nickname: str
    createdAt: str
    updatedAt: str


class AuthMethodWithBundle(AuthMethodOut):
    """An EMAIL_OTP or SMS_OTP answer that sent a code: the bundle to seal the code to (the
    encrypted login)."""

    otpEncryptionTargetBundle: str | None = None


class AuthMethodList(BaseModel):
    data: list[AuthMethodOut]


class SignedRequestChallengeOut(BaseModel):
    payloadToSign: str
    requestId: str
    expiresAt: str
    type: CredentialType | None = None


class PasskeyChallengeOut(AuthMethodOut):
    credentialId: str
    challenge: str
    requestId: str
    expiresAt: str


class SessionOut(AuthMethodOut):
    expiresAt: str
    encryptedSessionSigningKey: str | None = None


class SessionList(BaseModel):
    data: list[SessionOut]


class SessionRefreshBody(BaseModel):
    """``AuthSessionRefreshRequest``: the same key on both legs."""

    model_config = ConfigDict(extra="forbid")
    clientPublicKey: _ClientKey


class ExportBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clientPublicKey: Annotated[str, Field(pattern=UNCOMPRESSED_KEY_PATTERN)]


class ExportOut(BaseModel):
    id: str
    encryptedWalletCredentials: str


#: The answer of a credential's challenge: a passkey's (``challenge``, ``requestId``), or an
#: email code's (the credential, and the bundle to seal the code to).
CredentialChallengeOut = PasskeyChallengeOut | AuthMethodWithBundle
