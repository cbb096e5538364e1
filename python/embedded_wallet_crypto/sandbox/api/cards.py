"""Cards: ``POST/GET /cards``, ``GET/PATCH /cards/{id}``, ``POST /cards/{id}/reveal`` (the
rules in ``domain.cards``), and
the reveal page the signed URL points to, ``GET /card-reveal/{cardId}`` (outside the base path
and the OpenAPI document; the URL's signature is its only credential)."""

from __future__ import annotations

import html
from typing import Annotated, Any, Literal

from fastapi import Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse

from ..deps import Db, Paging, Platform, Svc, require_platform
from ..domain import cards
from ..models.cards import CardCreate, CardList, CardOut, CardRevealOut, CardUpdate
from ..models.common import ErrorOut
from .common import PathId, Sort, answer, cap_response, error_responses
from .routing import Router

__all__ = ["reveal_router", "router"]

_STATE: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorOut, "description": "The card's state refuses the change."},
}

router = Router(
    tags=["Cards"],
    dependencies=[Depends(require_platform)],
    responses={**error_responses(400, 401, 404), **_STATE},
)

_Filter = Annotated[str | None, Query(max_length=200)]
_State = Literal["PENDING_KYC", "PROCESSING", "ACTIVE", "FROZEN", "CLOSED"]


@router.post(
    "/cards",
    status_code=201,
    response_model=CardOut,
    responses=cap_response("cards of the cardholder"),
)
def create_card(body: CardCreate, platform: Platform, db: Db, services: Svc) -> JSONResponse:
    """Issue a card to a KYC-approved cardholder (PROCESSING until provisioned)."""
    created = cards.create_card(db, services, platform, body)
    return answer(db, created, status=201)


@router.get("/cards", response_model=CardList)
def list_cards(
    db: Db,
    services: Svc,
    paging: Paging,
    cardholderId: _Filter = None,
    accountId: _Filter = None,
    platformCardId: _Filter = None,
    state: Annotated[_State | None, Query()] = None,
    sortOrder: Sort | None = None,
) -> JSONResponse:
    """Cards, newest first unless ``sortOrder=asc``; the filters combine."""
    filters = {
        "cardholderId": cardholderId,
        "accountId": accountId,
        "platformCardId": platformCardId,
        "state": state,
    }
    order = sortOrder.value if sortOrder is not None else None
    listed = cards.list_cards(db, services, paging.ordered(order), filters)
    return answer(db, listed)


@router.get("/cards/{id}", response_model=CardOut)
def get_card(id: PathId, db: Db, services: Svc) -> JSONResponse:
    """One card (never its reveal URL)."""
    return answer(db, cards.find_card(db, services, id))


@router.patch("/cards/{id}", response_model=CardOut)
def update_card(id: PathId, body: CardUpdate, db: Db, services: Svc) -> JSONResponse:
    """Freeze, unfreeze or close a card, replace its funding sources, set or clear its limit."""
    updated = cards.update_card(db, services, id, body)
    return answer(db, updated)


@router.post("/cards/{id}/reveal", response_model=CardRevealOut)
def reveal_card(
    id: PathId, request: Request, platform: Platform, db: Db, services: Svc
) -> JSONResponse:
    """A signed URL of the page with the card's PAN, CVV and expiry, loading for five
    minutes: a bearer secret (render it at once; never store or log it)."""
    base = str(request.base_url)
    return answer(db, cards.reveal_card(db, services, platform, id, base))


reveal_router = Router(include_in_schema=False)

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Card</title></head>
<body><dl><dt>Card number</dt><dd>{pan}</dd><dt>Expiry</dt><dd>{expiry}</dd>
<dt>CVV</dt><dd>{cvv}</dd></dl></body></html>
"""


@reveal_router.get(cards.REVEAL_PATH + "/{cardId}")
def reveal_page(cardId: PathId, request: Request, db: Db, services: Svc) -> HTMLResponse:
    """The page a reveal URL shows, once its signature and expiry check (401 otherwise)."""
    details = cards.revealed_details(db, services, cardId, str(request.url))
    db.rollback()
    page = _PAGE.format(**{key: html.escape(value) for key, value in details.items()})
    return HTMLResponse(
        page,
        headers={
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
            "X-Frame-Options": "SAMEORIGIN",
        },
    )
