"""The background payment worker: every tick it applies the due steps of transactions and (now
and then) forgets expired idempotency keys; beside it, every tick, the due webhook deliveries.

Each transaction is settled in a database transaction of its own, and a failure stays with the
transaction that caused it: one whose settlement raises (a fault of the service or of its
stored data, never of a client) is marked FAILED with ``SETTLEMENT_FAILED`` in another
transaction, its internal source refunded, and the worker goes on with the others. A database
that is busy or unreachable (``OperationalError``) fails nothing: the step is retried at the
next tick.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from .clock import Clock
from .db.engine import Database
from .db.tables_payments import Transaction
from .domain.bulk_import import import_due
from .domain.idempotency import purge_expired
from .domain.transactions import apply_due, fail_now
from .domain.webhook_delivery import deliver_due

__all__ = ["SETTLEMENT_FAILED", "TICK_SECONDS", "advance_due", "running_worker"]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: How often the worker looks for due steps and deliveries (real seconds).
TICK_SECONDS = 0.1
#: How often each process forgets expired idempotency keys (real seconds).
PURGE_SECONDS = 60.0
#: The failure reason of a transaction whose settlement raised.
SETTLEMENT_FAILED = "SETTLEMENT_FAILED"
#: How many due transactions one tick takes.
BATCH = 50


def _advance(database: Database, transaction_id: str, version: int, now: float) -> bool:
    """Apply the due steps of one transaction in a database transaction of its own; False if
    another process took it first or nothing was due."""
    with database.sessions() as db:
        if not _take(db, transaction_id, version):
            db.rollback()
            return False  # another process took it
        row = db.get(Transaction, transaction_id)
        if row is None:  # pragma: no cover - the update above found it
            return False
        moved = apply_due(db, row, now)
        db.commit()
        return moved


def _fail_unsettled(database: Database, transaction_id: str) -> None:
    """Mark a transaction whose settlement raised FAILED (``SETTLEMENT_FAILED``), in a
    transaction of its own: as a failed payment (its internal source refunded, its webhook
    event queued) if that can be done, else bare (status, reason, no further steps)."""
    try:
        with database.sessions() as db:
            row = db.get(Transaction, transaction_id)
            if row is None or row.next_at is None or not _take(db, row.id, row.version):
                return  # gone, finished meanwhile, or another process is on it
            fail_now(db, row, SETTLEMENT_FAILED, refund=True)
            db.commit()
            return
    except Exception:
        logger.exception(
            "could not fail transaction %s as a payment; failing it bare", transaction_id
        )
    try:
        with database.sessions() as db:
            db.execute(
                update(Transaction)
                .where(Transaction.id == transaction_id)
                .where(Transaction.next_at.is_not(None))
                .values(
                    status="FAILED",
                    failure_reason=SETTLEMENT_FAILED,
                    schedule=[],
                    next_at=None,
                    version=Transaction.version + 1,
                    updated_at=Clock.now(),
                )
            )
            db.commit()
    except Exception:
        logger.exception("could not mark transaction %s FAILED", transaction_id)


def _take(db: Session, transaction_id: str, version: int) -> bool:
    """Claim the transaction at ``version`` (the version column makes each change apply once,
    across processes); False if another change came first."""
    taken = db.execute(
        update(Transaction)
        .where(Transaction.id == transaction_id)
        .where(Transaction.version == version)
        .values(version=version + 1)
    )
    return getattr(taken, "rowcount", 0) == 1


def advance_due(database: Database) -> int:
    """Apply every due step of every transaction; returns how many transactions moved."""
    now = Clock.time()
    moved = 0
    with database.sessions() as db:
        due = list(
            db.execute(
                select(Transaction.id, Transaction.version)
                .where(Transaction.next_at <= now)
                .order_by(Transaction.next_at)
                .limit(BATCH)
            ).all()
        )
    for transaction_id, version in due:
        try:
            moved += _advance(database, transaction_id, version, now)
        except OperationalError:
            logger.warning("database busy settling %s; retried at the next tick", transaction_id)
        except Exception:
            logger.exception("settling transaction %s failed; it is marked FAILED", transaction_id)
            _fail_unsettled(database, transaction_id)
    return moved


class _Ticker:
    """One process's worker state: when it last forgot expired idempotency keys."""

    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.purged_at = 0.0

    def tick(self) -> None:
        advance_due(self.database)
        import_due(self.database)
        if time.monotonic() - self.purged_at >= PURGE_SECONDS:
            self.purged_at = time.monotonic()
            purge_expired(self.database)

    def deliver(self) -> None:
        deliver_due(self.database, self.clock)


@asynccontextmanager
async def running_worker(database: Database, clock: Clock) -> AsyncIterator[None]:
    """The background tasks while the service runs, every tick: due steps (and, now and then,
    the purge of expired keys) in one, due webhook deliveries in another (a slow receiver
    never holds up a payment's steps)."""
    ticker = _Ticker(database, clock)
    stopping = asyncio.Event()

    async def run(step: Callable[[], None], name: str) -> None:
        while not stopping.is_set():
            try:
                await asyncio.to_thread(step)
            except Exception:  # a bug or a database hiccup: log it, keep the service up
                logger.exception("background %s", name)
            try:
                await asyncio.wait_for(stopping.wait(), TICK_SECONDS)
            except asyncio.TimeoutError:
                pass

    tasks = [
        asyncio.create_task(run(ticker.tick, "payment worker")),
        asyncio.create_task(run(ticker.deliver, "webhook delivery")),
    ]
    try:
        yield
    finally:
        stopping.set()
        await asyncio.gather(*tasks)
