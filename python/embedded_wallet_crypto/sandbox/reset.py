"""``POST /sandbox/reset`` (sandbox only): every customer, account, credential, session, quote,
transaction, agent, invitation, verification, webhook event, idempotency key and armed fault
is removed, in one database transaction; the platform's credentials (its API tokens too), its
configuration, the service's own keys, the test clock and the request log stay.

Every table of the service is cleared except :data:`KEPT`, so that a table added later is
cleared too. Against requests running at the same moment:

- PostgreSQL: the transaction first locks every table it clears (``ACCESS EXCLUSIVE``, parents
  before children): it waits for the transactions already writing or reading them, and the ones
  that start later wait for it. A request therefore sees the state wholly before or wholly after
  the reset, and a row it adds after the reset refers only to rows that exist. A request holding
  one table while it waits for another the reset has locked would be a deadlock, and
  PostgreSQL would end one of the two; so the reset waits at most :data:`LOCK_WAIT_MS` for its
  locks (``lock_timeout``, far below PostgreSQL's ``deadlock_timeout`` of one second), then
  lets go of them all and tries again a moment later (at most :data:`ATTEMPTS` times): a
  request only ever waits, it is never ended.
- SQLite: the deletions hold the database's one write lock from the first to the commit; a
  writing request commits wholly before or wholly after them.

The seed's generation goes up by one in the same transaction (see ``ids``): ids made after a
reset never repeat ids made before it, so nothing left in the one-time-code and challenge
stores (kept by the library, keyed by credential and request ids) can meet a new resource.
"""

from __future__ import annotations

import random
import time

from sqlalchemy import Table, delete, update
from sqlalchemy.exc import DBAPIError

from .db.base import Base
from .db.engine import Database
from .db.tables_control import STATE_ID, ControlState

__all__ = ["ATTEMPTS", "KEPT", "cleared_tables", "reset"]

#: The tables a reset keeps: the platform's credentials (API tokens too) and configuration, the
#: service's own keys, the control state (the clock, the seed's counters) and the request log.
KEPT = frozenset(
    {
        "sandbox_platform_credentials",
        "sandbox_api_tokens",
        "sandbox_platform_config",
        "sandbox_service_secrets",
        "sandbox_control_state",
        "sandbox_request_log",
    }
)
#: How many times a reset that could not take its locks (PostgreSQL) is tried.
ATTEMPTS = 200
#: How long a reset waits for its locks each time (PostgreSQL), in milliseconds.
LOCK_WAIT_MS = 50


def cleared_tables() -> list[Table]:
    """The tables a reset clears, each after every table that refers to it."""
    return [table for table in reversed(Base.metadata.sorted_tables) if table.name not in KEPT]


def _reset_once(database: Database) -> None:
    tables = cleared_tables()
    with database.sessions() as db:
        if not database.is_sqlite:
            quote = database.engine.dialect.identifier_preparer.quote
            names = ", ".join(quote(table.name) for table in reversed(tables))  # parents first
            connection = db.connection()
            connection.exec_driver_sql(f"SET LOCAL lock_timeout = '{LOCK_WAIT_MS}ms'")
            connection.exec_driver_sql(f"LOCK TABLE {names} IN ACCESS EXCLUSIVE MODE")
        for table in tables:
            db.execute(delete(table))
        db.execute(
            update(ControlState)
            .where(ControlState.id == STATE_ID)
            .values(generation=ControlState.generation + 1, ordinal=0)
        )
        db.commit()


def reset(database: Database) -> None:
    """Remove every resource in one transaction (see the module)."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            _reset_once(database)
            return
        except DBAPIError as error:
            message = str(error.orig).lower()
            retriable = "lock timeout" in message or "deadlock" in message
            if not retriable or attempt == ATTEMPTS:
                raise
            time.sleep(random.uniform(0.005, 0.05))  # noqa: S311 - a jitter, not a secret
