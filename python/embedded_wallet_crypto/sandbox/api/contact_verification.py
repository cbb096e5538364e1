"""Contact verification: ``POST /customers/{customerId}/verify-email`` and
``/verify-phone`` (204: a code sent), and their ``/confirm`` (the customer)."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Svc, committed, require_platform
from ..domain import contact_verification
from ..models.customers import CustomerOut
from ..models.sca import ContactCode
from .common import PathId, answer, error_responses
from .routing import Router

__all__ = ["router"]

_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {
        "description": "CONTACT_VERIFICATION_NOT_REQUIRED (outside the EEA), ALREADY_VERIFIED, "
        "or CONTACT_CHANGED (the contact changed while its code was checked)."
    }
}
router = Router(
    tags=["Contact Verification"],
    dependencies=[Depends(require_platform)],
    responses={**error_responses(400, 401, 404, 429), **_CONFLICT},
)


@router.post("/customers/{customerId}/verify-email", status_code=204)
def send_email_code(customerId: PathId, db: Db, services: Svc) -> Response:
    """Email a code (the sandbox's outbox); the sandbox also takes 123456."""
    contact_verification.send_contact_code(db, services, customerId, "email")
    return committed(db, Response(status_code=204))


@router.post(
    "/customers/{customerId}/verify-email/confirm",
    response_model=CustomerOut,
    response_model_exclude_none=True,
)
def confirm_email(customerId: PathId, body: ContactCode, db: Db, services: Svc) -> JSONResponse:
    confirmed = contact_verification.confirm_contact(db, services, customerId, "email", body.code)
    return answer(db, confirmed, model=CustomerOut)


@router.post("/customers/{customerId}/verify-phone", status_code=204)
def send_phone_code(customerId: PathId, db: Db, services: Svc) -> Response:
    """Send a code by SMS (the sandbox's outbox); the sandbox also takes 123456."""
    contact_verification.send_contact_code(db, services, customerId, "phone")
    return committed(db, Response(status_code=204))


@router.post(
    "/customers/{customerId}/verify-phone/confirm",
    response_model=CustomerOut,
    response_model_exclude_none=True,
)
def confirm_phone(customerId: PathId, body: ContactCode, db: Db, services: Svc) -> JSONResponse:
    confirmed = contact_verification.confirm_contact(db, services, customerId, "phone", body.code)
    return answer(db, confirmed, model=CustomerOut)
