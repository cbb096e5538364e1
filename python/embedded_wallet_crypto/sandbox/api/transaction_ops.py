"""The platform's later decisions on a transaction: ``POST
/transactions/{transactionId}/reject``, ``/cancel`` and ``/confirm``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from ..deps import Db, Svc, require_platform
from ..domain import transaction_ops
from ..models.common import ErrorOut
from ..models.transaction_ops import CancelBody, ConfirmBody, RejectBody
from .common import PathId, answer, error_responses

__all__ = ["router"]

router = APIRouter(
    tags=["Transactions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)


def _conflict(description: str) -> dict[int | str, dict[str, Any]]:
    return {409: {"model": ErrorOut, "description": description}}


@router.post(
    "/transactions/{transactionId}/reject",
    responses=_conflict("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL: it awaits no approval."),
)
def reject(transactionId: PathId, db: Db, body: RejectBody | None = None) -> JSONResponse:
    """Reject an incoming payment held by the approval webhook: REJECTED, nothing credited."""
    return answer(db, transaction_ops.reject_incoming(db, transactionId, body))


@router.post(
    "/transactions/{transactionId}/cancel",
    responses=_conflict("TRANSACTION_NOT_CANCELLABLE: it has settled or ended."),
)
def cancel(transactionId: PathId, db: Db, body: CancelBody | None = None) -> JSONResponse:
    """Cancel a bank transfer before it settles: a transfer out is REFUNDED (its source gets
    the amount back), a transfer in FAILED."""
    return answer(db, transaction_ops.cancel(db, transactionId, body))


@router.post("/transactions/{transactionId}/confirm")
def confirm(
    transactionId: PathId, db: Db, services: Svc, body: ConfirmBody | None = None
) -> JSONResponse:
    """Record when the platform delivered the receipt (now, without a time); again replaces it."""
    confirmed = transaction_ops.confirm_receipt(db, transactionId, body, services.clock.now())
    return answer(db, confirmed)
