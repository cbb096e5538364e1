"""The platform's later decisions on a transaction: ``POST
/transactions/{transactionId}/reject``, ``/cancel`` and ``/confirm``. Each takes an
``Idempotency-Key``: a retry with the same key gets the first answer (not a 409 for the
decision it already made)."""

from __future__ import annotations

from typing import Any

from fastapi import Depends
from fastapi.responses import JSONResponse

from ..deps import Db, Keyed, Platform, Svc, require_platform
from ..domain import transaction_ops
from ..models.common import ErrorOut
from ..models.transaction_ops import CancelBody, ConfirmBody, RejectBody
from ..models.transactions import TransactionOut
from .common import IDEMPOTENCY_RESPONSES, PathId, error_responses, idempotent
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Transactions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)


def _conflict(description: str) -> dict[int | str, dict[str, Any]]:
    return {409: {"model": ErrorOut, "description": description}}


@router.post(
    "/transactions/{transactionId}/reject",
    response_model=TransactionOut,
    responses={
        **_conflict("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL: it awaits no approval."),
        422: IDEMPOTENCY_RESPONSES[422],
    },
)
def reject(
    transactionId: PathId,
    platform: Platform,
    db: Db,
    keyed: Keyed,
    body: RejectBody | None = None,
) -> JSONResponse:
    """Reject an incoming payment held by the approval webhook: REJECTED, nothing credited."""
    return idempotent(
        db, platform, keyed, lambda: (200, transaction_ops.reject_incoming(db, transactionId, body))
    )


@router.post(
    "/transactions/{transactionId}/cancel",
    response_model=TransactionOut,
    responses={
        **_conflict("TRANSACTION_NOT_CANCELLABLE: it has settled or ended."),
        422: IDEMPOTENCY_RESPONSES[422],
    },
)
def cancel(
    transactionId: PathId,
    platform: Platform,
    db: Db,
    keyed: Keyed,
    body: CancelBody | None = None,
) -> JSONResponse:
    """Cancel a bank transfer before it settles: a transfer out is REFUNDED (its source gets
    the amount back), a transfer in FAILED."""
    return idempotent(
        db, platform, keyed, lambda: (200, transaction_ops.cancel(db, transactionId, body))
    )


@router.post(
    "/transactions/{transactionId}/confirm",
    response_model=TransactionOut,
    responses=IDEMPOTENCY_RESPONSES,
)
def confirm(
    transactionId: PathId,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: Keyed,
    body: ConfirmBody | None = None,
) -> JSONResponse:
    """Record when the platform delivered the receipt (now, without a time); again replaces it."""
    now = services.clock.now()
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (200, transaction_ops.confirm_receipt(db, transactionId, body, now)),
    )
