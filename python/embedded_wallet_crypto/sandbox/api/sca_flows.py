"""The SCA operations beyond factors and logins: 2FA resets (``/sca/factors/reset``...),
beneficiary trust (``/customers/external-accounts/{id}/trust``, ``/untrust`` and their
``/confirm``) and a quote's authorization (``/quotes/{id}/authorize`` and ``/resend``)."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Svc, committed, require_platform
from ..domain import quote_execution, quote_sca, sca_reset, sca_trust
from ..models.quotes import QuoteOut
from ..models.sca import (
    BeneficiaryTrustConfirm,
    BeneficiaryTrustStart,
    ResetComplete,
    ResetStart,
    ResetStartOut,
    ResetStatusOut,
    ScaAuthorization,
    TrustConfirmOut,
)
from .common import PathId, answer, error_responses
from .routing import Router
from .sca import CustomerId

__all__ = ["router"]

_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {
        "description": "SCA_NOT_REQUIRED; NO_PENDING_CHALLENGE or QUOTE_EXPIRED (quotes); "
        "RESET_ALREADY_COMPLETED (a reset completes once)."
    },
    423: {"description": "ACCOUNT_LOCKED: too many refused proofs."},
}
router = Router(
    tags=["Strong Customer Authentication"],
    dependencies=[Depends(require_platform)],
    responses={**error_responses(400, 401, 404, 429), **_CONFLICT},
)


@router.post("/sca/factors/reset", status_code=201, response_model=ResetStartOut)
def start_reset(body: ResetStart, db: Db, services: Svc, customerId: CustomerId) -> JSONResponse:
    """Start a reset (sandbox: liveness passes at once; at most 5 per customer a day)."""
    started = sca_reset.start_reset(db, services, customerId, body.factor.value)
    return answer(db, started, status=201, model=ResetStartOut)


@router.get("/sca/factors/reset/{resetId}", response_model=ResetStatusOut)
def reset_status(resetId: PathId, db: Db, services: Svc, customerId: CustomerId) -> JSONResponse:
    status = sca_reset.reset_status(db, services, customerId, resetId)
    return answer(db, status, model=ResetStatusOut, exclude_none=False)


@router.post("/sca/factors/reset/{resetId}/complete", status_code=204)
def complete_reset(
    resetId: PathId,
    db: Db,
    services: Svc,
    customerId: CustomerId,
    body: ResetComplete | None = None,
) -> Response:
    """Clear the lost factor, or enroll the new mobile number (SMS_OTP)."""
    sca_reset.complete_reset(db, services, customerId, resetId, body)
    return committed(db, Response(status_code=204))


def _trust(kind: str, path: str) -> None:
    @router.post(
        f"/customers/external-accounts/{{externalAccountId}}/{path}",
        response_model=BeneficiaryTrustStart,
        response_model_exclude_none=True,
        name=f"start_{path}",
    )
    def start(externalAccountId: PathId, db: Db, services: Svc) -> JSONResponse:
        started = sca_trust.start_trust(db, services, externalAccountId, kind)
        return answer(db, started, model=BeneficiaryTrustStart)

    @router.post(
        f"/customers/external-accounts/{{externalAccountId}}/{path}/confirm",
        response_model=TrustConfirmOut,
        name=f"confirm_{path}",
    )
    def confirm(
        externalAccountId: PathId, body: BeneficiaryTrustConfirm, db: Db, services: Svc
    ) -> JSONResponse:
        done = sca_trust.confirm_trust(db, services, externalAccountId, kind, body)
        return answer(db, done, model=TrustConfirmOut)


_trust("TRUST", "trust")
_trust("UNTRUST", "untrust")


@router.post("/quotes/{quoteId}/authorize", response_model=QuoteOut)
def authorize_quote(quoteId: PathId, body: ScaAuthorization, db: Db, services: Svc) -> JSONResponse:
    """Authorize the quote's current SCA challenge (an SMS ``code``, or a ``passkeyAssertion``
    with its ``origin``); the quote is returned with the next challenge, or released."""
    authorized = quote_execution.authorize_quote(db, services, quoteId, body)
    return answer(db, authorized, model=QuoteOut)


@router.post("/quotes/{quoteId}/authorize/resend", status_code=204)
def resend_quote_code(quoteId: PathId, db: Db, services: Svc) -> Response:
    """Re-send the code of the quote's SMS_OTP challenge (at most one every 30 seconds)."""
    quote_sca.resend_code(db, services, quoteId)
    return committed(db, Response(status_code=204))
