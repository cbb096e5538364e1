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
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from ..keys import KeyPair
from .clock import Clock
from .control import advance_offset, refresh
from .db.engine import Database
from .db.tables_events import WebhookEvent
from .db.tables_payments import Transaction
from .domain.bulk_import import import_due
from .domain.idempotency import purge_expired
from .domain.transactions import apply_due, fail_now
from .domain.webhook_delivery import deliver_due
from .ids import seeded_scope
from .request_log import RequestLog

__all__ = [
    "SETTLEMENT_FAILED",
    "TICK_SECONDS",
    "advance_clock",
    "advance_due",
    "run_due_work",
    "running_worker",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: How often the worker looks for due steps and deliveries (real seconds).
TICK_SECONDS = 0.1
#: How often each process forgets expired idempotency keys (real seconds).
PURGE_SECONDS = 60.0
#: The failure reason of a transaction whose settlement raised.
SETTLEMENT_FAILED = "SETTLEMENT_FAILED"
#: How many due transactions one tick takes.
BATCH = 50
#: How many rounds of due steps and deliveries :func:`run_due_work` runs at most.
DUE_ROUNDS = 10
#: The most stops an advance of the test clock makes at the moments work falls due.
ADVANCE_STOPS = 100
#: One round of due steps, and one of due deliveries, at a time in a process: an advance of the
#: test clock takes both (in this order), so it waits for the worker's tick and delivery round in
#: progress and what they took is done when the advance answers; the tick and the deliveries
#: take one each, so a slow receiver never holds up a payment's steps.
_STEPS = threading.Lock()
_DELIVERIES = threading.Lock()


def _advance(database: Database, transaction_id: str, version: int, now: float) -> bool:
    """Apply the due steps of one transaction in a database transaction of its own; False if
    another process took it first or nothing was due."""
    with seeded_scope(f"worker/{transaction_id}/{version}"), database.sessions() as db:
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


#: The transactions with a step due at ``now``, the most due first.
_DUE = (
    select(Transaction.id, Transaction.version)
    .where(Transaction.next_at <= bindparam("now"))
    .order_by(Transaction.next_at)
    .limit(BATCH)
)


def advance_due(database: Database) -> int:
    """Apply every due step of every transaction; returns how many transactions moved."""
    now = Clock.time()
    moved = 0
    with database.reads() as connection:  # every tick: one statement, no transaction
        due = list(connection.execute(_DUE, {"now": now}).all())
    for transaction_id, version in due:
        try:
            moved += _advance(database, transaction_id, version, now)
        except OperationalError:
            logger.warning("database busy settling %s; retried at the next tick", transaction_id)
        except Exception:
            logger.exception("settling transaction %s failed; it is marked FAILED", transaction_id)
            _fail_unsettled(database, transaction_id)
    return moved


def run_due_work(database: Database, clock: Clock) -> None:
    """Everything that is due now, before returning (``POST /sandbox/clock/advance``): the due
    steps of every transaction and the due webhook deliveries, again while either moved
    something (a delivery's answer can approve a payment; a failed delivery's retry can fall
    due), at most :data:`DUE_ROUNDS` rounds. Another process's worker may have begun a delivery
    that ends just after this returns."""
    with _STEPS, _DELIVERIES:
        for _ in range(DUE_ROUNDS):
            moved = advance_due(database)
            delivered = deliver_due(database, clock)
            if not moved and not delivered:
                return


def _next_due(database: Database) -> float | None:
    """The earliest moment a transaction's step or a webhook delivery is due, if any."""
    with database.sessions() as db:
        moments = [
            db.scalar(select(func.min(Transaction.next_at))),
            db.scalar(
                select(func.min(WebhookEvent.next_at)).where(WebhookEvent.state == "PENDING")
            ),
        ]
        db.rollback()
    found = [float(moment) for moment in moments if moment is not None]
    return min(found) if found else None


def advance_clock(database: Database, clock: Clock, seconds: float) -> None:
    """Move the test clock ``seconds`` forward as time would pass: it stops at each moment
    work falls due on the way (a payment's next step, a webhook retry scheduled by a failure
    on the way), runs it, and goes on (at most :data:`ADVANCE_STOPS` stops; then the rest at
    once), so that a cascade inside the interval happens as it would have. Each move is one
    atomic addition (``control.advance_offset``): advances at once add up."""
    run_due_work(database, clock)
    left = seconds
    for _ in range(ADVANCE_STOPS):
        if left <= 0:
            break
        upcoming = _next_due(database)
        step = left if upcoming is None else min(left, upcoming - Clock.time())
        if step <= 0:  # due but not taken (another process has it): no stop to make
            step = left
        advance_offset(database, step)
        left -= step
        run_due_work(database, clock)
    if left > 0:
        advance_offset(database, left)
        run_due_work(database, clock)


class _Ticker:
    """One process's worker state: when it last forgot expired idempotency keys; the sealing
    key of the wallets the bulk import makes."""

    def __init__(
        self, database: Database, clock: Clock, sealing_key: KeyPair, log: RequestLog | None
    ) -> None:
        self.database = database
        self.clock = clock
        self.sealing_key = sealing_key
        self.log = log
        self.purged_at = 0.0
        #: Set when the service stops: the delivery round in progress starts no other attempt.
        self.stopping = threading.Event()

    def tick(self) -> None:
        refresh(self.database)  # the test clock, as another process may have moved it
        if self.log is not None:
            self.log.flush()
        with _STEPS:
            advance_due(self.database)
            import_due(self.database, self.sealing_key)
        if time.monotonic() - self.purged_at >= PURGE_SECONDS:
            self.purged_at = time.monotonic()
            purge_expired(self.database)

    def deliver(self) -> None:
        with _DELIVERIES:
            deliver_due(self.database, self.clock, self.stopping.is_set)


@asynccontextmanager
async def running_worker(
    database: Database, clock: Clock, sealing_key: KeyPair, log: RequestLog | None = None
) -> AsyncIterator[None]:
    """The background tasks while the service runs, every tick: due steps (the request log's
    writing and, now and then, the purge of expired keys) in one, due webhook deliveries in
    another (a slow receiver never holds up a payment's steps)."""
    ticker = _Ticker(database, clock, sealing_key, log)
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
        ticker.stopping.set()
        await asyncio.gather(*tasks)
        if log is not None:
            try:
                await asyncio.to_thread(log.flush)  # the last requests' lines
            except Exception:
                logger.exception("writing the request log at the stop")
