"""``POST /quotes``, ``GET /quotes/{quoteId}`` and ``POST /quotes/{quoteId}/execute``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._db import get_session
from .._errors import error_responses
from .._quotes import QuoteCreate, create_quote, execute_quote, find_quote, idempotent, quote_body
from .._services import Services, get_services
from .._wallet import retry_headers

__all__ = ["router"]

router = APIRouter(tags=["Quotes"], responses=error_responses(400, 401, 404))

Platform = Annotated[str, Depends(require_platform)]
Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", max_length=255)]
QuoteId = Annotated[str, Path(max_length=200)]


@router.post("/quotes", status_code=201)
def post_quote(
    body: QuoteCreate,
    platform: Platform,
    db: Db,
    services: Svc,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Create a quote (cross-currency only); ``immediatelyExecute`` executes it at once."""
    status, answer = idempotent(
        db,
        f"{platform} POST /quotes",
        idempotency_key,
        lambda: (201, create_quote(db, platform, body, services=services)),
    )
    return JSONResponse(answer, status_code=status)


@router.get("/quotes/{quoteId}")
def get_quote(quoteId: QuoteId, platform: Platform, db: Db) -> dict[str, Any]:
    """One quote (its status follows its transaction; EXPIRED once unexecuted past expiresAt)."""
    del platform
    return quote_body(find_quote(db, quoteId))


@router.post("/quotes/{quoteId}/execute")
def post_execute(
    quoteId: QuoteId,
    request: Request,
    platform: Platform,
    db: Db,
    services: Svc,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Execute a quote; an embedded-wallet source needs ``Service-Wallet-Signature``, a stamp
    of the quote's ``payloadToSign`` by an active session key of that wallet."""
    stamp = retry_headers(request).stamp
    status, answer = idempotent(
        db,
        f"{platform} POST /quotes/{quoteId}/execute",
        idempotency_key,
        lambda: (200, execute_quote(db, quoteId, services=services, signature_header=stamp)),
    )
    return JSONResponse(answer, status_code=status)
