"""Strong customer authentication (``/sca/*``), contact verification, beneficiary trust and a
quote's authorization: the published document's bodies (``ScaFactor...``, ``ScaLogin...``,
``TwoFactorReset...``, ``BeneficiaryTrust...``, ``ScaAuthorization``)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .wallet import Assertion, Attestation

__all__ = [
    "BeneficiaryTrustConfirm",
    "BeneficiaryTrustStart",
    "ContactCode",
    "EnrollConfirm",
    "EnrollConfirmOut",
    "EnrollStart",
    "EnrollStartOut",
    "PasskeyConfirm",
    "PasskeyConfirmOut",
    "PasskeyEnrollStartOut",
    "RecordEvent",
    "RecordEventOut",
    "ResetComplete",
    "ResetStart",
    "ResetStartOut",
    "ResetStatusOut",
    "ScaAuthorization",
    "ScaChallengeOut",
    "ScaFactor",
    "ScaFactorList",
    "ScaFactorView",
    "ScaLoginComplete",
    "ScaLoginCompleteOut",
    "ScaLoginStart",
    "ScaLoginStartOut",
    "TotpConfirm",
    "TotpConfirmOut",
    "TotpEnrollStartOut",
    "TrustConfirmOut",
]

_Code = Annotated[str, Field(min_length=1, max_length=64)]
_Id = Annotated[str, Field(min_length=1, max_length=200)]
_Origin = Annotated[str, Field(min_length=1, max_length=500)]
_Ip = Annotated[str, Field(min_length=2, max_length=45, pattern=r"^[0-9A-Fa-f:.]+$")]


class ScaFactor(str, Enum):
    SMS_OTP = "SMS_OTP"
    TOTP = "TOTP"
    PASSKEY = "PASSKEY"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScaFactorView(BaseModel):
    factor: ScaFactor
    credentialId: str | None = None
    name: str | None = None


class ScaFactorList(BaseModel):
    factors: list[ScaFactorView]


class EnrollStart(_Strict):
    """``TotpFactorEnrollRequest`` or ``PasskeyFactorEnrollRequest``."""

    type: Literal["TOTP", "PASSKEY"]


class TotpEnrollStartOut(BaseModel):
    type: Literal["TOTP"]
    secret: str
    secretBase32Encoded: str
    totpUri: str


class PasskeyEnrollStartOut(BaseModel):
    type: Literal["PASSKEY"]
    options: dict[str, Any]
    allowedOrigins: list[str]
    relyingPartyId: str


#: Told apart by ``type`` (each side a Literal).
EnrollStartOut = TotpEnrollStartOut | PasskeyEnrollStartOut


class TotpConfirm(_Strict):
    type: Literal["TOTP"]
    secret: Annotated[str, Field(min_length=1, max_length=300)]
    code: _Code


class PasskeyConfirm(_Strict):
    type: Literal["PASSKEY"]
    origin: _Origin
    credential: Attestation


EnrollConfirm = Annotated[TotpConfirm | PasskeyConfirm, Field(discriminator="type")]


class TotpConfirmOut(BaseModel):
    type: Literal["TOTP"]
    recoveryCodes: list[str]


class PasskeyConfirmOut(BaseModel):
    type: Literal["PASSKEY"]
    factor: ScaFactorView


EnrollConfirmOut = TotpConfirmOut | PasskeyConfirmOut


class ScaLoginStart(_Strict):
    factor: ScaFactor


class ScaLoginStartOut(BaseModel):
    factor: ScaFactor
    challengeId: str | None = None
    expiresAt: str | None = None
    passkeyOptions: dict[str, Any] | None = None
    allowedOrigins: list[str] | None = None
    relyingPartyId: str | None = None


class ScaAuthorization(_Strict):
    """A proof: ``code`` (SMS_OTP, TOTP) or ``passkeyAssertion`` with ``origin``."""

    code: _Code | None = None
    passkeyAssertion: Assertion | None = None
    origin: _Origin | None = None
    endUserIpAddress: _Ip | None = None


class ScaLoginComplete(ScaAuthorization):
    factor: ScaFactor
    endUserIpAddress: _Ip
    challengeId: _Id | None = None


class ScaLoginCompleteOut(BaseModel):
    status: str
    sessionExpiresAt: str | None = None


class RecordEvent(_Strict):
    eventType: Literal["RESET_PASSWORD_COMPLETED", "FAILED_LOGIN_ATTEMPT"]


class RecordEventOut(BaseModel):
    eventType: Literal["RESET_PASSWORD_COMPLETED", "FAILED_LOGIN_ATTEMPT"]
    suspended: bool
    lockedUntil: str | None = None
    failedAttempts: int


class ResetStart(_Strict):
    factor: ScaFactor


class ResetStartOut(BaseModel):
    resetId: str
    livenessAccessToken: str | None = None
    verificationLink: str | None = None
    expiresAt: str | None = None


class ResetStatusOut(BaseModel):
    status: Literal[
        "INITIATED", "PENDING_REVIEW", "LIVENESS_PASSED", "COMPLETED", "REJECTED", "EXPIRED"
    ]
    factor: ScaFactor
    enrollmentStatus: Literal["PENDING", "COMPLETED"] | None = None
    expiresAt: str
    completedAt: str | None = None


class _Mobile(_Strict):
    countryCode: Annotated[str, Field(pattern=r"^\+[1-9]\d{0,3}$")]
    number: Annotated[str, Field(pattern=r"^\d{4,14}$")]


class ResetComplete(_Strict):
    mobile: _Mobile | None = None


class ScaChallengeOut(BaseModel):
    id: str
    expiresAt: str
    factor: ScaFactor
    availableFactors: list[ScaFactor]
    purpose: str | None = None
    passkeyAssertionOptions: dict[str, Any] | None = None
    passkeyAllowedOrigins: list[str] | None = None


class BeneficiaryTrustStart(BaseModel):
    scaChallenge: ScaChallengeOut | None = None


class BeneficiaryTrustConfirm(_Strict):
    challengeId: _Id | None = None
    code: _Code | None = None
    passkeyAssertion: Assertion | None = None
    origin: _Origin | None = None


class TrustConfirmOut(BaseModel):
    trusted: bool


class ContactCode(_Strict):
    """``ContactVerificationConfirmRequest``."""

    code: _Code
