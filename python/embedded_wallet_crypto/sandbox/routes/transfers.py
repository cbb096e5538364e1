"""``POST /transfer-in`` and ``POST /transfer-out``: same-currency transfers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._db import get_session
from .._errors import error_responses
from .._idempotency import IDEMPOTENCY_RESPONSES, IdempotencyKey, idempotent
from .._services import Services, get_services
from .._transfers import TransferIn, TransferOut, transfer_in, transfer_out

__all__ = ["router"]

router = APIRouter(tags=["Same-currency transfers"], responses=error_responses(400, 401, 404))

Platform = Annotated[str, Depends(require_platform)]
Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]


@router.post("/transfer-in", status_code=201, responses=IDEMPOTENCY_RESPONSES)
def post_transfer_in(
    body: TransferIn,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Pull from an external account into an internal account of the same currency."""
    return idempotent(
        db, platform, keyed, lambda: (201, transfer_in(db, platform, body, services=services))
    )


@router.post("/transfer-out", status_code=201, responses=IDEMPOTENCY_RESPONSES)
def post_transfer_out(
    body: TransferOut,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Pay from an internal account to an external account of the same currency."""
    return idempotent(
        db, platform, keyed, lambda: (201, transfer_out(db, platform, body, services=services))
    )
