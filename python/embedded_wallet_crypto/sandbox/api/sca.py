"""Strong customer authentication: ``GET/POST /sca/factors``, ``POST /sca/factors/confirm``,
``DELETE /sca/factors/{credentialId}``, ``POST /sca/login/start``, ``POST /sca/login/complete``
and ``POST /sca/record-event``. Every one is for a customer of an SCA region (409
``SCA_NOT_REQUIRED`` otherwise)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Query, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Svc, committed, require_platform
from ..domain import sca_factors, sca_login
from ..models.sca import (
    EnrollConfirm,
    EnrollConfirmOut,
    EnrollStart,
    EnrollStartOut,
    RecordEvent,
    RecordEventOut,
    ScaFactorList,
    ScaLoginComplete,
    ScaLoginCompleteOut,
    ScaLoginStart,
    ScaLoginStartOut,
)
from .common import PathId, answer, error_responses
from .routing import Router

__all__ = ["CustomerId", "router"]

#: The customer a ``/sca`` operation is for.
CustomerId = Annotated[str, Query(min_length=1, max_length=200)]
_LOCKED: dict[int | str, dict[str, Any]] = {
    423: {"description": "ACCOUNT_LOCKED: too many failed attempts (locked or suspended)."},
    409: {"description": "SCA_NOT_REQUIRED, or a factor of this kind is already enrolled."},
}

router = Router(
    tags=["Strong Customer Authentication"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404, 429),
)


@router.get("/sca/factors", response_model=ScaFactorList, response_model_exclude_none=True)
def list_factors(db: Db, customerId: CustomerId) -> JSONResponse:
    """The customer's factors: SMS_OTP (its phone), TOTP and PASSKEY when enrolled."""
    return answer(db, sca_factors.list_factors(db, customerId), model=ScaFactorList)


@router.post(
    "/sca/factors",
    response_model=EnrollStartOut,
    response_model_exclude_none=True,
    responses=_LOCKED,
)
def start_enrollment(
    body: EnrollStart, db: Db, services: Svc, customerId: CustomerId
) -> JSONResponse:
    """TOTP: a new secret, its base32 and its ``otpauth://`` URI. PASSKEY: registration options."""
    started = sca_factors.start_enrollment(db, services, customerId, body.type)
    return answer(db, started, model=EnrollStartOut)


@router.post(
    "/sca/factors/confirm",
    response_model=EnrollConfirmOut,
    response_model_exclude_none=True,
    responses=_LOCKED,
)
def confirm_enrollment(
    body: EnrollConfirm, db: Db, services: Svc, customerId: CustomerId
) -> JSONResponse:
    """TOTP: the secret and its first code -> recovery codes (shown once). PASSKEY: the
    attestation and its origin -> the factor."""
    confirmed = sca_factors.confirm_enrollment(db, services, customerId, body)
    return answer(db, confirmed, model=EnrollConfirmOut)


@router.delete("/sca/factors/{credentialId}", status_code=204, responses=_LOCKED)
def delete_factor(credentialId: PathId, db: Db, customerId: CustomerId) -> Response:
    """Delete the customer's passkey factor."""
    sca_factors.delete_factor(db, customerId, credentialId)
    return committed(db, Response(status_code=204))


@router.post("/sca/login/start", response_model=ScaLoginStartOut, response_model_exclude_none=True)
def start_login(body: ScaLoginStart, db: Db, services: Svc, customerId: CustomerId) -> JSONResponse:
    """SMS_OTP: a code to the phone (``challengeId``, ``expiresAt``); TOTP: nothing; PASSKEY:
    ``passkeyOptions``."""
    started = sca_login.start_login(db, services, customerId, body.factor.value)
    return answer(db, started, model=ScaLoginStartOut)


@router.post(
    "/sca/login/complete",
    response_model=ScaLoginCompleteOut,
    response_model_exclude_none=True,
    responses=_LOCKED,
)
def complete_login(
    body: ScaLoginComplete, db: Db, services: Svc, customerId: CustomerId
) -> JSONResponse:
    """The proof of the started factor; opens the SCA session (``sessionExpiresAt``). A wrong
    or reused code is 400 (``TOTP_INVALID``, ``TOTP_REPLAYED``, ``OTP_INVALID``...)."""
    completed = sca_login.complete_login(db, services, customerId, body)
    return answer(db, completed, model=ScaLoginCompleteOut)


@router.post("/sca/record-event", response_model=RecordEventOut, responses=_LOCKED)
def record_event(body: RecordEvent, db: Db, services: Svc, customerId: CustomerId) -> JSONResponse:
    """Record a security event; answers the customer's lockout state."""
    recorded = sca_login.record_event(db, services, customerId, body)
    return answer(db, recorded, model=RecordEventOut, exclude_none=False)
