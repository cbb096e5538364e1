"""``POST /quotes``, ``GET /quotes/{quoteId}`` and ``POST /quotes/{quoteId}/execute``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ..deps import Db, Keyed, Platform, Signed, Svc
from ..domain import quotes
from ..models.quotes import QuoteCreate, QuoteOut
from .common import IDEMPOTENCY_RESPONSES, PathId, answer, error_responses, idempotent

__all__ = ["router"]

router = APIRouter(tags=["Quotes"], responses=error_responses(400, 401, 404))


@router.post("/quotes", status_code=201, responses=IDEMPOTENCY_RESPONSES, response_model=QuoteOut)
def post_quote(
    body: QuoteCreate, platform: Platform, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Create a quote (cross-currency only); ``immediatelyExecute`` executes it at once."""
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (201, quotes.create_quote(db, platform, body, services=services)),
    )


@router.get("/quotes/{quoteId}", response_model=QuoteOut)
def get_quote(quoteId: PathId, _: Platform, db: Db) -> JSONResponse:
    """One quote (its status follows its transaction; EXPIRED once unexecuted past expiresAt)."""
    return answer(db, quotes.quote_body(quotes.find_quote(db, quoteId)))


@router.post("/quotes/{quoteId}/execute", responses=IDEMPOTENCY_RESPONSES, response_model=QuoteOut)
def post_execute(
    quoteId: PathId, signed: Signed, platform: Platform, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Execute a quote; an embedded-wallet source needs ``Service-Wallet-Signature``, a stamp
    of the quote's ``payloadToSign`` by an active session key of that wallet (used once)."""
    signature = quotes.Signature(signed.stamp)
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (200, quotes.execute_quote(db, quoteId, services=services, signature=signature)),
    )
