"""``POST /quotes``, ``GET /quotes/{quoteId}`` and ``POST /quotes/{quoteId}/execute``."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

from ..deps import Db, Keyed, Platform, Signed, Svc
from ..domain import quotes
from ..models.quotes import ExecuteQuote, QuoteCreate, QuoteOut
from .common import IDEMPOTENCY_RESPONSES, PathId, answer, error_responses, idempotent
from .routing import Router

__all__ = ["router"]

router = Router(tags=["Quotes"], responses=error_responses(400, 401, 404))
_HELD: dict[int | str, dict[str, Any]] = {
    202: {
        "model": QuoteOut,
        "description": "PENDING_AUTHORIZATION: authorize its scaChallenge to get its "
        "paymentInstructions (a realtime-funding quote of a customer of the EEA).",
    }
}


@router.post(
    "/quotes",
    status_code=201,
    responses={**IDEMPOTENCY_RESPONSES, **_HELD},
    response_model=QuoteOut,
)
def post_quote(
    body: QuoteCreate, platform: Platform, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Create a quote (cross-currency only); ``immediatelyExecute`` executes it at once. A
    realtime-funding quote of a customer of the EEA is 202, ``PENDING_AUTHORIZATION``."""

    def create() -> tuple[int, dict[str, Any]]:
        made = quotes.create_quote(db, platform, body, services=services)
        held = made["status"] == "PENDING_AUTHORIZATION" and not body.immediatelyExecute
        return (202 if held else 201), made

    return idempotent(db, platform, keyed, create)


@router.get("/quotes/{quoteId}", response_model=QuoteOut)
def get_quote(quoteId: PathId, _: Platform, db: Db) -> JSONResponse:
    """One quote (its status follows its transaction; EXPIRED once unexecuted past expiresAt)."""
    return answer(db, quotes.quote_body(quotes.find_quote(db, quoteId)))


@router.post("/quotes/{quoteId}/execute", responses=IDEMPOTENCY_RESPONSES, response_model=QuoteOut)
def post_execute(
    quoteId: PathId,
    signed: Signed,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: Keyed,
    body: ExecuteQuote | None = None,
) -> JSONResponse:
    """Execute a quote; an embedded-wallet source needs ``Service-Wallet-Signature``, a stamp
    of the quote's ``payloadToSign`` by an active session key of that wallet (used once). For
    a customer of the EEA the send is held ``PENDING_AUTHORIZATION`` (``scaFactor``: the
    challenge's factor) until ``POST /quotes/{quoteId}/authorize``."""
    signature = quotes.Signature(signed.stamp)
    factor = body.scaFactor if body is not None else None
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (
            200,
            quotes.execute_quote(
                db, quoteId, services=services, signature=signature, sca_factor=factor
            ),
        ),
    )
