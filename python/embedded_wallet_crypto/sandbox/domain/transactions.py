"""Transactions: creation with a schedule of status steps (the sandbox outcomes), the balance
moves each step makes, and the response body (the background worker that applies due steps is
``sandbox.worker``; the lists and the platform's approval are ``transaction_queries``).

A step's moment is stored as epoch seconds (``start + after * time_scale``), so a restarted
service (or another process on the same database) continues where the last one stopped; a
version column makes each step apply once. A credit that would pass the destination's balance
ceiling fails the payment instead (``LIMIT_EXCEEDED``, the source refunded); a refund that would
pass the source's ceiling is not made (the body's ``refund`` shows it ``FAILED``).
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any

from sqlalchemy.orm import Session

from ..clock import Clock, iso
from ..db.tables_payments import Quote, Transaction
from ..ids import new_id, random_hex
from .balances import credit
from .currencies import currency
from .payment_tables import Step
from .webhooks import APPROVAL, NOTIFY, emit, payment_event_type

__all__ = [
    "APPROVAL_TIMEOUT_SECONDS",
    "LIMIT_EXCEEDED",
    "apply_approval",
    "apply_due",
    "fail_now",
    "is_final",
    "new_transaction",
    "transaction_body",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: An incoming payment that awaits approval is decided within this (simulated) time, or fails
#: PAYMENT_APPROVAL_TIMED_OUT (the published window is 5 seconds; the sandbox allows 5 minutes,
#: scaled by ``--time-scale``, so that a developer can approve by hand).
APPROVAL_TIMEOUT_SECONDS = 5 * 60
#: The failure reason of a payment whose credit would pass the destination's balance ceiling.
LIMIT_EXCEEDED = "LIMIT_EXCEEDED"

_FINAL = ("COMPLETED", "FAILED", "REJECTED", "REFUNDED", "EXPIRED")


def _epoch(moment: datetime) -> float:
    return moment.timestamp()


def new_transaction(
    db: Session,
    clock: Clock,
    platform: str,
    *,
    type: str,
    kind: str,
    steps: list[Step],
    customer_id: str | None,
    platform_customer_id: str | None,
    source_account_id: str | None,
    source_currency: str | None,
    sent_amount: int,
    source_internal: bool,
    destination_account_id: str | None,
    destination_currency: str,
    received_amount: int,
    destination_internal: bool,
    quote_id: str | None = None,
    agent_id: str | None = None,
    description: str | None = None,
    transaction_id: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Transaction:
    """A transaction that starts its schedule now: steps at 0 apply at once."""
    now = clock.now()
    start = _epoch(now)
    schedule = [
        {
            "at": start + clock.seconds(step.after),
            "status": step.status,
            "failureReason": step.failure_reason,
            "refund": step.refund,
            "credit": step.credit,
        }
        for step in steps
    ]
    row = Transaction(
        id=transaction_id or new_id("Transaction"),
        type=type,
        kind=kind,
        status="CREATED",
        customer_id=customer_id,
        platform_customer_id=platform_customer_id,
        agent_id=agent_id,
        quote_id=quote_id,
        source_account_id=source_account_id,
        source_currency=source_currency,
        sent_amount=sent_amount,
        destination_account_id=destination_account_id,
        destination_currency=destination_currency,
        received_amount=received_amount,
        description=description,
        reference=f"SBX-{random_hex(5, 'reference').upper()}",
        failure_reason=None,
        extra={
            "platform": platform,
            "sourceInternal": source_internal,
            "destinationInternal": destination_internal,
            **(extra or {}),
        },
        schedule=schedule,
        next_at=schedule[0]["at"] if schedule else None,
        version=0,
        created_at=now,
        updated_at=now,
        settled_at=None,
    )
    db.add(row)
    apply_due(db, row, start)
    db.flush()
    return row


def apply_due(db: Session, row: Transaction, now: float) -> bool:
    """Apply the steps of ``row`` that are due (in ``db``'s transaction); True if any."""
    schedule = list(row.schedule)
    changed = False
    while schedule and schedule[0]["at"] <= now:
        step = schedule.pop(0)
        moment = datetime.fromtimestamp(step["at"], timezone.utc)
        row.status = step["status"]
        row.failure_reason = step.get("failureReason")
        refund = bool(step.get("refund"))
        if (
            step.get("credit")
            and row.extra.get("destinationInternal")
            and row.destination_account_id
            and not credit(db, row.destination_account_id, row.received_amount)
        ):
            # The destination is full: the payment fails instead, and nothing more happens.
            row.status, row.failure_reason, refund = "FAILED", LIMIT_EXCEEDED, True
            schedule = []
        if refund:
            _refund(db, row, moment)
        changed = True
        row.updated_at = moment
        if row.status == "COMPLETED":
            row.settled_at = moment
        _announce(db, row)
    row.schedule = schedule
    row.next_at = schedule[0]["at"] if schedule else None
    return changed


def _refund(db: Session, row: Transaction, moment: datetime) -> None:
    """Return the sending amount to an internal source, unless that would pass its ceiling:
    then the money stays out and the transaction shows a FAILED ``refund``."""
    if not row.extra.get("sourceInternal") or not row.source_account_id:
        return
    if credit(db, row.source_account_id, row.sent_amount):
        return
    logger.warning("the refund of %s would pass the source's balance ceiling: not made", row.id)
    row.extra = {
        **row.extra,
        "refund": {
            "reference": f"{row.reference}-REFUND",
            "initiatedAt": iso(moment),
            "status": "FAILED",
            "reason": "TRANSACTION_FAILED",
        },
    }


def _announce(db: Session, row: Transaction) -> None:
    """The quote's status follows ``row``; the webhook event of its new status is recorded
    (``INCOMING_PAYMENT.*`` or ``OUTGOING_PAYMENT.*`` with the transaction as ``data``; an
    incoming payment that awaits the platform's approval asks for it: kind ``APPROVAL``)."""
    if row.quote_id is not None:
        quote = db.get(Quote, row.quote_id)
        if quote is not None:
            quote.status = _quote_status(row.status)
    event_type = payment_event_type(row.type, row.status)
    if event_type is None:
        return
    approval = row.type == "INCOMING" and row.status == "PENDING"
    approval = approval and bool(row.extra.get("awaitingApproval"))
    event = emit(
        db,
        event_type,
        transaction_body(row),
        transaction_id=row.id,
        kind=APPROVAL if approval else NOTIFY,
    )
    row.extra = {**row.extra, "lastEventId": event}


def fail_now(db: Session, row: Transaction, reason: str, *, refund: bool) -> None:
    """End ``row`` FAILED with ``reason`` at once, dropping its remaining steps; with
    ``refund``, an internal source gets the sending amount back (unless an internal
    destination was credited already: the money arrived)."""
    moment = Clock.now()
    arrived = row.status == "COMPLETED" and row.extra.get("destinationInternal")
    row.status, row.failure_reason = "FAILED", reason
    row.schedule, row.next_at = [], None
    row.updated_at = moment
    if refund and not arrived:
        _refund(db, row, moment)
    _announce(db, row)


def _quote_status(status: str) -> str:
    if status in ("PENDING", "PENDING_AUTHORIZATION", "COMPLETED", "FAILED", "EXPIRED"):
        return status
    if status in ("REJECTED", "REFUNDED"):
        return "FAILED"
    return "PROCESSING"


def apply_approval(
    db: Session, row: Transaction, approved: bool, reason: str | None, *, status: str = "FAILED"
) -> None:
    """Decide a held incoming payment: completed (credited), or ``status`` (FAILED, REJECTED)
    with ``reason``."""
    now = Clock.time()
    if approved:
        row.schedule = [
            {
                "at": now,
                "status": "COMPLETED",
                "failureReason": None,
                "refund": False,
                "credit": True,
            }
        ]
    else:
        row.schedule = [
            {
                "at": now,
                "status": status,
                "failureReason": reason,
                "refund": False,
                "credit": False,
            }
        ]
    row.version += 1
    apply_due(db, row, now)


def is_final(status: str) -> bool:
    return status in _FINAL


def transaction_body(row: Transaction) -> dict[str, Any]:
    """The interface's Transaction (incoming and outgoing forms)."""
    body: dict[str, Any] = {
        "id": row.id,
        "status": row.status,
        "type": row.type,
        "direction": "CREDIT" if row.type == "INCOMING" else "DEBIT",
        "destination": {
            "destinationType": "ACCOUNT",
            "accountId": row.destination_account_id,
            "currency": row.destination_currency,
        },
        "customerId": row.customer_id,
        "platformCustomerId": row.platform_customer_id,
        "receivedAmount": {
            "amount": row.received_amount,
            "currency": currency(row.destination_currency),
        },
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    if row.destination_account_id is None:
        body["destination"] = {
            "destinationType": "UMA_ADDRESS",
            "umaAddress": row.extra.get("umaAddress"),
            "currency": row.destination_currency,
        }
    if row.source_account_id is not None or row.extra.get("senderUmaAddress"):
        source: dict[str, Any] = {"sourceType": "ACCOUNT", "accountId": row.source_account_id}
        if row.source_account_id is None:
            source = {"sourceType": "UMA_ADDRESS", "umaAddress": row.extra["senderUmaAddress"]}
        source["currency"] = row.source_currency
        body["source"] = source
    elif row.type == "OUTGOING" and row.source_currency:  # funded by paying its instructions
        body["source"] = {
            "sourceType": "REALTIME_FUNDING",
            "currency": row.source_currency,
            **({"customerId": row.customer_id} if row.customer_id else {}),
        }
    if row.type == "OUTGOING":
        body["sentAmount"] = {
            "amount": row.sent_amount,
            "currency": currency(row.source_currency or row.destination_currency),
        }
    if row.settled_at is not None:
        body["settledAt"] = iso(row.settled_at)
    if row.extra.get("receiptDeliveryConfirmedAt"):
        body["receiptDeliveryConfirmedAt"] = row.extra["receiptDeliveryConfirmedAt"]
    if row.agent_id:
        body["agentId"] = row.agent_id
    if row.quote_id:
        body["quoteId"] = row.quote_id
    if row.description:
        body["description"] = row.description
    if row.status != "CREATED":
        body["reconciliationInstructions"] = {"reference": row.reference}
    if row.failure_reason and row.status in ("FAILED", "REJECTED", "EXPIRED"):
        body["failureReason"] = row.failure_reason
    if row.type == "OUTGOING" and row.extra.get("refund"):
        body["refund"] = row.extra["refund"]
    if row.extra.get("counterpartyInformation"):
        body["counterpartyInformation"] = row.extra["counterpartyInformation"]
    if row.extra.get("requestedReceiverCustomerInfoFields") is not None:
        body["requestedReceiverCustomerInfoFields"] = row.extra[
            "requestedReceiverCustomerInfoFields"
        ]
    return {k: v for k, v in body.items() if v is not None}
