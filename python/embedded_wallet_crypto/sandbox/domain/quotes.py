"""Quotes: creation (priced by ``quote_pricing``), execution and expiry, for the platform's
``/quotes`` and an agent's ``/agents/me/quotes``.

An embedded-wallet source pays only with a stamp of the quote's ``payloadToSign`` by an active
session key of the wallet. That payload is a signed-retry challenge of the library's
``SignedRetry`` (operation ``EXECUTE_QUOTE``), issued with the quote; the execution verifies the
stamp through ``SignedRetry.verify`` and so uses the challenge's request id once, in the same
store and by the same atomic claim as every other signed payload of the service. Everything an
execution can be refused for is checked before the claim, in the order the answers keep (the
quote executed or expired, the stamp, the destination full, the wallet short), so that a stamp
is used only by an execution that goes on; the claim itself comes before the transaction's
first write (on SQLite the store shares the database file). That the quote runs once is its
own state: the ``executed`` flag, set by a conditional update.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from ...errors import SignedRetryError, StampError
from ...signed_retry import Operation
from ...stamps import verify_stamp
from ..clock import Clock, iso
from ..db.tables_payments import ExternalAccount, Quote, Transaction
from ..db.tables_wallet import Customer, InternalAccount
from ..ids import new_id
from ..models.quotes import QuoteCreate
from ..services import Services
from .balances import debit, require_funds, require_room
from .currencies import currency
from .errors import INVALID_SIGNATURE, Refusal, invalid, library_refusal, not_found
from .payment_tables import (
    QUOTE_LIFETIME_SECONDS,
    Step,
    quote_outcome,
    suffix_of,
    uma_receiver_outcome,
)
from .quote_pricing import funding_instructions, price_quote
from .transactions import new_transaction
from .wallet import session_keys

__all__ = [
    "Signature",
    "already_executed",
    "check_signer",
    "claim_signature",
    "create_quote",
    "execute_quote",
    "find_quote",
    "fund_quote",
    "is_expired",
    "quote_body",
]

#: Where a wallet quote keeps the request id of its signed-retry challenge.
REQUEST_ID = "signedRequestId"


@dataclass(frozen=True)
class Signature:
    """The ``Service-Wallet-Signature`` of an embedded-wallet quote's execution, as sent.
    ``claimed``: its signed retry was verified and its request id used already (by an agent's
    submission, which the platform's approval then executes)."""

    stamp: str | None
    claimed: bool = False


def already_executed() -> Refusal:
    return Refusal(409, "QUOTE_ALREADY_EXECUTED", "This quote has been executed already.")


def _expired_refusal() -> Refusal:
    return Refusal(409, "QUOTE_EXPIRED", "The quote has expired; create a new one.")


def _summary(quote_id: str, priced: Any) -> str:
    """The ``unsignedTransaction`` of a wallet quote: hex of its terms as compact JSON."""
    terms = {
        "quoteId": quote_id,
        "sendingCurrency": priced.sending,
        "totalSendingAmount": priced.price.total_sending,
        "receivingCurrency": priced.receiving,
        "totalReceivingAmount": priced.price.total_receiving,
        "destination": priced.destination,
    }
    return json.dumps(terms, separators=(",", ":"), sort_keys=True).encode().hex()


def create_quote(
    db: Session, platform: str, body: QuoteCreate, *, services: Services, agent: str | None = None
) -> dict[str, Any]:
    """Create a quote (and, with ``immediatelyExecute``, execute it); returns the Quote body.

    Args:
        db: the request's session (flushed, not committed).
        platform: the platform's credential id (recorded for webhooks).
        body: the parsed request body.
        services: the app's services (clock, organization id, signed retries, environment).
        agent: the ``Agent:<id>`` creating it, if an agent does.

    Raises:
        Refusal: see ``quote_pricing.price_quote``.
    """
    priced = price_quote(db, body)
    now = services.clock.now()
    quote_id = new_id("Quote")
    expires_at = services.clock.later(QUOTE_LIFETIME_SECONDS)
    extra = body.model_dump(
        include={"description", "purposeOfPayment", "senderCustomerInfo", "lookupId"},
        exclude_none=True,
        mode="json",
    )
    instructions: list[dict[str, Any]] = []
    payload = None
    if priced.source_kind == "REALTIME_FUNDING":
        instructions = funding_instructions(quote_id, priced.sending, priced.price.total_sending)
    elif priced.source_kind == "EMBEDDED_WALLET":
        account_id = str(priced.source["accountId"])
        challenge = services.signed_retry.issue(  # after expires_at: it outlives the quote
            account_id=account_id,
            operation=Operation.EXECUTE_QUOTE,
            parameters={
                "signWith": account_id,
                "unsignedTransaction": _summary(quote_id, priced),
                "type": "TRANSACTION_TYPE_QUOTE",
            },
            organization_id=services.organization_id,
        )
        payload = challenge.payload_to_sign
        extra[REQUEST_ID] = challenge.request_id
        instructions = [
            {  # the published place of the payload, and beside it where clients of the
                # interface's first releases read it
                "accountOrWalletInfo": {
                    "accountType": "EMBEDDED_WALLET",
                    "payloadToSign": payload,
                    "accountId": account_id,
                },
                "payloadToSign": payload,
                "instructionsNotes": (
                    "Stamp payloadToSign with an active session key of the wallet and send it "
                    "in Service-Wallet-Signature on POST /quotes/{id}/execute."
                ),
            }
        ]
    price = priced.price
    row = Quote(
        id=quote_id,
        platform=platform,
        agent_id=agent,
        customer_id=priced.customer_id,
        source=priced.source,
        destination=priced.destination,
        source_kind=priced.source_kind,
        sending_currency=priced.sending,
        receiving_currency=priced.receiving,
        total_sending=price.total_sending,
        total_receiving=price.total_receiving,
        fees=price.fees,
        exchange_rate=price.exchange_rate,
        rate_details=price.rate_details(),
        payment_instructions=instructions,
        payload_to_sign=payload,
        extra=extra,
        status="PENDING",
        transaction_id=new_id("Transaction"),
        executed=False,
        created_at=now,
        expires_at=expires_at,
    )
    db.add(row)
    db.flush()
    if body.immediatelyExecute:
        return execute_quote(db, row, services=services, agent=agent)
    _start(db, services, row, agent=agent, source_internal=False, pending=True)
    return quote_body(row)


def find_quote(db: Session, quote_id: str) -> Quote:
    row = db.get(Quote, quote_id)
    if row is None:
        raise not_found("No quote has this id.")
    return row


def is_expired(row: Quote) -> bool:
    """Whether the quote expired unexecuted."""
    return not row.executed and Clock.now() >= row.expires_at


def quote_body(row: Quote) -> dict[str, Any]:
    """The interface's Quote."""
    body: dict[str, Any] = {
        "id": row.id,
        "status": "EXPIRED" if is_expired(row) else row.status,
        "createdAt": iso(row.created_at),
        "expiresAt": iso(row.expires_at),
        "source": row.source,
        "destination": row.destination,
        "sendingCurrency": currency(row.sending_currency),
        "receivingCurrency": currency(row.receiving_currency),
        "totalSendingAmount": row.total_sending,
        "totalReceivingAmount": row.total_receiving,
        "exchangeRate": row.exchange_rate,
        "feesIncluded": row.fees,
        "transactionId": row.transaction_id,
        "rateDetails": row.rate_details,
    }
    if row.payment_instructions:
        body["paymentInstructions"] = row.payment_instructions
    if row.extra.get("description"):
        body["description"] = row.extra["description"]
    return body


def claim_signature(db: Session, services: Services, row: Quote, stamp: str | None) -> None:
    """Verify ``stamp`` over the wallet quote's payload through its signed-retry challenge and
    use the challenge's request id (once, across processes). 401 for a missing or wrong stamp
    (the request id stays usable); 409 QUOTE_ALREADY_EXECUTED once it was used."""
    account_id = str(row.source["accountId"])
    try:
        services.signed_retry.verify(
            request_id=row.extra.get(REQUEST_ID),
            stamp=stamp,
            account_session_keys=session_keys(db, account_id, services.clock.now()),
            account_id=account_id,
            expected_operation=Operation.EXECUTE_QUOTE,
        )
    except SignedRetryError as error:
        if error.code == "REQUEST_ID_USED":
            raise already_executed() from None
        raise


def check_signer(db: Session, services: Services, row: Quote, stamp: str | None) -> None:
    """The stamp is over the wallet quote's payload, by a key that is an active session of the
    wallet now (or the sandbox stamp); 401 otherwise. Nothing is claimed: this is the check
    made before anything else is (the claim checks again), and the check of a stamp claimed
    earlier (an agent's submission, executed at the platform's approval)."""
    assert row.payload_to_sign is not None
    try:
        signed = verify_stamp(stamp, row.payload_to_sign, sandbox=services.environment)
    except StampError as error:
        raise library_refusal(error) from None
    if signed.scheme == "SANDBOX":
        return
    keys = session_keys(db, str(row.source["accountId"]), services.clock.now())
    if signed.signer_among(keys) is None:
        raise Refusal(401, "UNAUTHORIZED", INVALID_SIGNATURE)


def execute_quote(
    db: Session,
    quote: Quote | str,
    *,
    services: Services,
    signature: Signature | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    """Execute a quote: take the sending amount from the source, start the transaction with
    the destination's sandbox outcome; returns the Quote body. An embedded-wallet source
    needs ``signature`` (see the module).

    Raises:
        Refusal: 404 (no quote), 409 QUOTE_ALREADY_EXECUTED, 409 QUOTE_EXPIRED,
            400 INSUFFICIENT_FUNDS, 400 BALANCE_LIMIT_EXCEEDED (an internal destination
            would pass its ceiling), 400 QUOTE_NEEDS_FUNDING (a realtime-funded quote: pay its
            instructions), 401 UNAUTHORIZED (a missing or wrong ``Service-Wallet-Signature``).
    """
    row = find_quote(db, quote) if isinstance(quote, str) else quote
    if row.executed:
        raise already_executed()
    if is_expired(row):
        raise _expired_refusal()
    if row.source_kind == "REALTIME_FUNDING":
        raise invalid(
            "A realtime-funded quote executes when its payment instructions are paid.",
            "QUOTE_NEEDS_FUNDING",
        )
    source_id = str(row.source["accountId"])
    wallet = row.source_kind == "EMBEDDED_WALLET"
    signature = signature or Signature(None)
    if wallet:
        check_signer(db, services, row, signature.stamp)
    _require_destination_room(db, row)
    if wallet and not signature.claimed:
        require_funds(db, source_id, row.total_sending)
        claim_signature(db, services, row, signature.stamp)
    _claim(db, row)
    debit(db, source_id, row.total_sending)
    _start(db, services, row, agent=agent, source_internal=True)
    return quote_body(row)


def _require_destination_room(db: Session, row: Quote) -> None:
    """400 BALANCE_LIMIT_EXCEEDED, before anything moves, when the quote pays an internal
    account that its receiving amount would take past the balance ceiling."""
    if row.destination.get("destinationType") != "UMA_ADDRESS":
        require_room(db, str(row.destination.get("accountId")), row.total_receiving)


def _claim(db: Session, row: Quote) -> None:
    """Mark the quote executed in the database, once: of two concurrent executions one
    claims it and the other (which waits for the first's commit) answers 409."""
    claimed = db.execute(
        update(Quote)
        .where(Quote.id == row.id)
        .where(Quote.executed.is_(False))
        .values(executed=True)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise already_executed()


def fund_quote(db: Session, services: Services, row: Quote) -> dict[str, Any]:
    """A realtime-funded quote whose instructions were paid (``/sandbox/send``)."""
    if row.executed:
        raise already_executed()
    if is_expired(row):
        raise _expired_refusal()
    if row.source_kind != "REALTIME_FUNDING":
        raise invalid("This quote is funded from an account.")
    _require_destination_room(db, row)
    _claim(db, row)
    _start(db, services, row, agent=None, source_internal=False)
    return quote_body(row)


def _start(
    db: Session,
    services: Services,
    row: Quote,
    *,
    agent: str | None,
    source_internal: bool,
    pending: bool = False,
) -> None:
    """Start the quote's transaction with its outcome (the execution); with ``pending``, the
    transaction of a quote not executed yet: PENDING, then EXPIRED with QUOTE_EXPIRED when the
    quote expires unexecuted (the execution replaces it)."""
    destination = row.destination
    uma = destination.get("destinationType") == "UMA_ADDRESS"
    destination_id = None if uma else str(destination["accountId"])
    internal = None
    if pending:  # nothing is credited or returned: nothing moved
        steps = [Step(0, "PENDING"), Step(QUOTE_LIFETIME_SECONDS, "EXPIRED", "QUOTE_EXPIRED")]
    elif destination_id is None:
        steps = uma_receiver_outcome(str(destination["umaAddress"])) or []
    else:
        internal = db.get(InternalAccount, destination_id)
        external = None if internal is not None else db.get(ExternalAccount, destination_id)
        steps = quote_outcome(
            suffix_of(external.identifier) if external is not None and services.sandbox else None
        )
    if not pending:
        waiting = db.get(Transaction, row.transaction_id)
        if waiting is not None:
            db.delete(waiting)
            db.flush()
    customer = db.get(Customer, row.customer_id) if row.customer_id else None
    new_transaction(
        db,
        services.clock,
        row.platform,
        type="OUTGOING",
        kind="QUOTE",
        steps=steps,
        customer_id=row.customer_id,
        platform_customer_id=customer.platform_customer_id if customer else None,
        source_account_id=row.source.get("accountId"),
        source_currency=row.sending_currency,
        sent_amount=row.total_sending,
        source_internal=source_internal,
        destination_account_id=destination_id,
        destination_currency=row.receiving_currency,
        received_amount=row.total_receiving,
        destination_internal=internal is not None,
        quote_id=row.id,
        agent_id=agent or row.agent_id,
        description=row.extra.get("description"),
        transaction_id=row.transaction_id,
        extra={"umaAddress": destination.get("umaAddress")},
    )
    row.executed = row.executed or not pending
    db.flush()
