"""The sandbox-only simulations (the routes answer 403 in production): fund an internal
account, pay a realtime-funded quote's instructions, receive an UMA payment."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..db.tables_payments import ExternalAccount
from ..db.tables_wallet import Customer, InternalAccount
from ..models.sandbox import FundBody, SendBody, UmaReceiveBody
from ..services import Services
from .balances import credit, limit_exceeded, require_room
from .customers import account_body
from .errors import invalid, not_found
from .payment_tables import SETTLE_SECONDS, Step
from .platform_config import check_amount, load_config
from .quotes import find_quote, fund_quote
from .transaction_queries import find_transaction
from .transactions import APPROVAL_TIMEOUT_SECONDS, new_transaction, transaction_body

__all__ = ["REQUESTED_RECEIVER_FIELDS", "fund_account", "receive_uma", "send_funding"]

#: What an approval request asks of the platform about the receiver (sandbox choice).
REQUESTED_RECEIVER_FIELDS = [{"name": "FULL_NAME", "mandatory": True}]


def fund_account(db: Session, account_id: str, body: FundBody) -> dict[str, Any]:
    """Add ``amount`` (smallest units) to an internal account at once; 400
    BALANCE_LIMIT_EXCEEDED if its balance would pass the ceiling (decided by the credit's own
    conditional update, so concurrent funds never pass it)."""
    account = db.get(InternalAccount, account_id)
    if account is None:
        raise not_found("No internal account has this id.")
    if not credit(db, account.id, body.amount):
        raise limit_exceeded()
    db.refresh(account)
    return account_body(account)  # the credit recorded INTERNAL_ACCOUNT.BALANCE_UPDATED


def send_funding(db: Session, services: Services, body: SendBody) -> dict[str, Any]:
    """Simulate paying the funding instructions of a realtime-funded quote; returns the
    quote's transaction."""
    quote = find_quote(db, body.quoteId)
    if body.currencyCode != quote.sending_currency:
        raise invalid("currencyCode is not the quote's sending currency.")
    fund_quote(db, services, quote)
    return transaction_body(find_transaction(db, quote.transaction_id))


def receive_uma(
    db: Session, services: Services, platform: str, body: UmaReceiveBody
) -> dict[str, Any]:
    """Simulate an incoming UMA payment to a customer. With a ``webhookEndpoint`` configured,
    an ``INCOMING_PAYMENT.PENDING`` webhook asks for approval first (its answer decides:
    ``incoming_approval``); without one it completes on its own."""
    customer = None
    if body.customerId is not None:
        customer = db.get(Customer, body.customerId)
    elif body.receiverUmaAddress is not None:
        customer = db.scalars(
            select(Customer).where(Customer.uma_address == body.receiverUmaAddress).limit(1)
        ).first()
    else:
        raise invalid("Give receiverUmaAddress or customerId.")
    if customer is None:
        raise not_found("No customer has this UMA address or id.")
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
            raise invalid(f"The customer holds no {code} account.", "UNSUPPORTED_CURRENCY")
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
    return transaction_body(row)
