"""``POST /transfer-in`` and ``POST /transfer-out``: same-currency transfers."""

from __future__ import annotations

from fastapi.responses import JSONResponse

from ..deps import Db, Keyed, Platform, Svc
from ..domain import transfers
from ..models.transactions import TransactionOut
from ..models.transfers import TransferIn, TransferOut
from .common import IDEMPOTENCY_RESPONSES, error_responses, idempotent
from .routing import Router

__all__ = ["router"]

router = Router(tags=["Same-currency transfers"], responses=error_responses(400, 401, 404))


@router.post(
    "/transfer-in", status_code=201, responses=IDEMPOTENCY_RESPONSES, response_model=TransactionOut
)
def post_transfer_in(
    body: TransferIn, platform: Platform, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Pull from an external account into an internal account of the same currency."""
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (201, transfers.transfer_in(db, platform, body, services=services)),
    )


@router.post(
    "/transfer-out", status_code=201, responses=IDEMPOTENCY_RESPONSES, response_model=TransactionOut
)
def post_transfer_out(
    body: TransferOut, platform: Platform, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Pay from an internal account to an external account of the same currency."""
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (201, transfers.transfer_out(db, platform, body, services=services)),
    )
