"""The control plane's shared state (sandbox only): the test clock's offset and the seed's
counters in one row of the database, read by every process at the start of each request.

What one process is told (move the clock, arm a fault) another process on the same database
learns at its next request: :func:`refresh` reads the row and the armed faults in one short
statement (no transaction) and copies the offset into the process's clock. The request gate
runs it on the event loop, on the loop's own connection (a read that waits for no lock and no
pool); only a request with writes to make first (a fault's share, a seed scope) goes off the
loop for them (:func:`begin_request`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from .clock import set_offset
from .db.engine import Database
from .db.tables_control import STATE_ID, ControlState, FaultRow
from .domain.errors import Refusal
from .faults import Fault, take

__all__ = [
    "MAX_ADVANCE_SECONDS",
    "MAX_OFFSET_SECONDS",
    "Snapshot",
    "advance_offset",
    "begin_request",
    "ensure_state",
    "next_ordinal",
    "refresh",
    "writes_first",
]

#: The most one ``POST /sandbox/clock/advance`` moves the clock: ten years.
MAX_ADVANCE_SECONDS = 10 * 365 * 24 * 3600
#: The most the clock can be ahead of the real time in all: a hundred years.
MAX_OFFSET_SECONDS = 100 * 365 * 24 * 3600


@dataclass(frozen=True)
class Snapshot:
    """What a request needs of the shared state: the clock's offset and the armed faults'
    operations."""

    offset: float
    armed: frozenset[str]


def ensure_state(database: Database) -> None:
    """Make the state row if it is missing (the first process to start wins)."""
    with database.sessions() as db:
        if db.get(ControlState, STATE_ID) is not None:
            return
        db.add(ControlState(id=STATE_ID, clock_offset=0.0, generation=0, ordinal=0))
        try:
            db.commit()
        except IntegrityError:
            db.rollback()  # another process made it


#: The offset and the armed faults' operations in one statement (a row per armed fault, or one
#: row with no operation).
_STATE = (
    select(ControlState.clock_offset, FaultRow.operation)
    .select_from(ControlState)
    .outerjoin(FaultRow, FaultRow.remaining > 0)
    .where(ControlState.id == STATE_ID)
)


def refresh(database: Database, *, on_loop: bool = False) -> Snapshot:
    """Read the offset and the armed faults, and set this process's clock: one statement
    outside a transaction (:meth:`~.db.engine.Database.reads`: no ORM session, no ``BEGIN`` or
    ``ROLLBACK`` round trips; this runs before every request of the sandbox). ``on_loop``: on
    the event loop, through :meth:`~.db.engine.Database.loop_reads`."""
    with database.loop_reads() if on_loop else database.reads() as connection:
        rows = connection.execute(_STATE).all()
    offset = float(rows[0][0]) if rows else 0.0
    set_offset(offset)
    return Snapshot(offset, frozenset(row[1] for row in rows if row[1] is not None))


def advance_offset(database: Database, seconds: float) -> float:
    """Move the clock ``seconds`` forward for every process (one atomic update: two advances
    at once add up); returns the new offset.

    Raises:
        Refusal: 400 ``CLOCK_LIMIT_REACHED`` past :data:`MAX_OFFSET_SECONDS` in all.
    """
    if not (math.isfinite(seconds) and 0 <= seconds <= MAX_ADVANCE_SECONDS):
        raise Refusal(  # the route's model checks this first; a direct caller is held too
            400,
            "INVALID_CLOCK_ADVANCE",
            f"seconds must be a number from 0 to {MAX_ADVANCE_SECONDS}.",
        )
    with database.sessions() as db:
        moved = db.execute(
            update(ControlState)
            .where(ControlState.id == STATE_ID)
            .where(ControlState.clock_offset + seconds <= MAX_OFFSET_SECONDS)
            .values(clock_offset=ControlState.clock_offset + seconds)
        )
        if getattr(moved, "rowcount", 0) != 1:
            db.rollback()
            raise Refusal(
                400,
                "CLOCK_LIMIT_REACHED",
                "The test clock cannot be more than 100 years ahead of the real time.",
            )
        offset = db.scalar(select(ControlState.clock_offset).where(ControlState.id == STATE_ID))
        db.commit()
    set_offset(offset or 0.0)
    return offset or 0.0


def next_ordinal(database: Database) -> tuple[int, int]:
    """The seed's ``(generation, ordinal)`` for one changing request: the ordinal is one more
    than the last request's, counted in the database (one atomic update), so that the same
    requests, one after another, are numbered alike on every run and across processes."""
    with database.sessions() as db:
        db.execute(
            update(ControlState)
            .where(ControlState.id == STATE_ID)
            .values(ordinal=ControlState.ordinal + 1)
        )
        row = db.execute(
            select(ControlState.generation, ControlState.ordinal).where(ControlState.id == STATE_ID)
        ).one()
        db.commit()
    return int(row[0]), int(row[1])


def writes_first(snapshot: Snapshot, operation: str | None, changing: bool) -> bool:
    """Whether a request has writes to make before it runs (:func:`begin_request`)."""
    return changing or operation in snapshot.armed


def begin_request(
    database: Database, snapshot: Snapshot, operation: str | None, changing: bool
) -> tuple[Fault | None, str | None]:
    """The writes a request of the sandbox makes before it runs, off the event loop, once
    :func:`refresh` read ``snapshot``: its share of a fault armed for ``operation``; and, for a
    ``changing`` request of a seeded service, its seed scope ``generation/ordinal``."""
    fault = take(database, operation) if operation in snapshot.armed else None
    scope = None
    if changing:
        generation, ordinal = next_ordinal(database)
        scope = f"{generation}/{ordinal}"
    return fault, scope
