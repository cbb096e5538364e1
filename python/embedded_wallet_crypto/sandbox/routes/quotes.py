"""``POST /quotes``, ``GET /quotes/{quoteId}`` and ``POST /quotes/{quoteId}/execute``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._db import get_session
from .._errors import error_responses
from .._idempotency import IDEMPOTENCY_RESPONSES, IdempotencyKey, idempotent
from .._quotes import QuoteCreate, create_quote, execute_quote, find_quote, quote_body
from .._services import Services, get_services
from .._wallet import retry_headers

__all__ = ["router"]

router = APIRouter(tags=["Quotes"], responses=error_responses(400, 401, 404))

Platform = Annotated[str, Depends(require_platform)]
Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]
QuoteId = Annotated[str, Path(max_length=200)]


@router.post("/quotes", status_code=201, responses=IDEMPOTENCY_RESPONSES)
def post_quote(
    body: QuoteCreate,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Create a quote (cross-currency only); ``immediatelyExecute`` executes it at once."""
    return idempotent(
        db, platform, keyed, lambda: (201, create_quote(db, platform, body, services=services))
    )


@router.get("/quotes/{quoteId}")
def get_quote(quoteId: QuoteId, platform: Platform, db: Db) -> dict[str, Any]:
    """One quote (its status follows its transaction; EXPIRED once unexecuted past expiresAt)."""
    del platform
    return quote_body(find_quote(db, quoteId))


@router.post("/quotes/{quoteId}/execute", responses=IDEMPOTENCY_RESPONSES)
def post_execute(
    quoteId: QuoteId,
    request: Request,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Execute a quote; an embedded-wallet source needs ``Service-Wallet-Signature``, a stamp
    of the quote's ``payloadToSign`` by an active session key of that wallet."""
    stamp = retry_headers(request).stamp
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (200, execute_quote(db, quoteId, services=services, signature_header=stamp)),
    )
