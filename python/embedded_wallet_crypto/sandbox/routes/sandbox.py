"""The sandbox-only endpoints (403 in production, after the platform's credentials are
checked: 401 without them in either environment): fund an internal account, pay a quote's
funding instructions, receive a UMA payment; and ``GET /sandbox/webhook-public-key`` (the key
the webhooks verify with, in both environments). The router's lifespan runs the background
worker that advances timed outcomes and delivers webhooks."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._balances import credit, limit_exceeded, require_room
from .._db import Database, get_session
from .._errors import ApiError, error_responses
from .._models import Customer, InternalAccount
from .._models_payments import ExternalAccount
from .._payment_tables import MAX_LOCKED_AMOUNT, SETTLE_SECONDS, Step
from .._platform_config import check_amount, load_config
from .._quotes import find_quote, fund_quote
from .._services import Services, get_services
from .._transactions import APPROVAL_TIMEOUT_SECONDS, new_transaction, transaction_body
from .._webhooks import public_key_pem
from .._worker import worker_lifespan
from .customers import account_body

__all__ = ["router"]

Platform = Annotated[str, Depends(require_platform)]
Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]

#: What an approval request asks of the platform about the receiver (sandbox choice).
REQUESTED_RECEIVER_FIELDS = [{"name": "FULL_NAME", "mandatory": True}]


def require_sandbox(services: Svc, platform: Platform) -> None:
    """Sandbox-only endpoints fail with 403 in production, once the credentials are valid
    (the check depends on them, so they are checked first)."""
    del platform
    if not services.sandbox:
        raise ApiError(403, "FORBIDDEN", "Sandbox-only endpoints are not available in production.")


router = APIRouter(
    tags=["Sandbox"],
    responses={**error_responses(400, 401, 404), 403: {"description": "Production mode."}},
    lifespan=worker_lifespan,
)
_only = [Depends(require_sandbox)]

_Amount = Annotated[int, Field(strict=True, ge=1, le=MAX_LOCKED_AMOUNT)]


class FundBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    amount: _Amount


class SendBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    quoteId: Annotated[str, Field(min_length=1, max_length=200)]
    currencyCode: Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")]


class UmaReceiveBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    senderUmaAddress: Annotated[str, Field(min_length=3, max_length=300)]
    receivingCurrencyCode: Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")]
    receivingCurrencyAmount: _Amount
    receiverUmaAddress: Annotated[str, Field(min_length=3, max_length=300)] | None = None
    customerId: Annotated[str, Field(min_length=1, max_length=200)] | None = None


@router.post("/sandbox/internal-accounts/{accountId}/fund", dependencies=_only)
def fund(
    accountId: Annotated[str, Path(max_length=200)], body: FundBody, platform: Platform, db: Db
) -> dict[str, Any]:
    """Add ``amount`` (smallest units) to an internal account at once; 400
    BALANCE_LIMIT_EXCEEDED if its balance would pass the ceiling (decided by the credit's own
    conditional update, so concurrent funds never pass it)."""
    del platform
    account = db.get(InternalAccount, accountId)
    if account is None:
        raise ApiError(404, "NOT_FOUND", "No internal account has this id.")
    if not credit(db, account.id, body.amount):
        raise limit_exceeded()
    db.commit()
    db.refresh(account)
    return account_body(account)


@router.post("/sandbox/send", dependencies=_only)
def send(body: SendBody, platform: Platform, db: Db, services: Svc) -> dict[str, Any]:
    """Simulate paying the funding instructions of a realtime-funded quote; returns the
    quote's transaction."""
    del platform
    quote = find_quote(db, body.quoteId)
    if body.currencyCode != quote.sending_currency:
        raise ApiError(400, "INVALID_INPUT", "currencyCode is not the quote's sending currency.")
    fund_quote(db, services, quote)
    db.commit()
    from .._models_payments import TransactionRow

    row = db.get(TransactionRow, quote.transaction_id)
    assert row is not None
    return transaction_body(row)


@router.post("/sandbox/uma/receive", dependencies=_only)
def uma_receive(body: UmaReceiveBody, platform: Platform, db: Db, services: Svc) -> dict[str, Any]:
    """Simulate an incoming UMA payment to a customer. With a ``webhookEndpoint`` configured,
    an INCOMING_PAYMENT webhook asks for approval first (200 approves, 202 holds the payment
    for ``POST /transactions/{id}/approve``); without one it completes on its own."""
    customer = None
    if body.customerId is not None:
        customer = db.get(Customer, body.customerId)
    elif body.receiverUmaAddress is not None:
        customer = db.scalars(
            select(Customer).where(Customer.uma_address == body.receiverUmaAddress).limit(1)
        ).first()
    else:
        raise ApiError(400, "INVALID_INPUT", "Give receiverUmaAddress or customerId.")
    if customer is None:
        raise ApiError(404, "NOT_FOUND", "No customer has this UMA address or id.")
    code = body.receivingCurrencyCode
    check_amount(db, code, body.receivingCurrencyAmount, "INCOMING")
    deposit = db.scalars(
        select(ExternalAccount).where(ExternalAccount.default_uma_of == customer.id).limit(1)
    ).first()
    destination_id: str
    internal = False
    if deposit is not None and deposit.currency == code:
        destination_id = deposit.id
    else:
        account = db.scalars(
            select(InternalAccount)
            .where(InternalAccount.customer_id == customer.id)
            .where(InternalAccount.currency == code)
            .order_by(InternalAccount.created_at)
            .limit(1)
        ).first()
        if account is None:
            raise ApiError(400, "UNSUPPORTED_CURRENCY", f"The customer holds no {code} account.")
        require_room(db, account.id, body.receivingCurrencyAmount)
        destination_id, internal = account.id, True
    approval = bool(load_config(db).webhook_endpoint)
    if approval:
        steps = [
            Step(0, "PENDING"),
            Step(APPROVAL_TIMEOUT_SECONDS, "FAILED", "PAYMENT_APPROVAL_TIMED_OUT"),
        ]
    else:
        steps = [Step(0, "PROCESSING"), Step(SETTLE_SECONDS, "COMPLETED", credit=True)]
    extra: dict[str, Any] = {"senderUmaAddress": body.senderUmaAddress}
    if approval:
        extra["awaitingApproval"] = True
        extra["requestedReceiverCustomerInfoFields"] = REQUESTED_RECEIVER_FIELDS
    row = new_transaction(
        db,
        services.clock,
        platform,
        type="INCOMING",
        kind="UMA",
        steps=steps,
        customer_id=customer.id,
        platform_customer_id=customer.platform_customer_id,
        source_account_id=None,
        source_currency=code,
        sent_amount=0,
        source_internal=False,
        destination_account_id=destination_id,
        destination_currency=code,
        received_amount=body.receivingCurrencyAmount,
        destination_internal=internal,
        extra=extra,
    )
    if approval:
        row.extra = {**row.extra, "approvalEvent": row.extra.get("lastEventId")}
    db.commit()
    return transaction_body(row)


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
def webhook_public_key(request: Request, platform: Platform) -> PlainTextResponse:
    """The P-256 key that verifies ``X-Grid-Signature`` (SPKI PEM)."""
    del platform
    database: Database = request.app.state.database
    return PlainTextResponse(public_key_pem(database), media_type="application/x-pem-file")
