"""Fault injection (sandbox only): ``POST /sandbox/faults`` arms a fault for one operation, and
the next ``count`` calls of it fail (or are slowed) that way.

An operation is the method and the path as the published document writes it
(``POST /internal-accounts/{id}/export``); it is matched against the service's own route
templates with every ``{parameter}`` alike, whatever its name. The count is kept in the
database and taken one at a time by a single atomic ``UPDATE ... WHERE remaining > 0``, so
that of any number of calls at once, across processes, exactly ``count`` get the fault. Arming
is one ``INSERT ... ON CONFLICT (operation) DO UPDATE`` (SQLite and PostgreSQL alike): of
several arms of one operation at once, every one succeeds and the row holds the last one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from .db.engine import Database
from .db.tables_control import FaultRow
from .domain.errors import Refusal

__all__ = [
    "CONTROL_PREFIXES",
    "FAULT_CODES",
    "Fault",
    "arm",
    "clear",
    "fault_body",
    "faults",
    "operation_key",
    "refusal_of",
    "take",
]

#: The statuses a fault may answer, with the error code of each (the published document's).
FAULT_CODES = {429: "RATE_LIMITED", 500: "INTERNAL_ERROR", 503: "SERVICE_UNAVAILABLE"}
#: The control plane's own routes (never faulted: a fault there would lock the caller out).
CONTROL_PREFIXES = ("/sandbox/faults", "/sandbox/reset", "/sandbox/clock", "/sandbox/requests")

_PARAMETER = re.compile(r"\{[^{}/]*\}")


def operation_key(method: str, template: str) -> str:
    """``METHOD /path`` with every ``{parameter}`` written ``{}``: how operations compare."""
    return f"{method.upper()} {_PARAMETER.sub('{}', template)}"


@dataclass(frozen=True)
class Fault:
    """One call's fault: the status to answer (None: only slow the answer), its
    ``Retry-After`` seconds, the delay in milliseconds, and whether the work is done first."""

    status: int | None
    retry_after: int | None
    latency_ms: int | None
    after_commit: bool


def refusal_of(fault: Fault) -> Refusal:
    """The fault's answer, in the service's error shape (``Retry-After`` when given)."""
    assert fault.status is not None
    headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
    reason = {
        429: "Too many requests (an injected fault).",
        500: "An unexpected error occurred (an injected fault).",
        503: "The service is unavailable (an injected fault).",
    }[fault.status]
    return Refusal(fault.status, FAULT_CODES[fault.status], reason, headers)


def resolve(operation: str, served: Iterable[str]) -> str:
    """The served operation ``operation`` names, as its :func:`operation_key`.

    Raises:
        Refusal: 400 ``UNKNOWN_OPERATION`` (no served route has it) or
            ``OPERATION_NOT_FAULTABLE`` (a control-plane route).
    """
    method, _, path = operation.strip().partition(" ")
    path = path.strip()
    if not path.startswith("/"):
        raise Refusal(
            400,
            "UNKNOWN_OPERATION",
            'operation must be a method and a path, for example "POST /quotes".',
        )
    key = operation_key(method, path)
    if path.startswith(CONTROL_PREFIXES):
        raise Refusal(
            400, "OPERATION_NOT_FAULTABLE", "The control plane's own routes cannot be faulted."
        )
    if key not in set(served):
        raise Refusal(
            400, "UNKNOWN_OPERATION", "No served operation has this method and path template."
        )
    return key


def arm(database: Database, key: str, count: int, fault: Fault) -> None:
    """Arm ``fault`` for the next ``count`` calls of the operation ``key`` (replacing a fault
    armed for it before), in one statement: concurrent arms never collide on the key."""
    values = {
        "operation": key,
        "status": fault.status,
        "retry_after": fault.retry_after,
        "latency_ms": fault.latency_ms,
        "remaining": count,
        "after_commit": fault.after_commit,
    }
    dialect = postgresql if database.engine.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(FaultRow).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=[FaultRow.operation],
        set_={name: statement.excluded[name] for name in values if name != "operation"},
    )
    with database.sessions() as db:
        db.execute(statement)
        db.commit()


def clear(database: Database) -> None:
    """Disarm every fault."""
    with database.sessions() as db:
        db.execute(delete(FaultRow))
        db.commit()


def take(database: Database, key: str) -> Fault | None:
    """One call's share of the fault armed for ``key``, or None when none is left. The count
    is decremented by one atomic update; only the call whose update changed the row gets the
    fault (on PostgreSQL the row stays locked until the commit, on SQLite the database)."""
    with database.sessions() as db:
        taken = db.execute(
            update(FaultRow)
            .where(FaultRow.operation == key)
            .where(FaultRow.remaining > 0)
            .values(remaining=FaultRow.remaining - 1)
        )
        if getattr(taken, "rowcount", 0) != 1:
            db.rollback()
            return None
        row = db.get(FaultRow, key)
        db.commit()
    if row is None:  # pragma: no cover - the update above found it
        return None
    return Fault(row.status, row.retry_after, row.latency_ms, row.after_commit)


def fault_body(row: FaultRow) -> dict[str, Any]:
    """An armed fault as ``GET /sandbox/faults`` lists it (``count``: the calls left)."""
    return {
        "operation": row.operation,
        "status": row.status,
        "retryAfter": row.retry_after,
        "latencyMs": row.latency_ms,
        "count": row.remaining,
        "afterCommit": row.after_commit,
    }


def faults(database: Database) -> list[dict[str, Any]]:
    """The faults with calls left, by operation."""
    with database.sessions() as db:
        rows = db.scalars(
            select(FaultRow).where(FaultRow.remaining > 0).order_by(FaultRow.operation)
        ).all()
        return [fault_body(row) for row in rows]
