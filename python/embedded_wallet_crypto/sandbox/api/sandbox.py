"""The sandbox-only endpoints (403 in production, after the platform's credentials are
checked: 401 without them in either environment): fund an internal account, pay a quote's
funding instructions, receive a UMA payment; and ``GET /sandbox/webhook-public-key`` (the key
the webhooks verify with, in both environments)."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, PlainTextResponse

from ..deps import SANDBOX_ONLY, Db, Platform, Svc
from ..domain import simulations
from ..domain.webhooks import public_key_pem
from ..models.customers import InternalAccountOut
from ..models.sandbox import FundBody, SendBody, UmaReceiveBody
from ..models.transactions import TransactionOut
from .common import PathId, answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Sandbox"],
    responses={**error_responses(400, 401, 404), 403: {"description": "Production mode."}},
)


@router.post(
    "/sandbox/internal-accounts/{accountId}/fund",
    dependencies=SANDBOX_ONLY,
    response_model=InternalAccountOut,
)
def fund(accountId: PathId, body: FundBody, _: Platform, db: Db) -> JSONResponse:
    """Add ``amount`` (smallest units) to an internal account at once; 400
    BALANCE_LIMIT_EXCEEDED if its balance would pass the ceiling."""
    return answer(db, simulations.fund_account(db, accountId, body))


@router.post("/sandbox/send", dependencies=SANDBOX_ONLY, response_model=TransactionOut)
def send(body: SendBody, _: Platform, db: Db, services: Svc) -> JSONResponse:
    """Simulate paying the funding instructions of a realtime-funded quote; returns the
    quote's transaction."""
    return answer(db, simulations.send_funding(db, services, body))


@router.post("/sandbox/uma/receive", dependencies=SANDBOX_ONLY, response_model=TransactionOut)
def uma_receive(body: UmaReceiveBody, platform: Platform, db: Db, services: Svc) -> JSONResponse:
    """Simulate an incoming UMA payment to a customer. With a ``webhookEndpoint`` configured,
    an ``INCOMING_PAYMENT.PENDING`` webhook asks for approval first (200 approves, 202 holds
    the payment for ``POST /transactions/{id}/approve``, 403 rejects it, 422 asks the sender for
    more); without one it completes on its own."""
    return answer(db, simulations.receive_uma(db, services, platform, body))


#: Its errors are JSON like every error (its PEM response class would document them as text).
_JSON_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {
        "description": entry["description"],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
    }
    for status, entry in error_responses(400, 401, 404).items()
}


@router.get(
    "/sandbox/webhook-public-key",
    response_class=PlainTextResponse,
    responses={200: {"content": {"application/x-pem-file": {}}}, **_JSON_ERRORS},
)
def webhook_public_key(request: Request, _: Platform) -> PlainTextResponse:
    """The P-256 key that verifies ``X-Grid-Signature`` (SPKI PEM)."""
    pem = public_key_pem(request.app.state.database)
    return PlainTextResponse(pem, media_type="application/x-pem-file")
