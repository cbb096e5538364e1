"""Transactions: creation with a schedule of status steps (the sandbox outcomes), the balance
moves each step makes, the background advance of due steps, and the response body.

A step's moment is stored as epoch seconds (``start + after * time_scale``), so a restarted
service (or another process on the same database) continues where the last one stopped; a
version column makes each step apply once.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ._clock import Clock, iso
from ._currencies import currency
from ._db import Database, lock
from ._errors import ApiError
from ._ids import new_id
from ._models import InternalAccount
from ._models_payments import QuoteRow, TransactionRow, WebhookDelivery
from ._payment_tables import Step
from ._webhooks import deliver_due, emit

__all__ = [
    "APPROVAL_TIMEOUT_SECONDS",
    "INCOMING_PAYMENT",
    "OUTGOING_PAYMENT",
    "advance_due",
    "apply_approval",
    "credit",
    "debit",
    "new_transaction",
    "transaction_body",
    "worker_lifespan",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

OUTGOING_PAYMENT = "OUTGOING_PAYMENT"
INCOMING_PAYMENT = "INCOMING_PAYMENT"
#: An incoming payment acknowledged with 202 must be approved within this (simulated) time.
APPROVAL_TIMEOUT_SECONDS = 5 * 60
#: How often the worker looks for due steps and deliveries (real seconds).
TICK_SECONDS = 0.1

_FINAL = ("COMPLETED", "FAILED", "REJECTED", "REFUNDED", "EXPIRED")


def debit(db: Session, account_id: str, amount: int) -> None:
    """Take ``amount`` from an internal account (400 INSUFFICIENT_FUNDS when short)."""
    taken = db.execute(
        update(InternalAccount)
        .where(InternalAccount.id == account_id)
        .where(InternalAccount.balance >= amount)
        .values(balance=InternalAccount.balance - amount, updated_at=Clock.now())
    )
    if getattr(taken, "rowcount", 0) != 1:
        raise ApiError(400, "INSUFFICIENT_FUNDS", "The source account's balance is too low.")


def credit(db: Session, account_id: str, amount: int) -> None:
    """Add ``amount`` to an internal account (no-op for any other id)."""
    db.execute(
        update(InternalAccount)
        .where(InternalAccount.id == account_id)
        .values(balance=InternalAccount.balance + amount, updated_at=Clock.now())
    )


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
) -> TransactionRow:
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
    row = TransactionRow(
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
        reference=f"SBX-{secrets.token_hex(5).upper()}",
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
    _apply_due(db, row, start)
    db.flush()
    return row


def _apply_due(db: Session, row: TransactionRow, now: float) -> bool:
    """Apply the steps of ``row`` that are due (in ``db``'s transaction); True if any."""
    schedule = list(row.schedule)
    changed = False
    while schedule and schedule[0]["at"] <= now:
        step = schedule.pop(0)
        row.status = step["status"]
        row.failure_reason = step.get("failureReason")
        if (
            step.get("credit")
            and row.extra.get("destinationInternal")
            and row.destination_account_id
        ):
            credit(db, row.destination_account_id, row.received_amount)
        if step.get("refund") and row.extra.get("sourceInternal") and row.source_account_id:
            credit(db, row.source_account_id, row.sent_amount)
        changed = True
        moment = datetime.fromtimestamp(step["at"], timezone.utc)
        row.updated_at = moment
        if row.status == "COMPLETED":
            row.settled_at = moment
        if row.quote_id is not None:
            quote = db.get(QuoteRow, row.quote_id)
            if quote is not None:
                quote.status = _quote_status(row.status)
        event = emit(
            db,
            str(row.extra.get("platform", "")),
            INCOMING_PAYMENT if row.type == "INCOMING" else OUTGOING_PAYMENT,
            {"transaction": transaction_body(row)},
            transaction_id=row.id,
        )
        row.extra = {**row.extra, "lastEventId": event}
    row.schedule = schedule
    row.next_at = schedule[0]["at"] if schedule else None
    return changed


def _quote_status(status: str) -> str:
    if status in ("PENDING", "COMPLETED", "FAILED", "EXPIRED"):
        return status
    if status in ("REJECTED", "REFUNDED"):
        return "FAILED"
    return "PROCESSING"


def advance_due(database: Database) -> int:
    """Apply every due step of every transaction; returns how many transactions moved."""
    now = Clock.time()
    moved = 0
    with database.sessions() as session:
        ids = list(
            session.execute(
                select(TransactionRow.id, TransactionRow.version)
                .where(TransactionRow.next_at <= now)
                .order_by(TransactionRow.next_at)
                .limit(50)
            ).all()
        )
    for transaction_id, version in ids:
        with database.sessions() as session:
            taken = session.execute(
                update(TransactionRow)
                .where(TransactionRow.id == transaction_id)
                .where(TransactionRow.version == version)
                .values(version=version + 1)
            )
            if getattr(taken, "rowcount", 0) != 1:
                session.rollback()
                continue  # another process took it
            row = session.get(TransactionRow, transaction_id)
            assert row is not None
            if _apply_due(session, row, now):
                moved += 1
            session.commit()
    return moved


def apply_approval(db: Session, row: TransactionRow, approved: bool, reason: str | None) -> None:
    """Decide a held incoming payment: completed (credited) or failed with ``reason``."""
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
                "status": "FAILED",
                "failureReason": reason,
                "refund": False,
                "credit": False,
            }
        ]
    row.version += 1
    _apply_due(db, row, now)


def _delivery_result(
    session: Session, delivery: WebhookDelivery, state: str, status: int | None
) -> None:
    """An approval request's answer: 200 approves, 202 holds (until the approve call or the
    timeout), a failed delivery fails the payment (PAYMENT_APPROVAL_WEBHOOK_ERROR)."""
    if delivery.transaction_id is None or delivery.event_type != INCOMING_PAYMENT:
        return
    row = session.get(TransactionRow, delivery.transaction_id)
    if row is None:
        return
    lock(session, row)  # against a concurrent POST /transactions/{id}/approve
    if row.status != "PENDING" or not row.extra.get("awaitingApproval"):
        return
    if row.extra.get("approvalEvent") != delivery.id:
        return
    extra = dict(row.extra)
    extra["awaitingApproval"] = status == 202
    row.extra = extra
    if state == "FAILED":
        apply_approval(session, row, False, "PAYMENT_APPROVAL_WEBHOOK_ERROR")
    elif status != 202:
        apply_approval(session, row, True, None)


def is_final(status: str) -> bool:
    return status in _FINAL


def transaction_body(row: TransactionRow) -> dict[str, Any]:
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
    if row.type == "OUTGOING":
        body["sentAmount"] = {
            "amount": row.sent_amount,
            "currency": currency(row.source_currency or row.destination_currency),
        }
    if row.settled_at is not None:
        body["settledAt"] = iso(row.settled_at)
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
    if row.extra.get("counterpartyInformation"):
        body["counterpartyInformation"] = row.extra["counterpartyInformation"]
    if row.extra.get("requestedReceiverCustomerInfoFields") is not None:
        body["requestedReceiverCustomerInfoFields"] = row.extra[
            "requestedReceiverCustomerInfoFields"
        ]
    return {k: v for k, v in body.items() if v is not None}


def _tick(database: Database, clock: Clock) -> None:
    advance_due(database)
    deliver_due(database, clock, _delivery_result)


@asynccontextmanager
async def worker_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The background task: due steps and due webhook deliveries, every tick."""
    database: Database = app.state.database
    clock: Clock = app.state.services.clock
    stopping = asyncio.Event()

    async def run() -> None:
        while not stopping.is_set():
            try:
                await asyncio.to_thread(_tick, database, clock)
            except Exception:  # a bug or a database hiccup: log it, keep the service up
                logger.exception("background payment worker")
            try:
                await asyncio.wait_for(stopping.wait(), TICK_SECONDS)
            except asyncio.TimeoutError:
                pass

    task = asyncio.create_task(run())
    try:
        yield
    finally:
        stopping.set()
        await task
