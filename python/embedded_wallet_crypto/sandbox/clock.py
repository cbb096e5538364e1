"""The service's clock: real time plus the test clock's offset (``POST /sandbox/clock/advance``),
with lifetimes and delays scaled by ``time_scale``; and its date-times (written as the interface
writes them, read as ISO 8601).

The offset is kept in the database (``control``) and copied into this process by
:func:`set_offset` at the start of every request and every worker tick, so that every process
on one database tells the same time. It belongs to the process: one process serves one
database.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Any

from .domain.errors import invalid

__all__ = ["Clock", "as_datetime", "iso", "offset", "parse_datetime", "set_offset"]

#: Seconds the test clock was moved forward (this process's copy of the database's value).
_offset = 0.0


def offset() -> float:
    """Seconds the service's time is ahead of the real time."""
    return _offset


def set_offset(seconds: float) -> None:
    """This process's copy of the test clock's offset (it only ever grows)."""
    global _offset
    _offset = max(_offset, float(seconds))


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a ``Z`` (the interface's date-time strings)."""
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Clock:
    """``now()`` is the real time plus the test clock's offset; ``seconds(n)`` is ``n``
    simulated seconds, scaled."""

    def __init__(self, time_scale: float = 1.0) -> None:
        self.time_scale = time_scale

    @staticmethod
    def time() -> float:
        """Seconds since the epoch (the library's ``clock`` argument)."""
        return time.time() + _offset

    @staticmethod
    def now() -> datetime:
        return datetime.now(timezone.utc) + timedelta(seconds=_offset)

    def seconds(self, seconds: float) -> float:
        """A lifetime or delay of ``seconds``, multiplied by the time scale."""
        return seconds * self.time_scale

    def later(self, seconds: float) -> datetime:
        """The moment a scaled lifetime of ``seconds`` from now ends."""
        return self.now() + timedelta(seconds=self.seconds(seconds))


def parse_datetime(value: str | None, name: str) -> datetime | None:
    """An ISO 8601 date-time (a bare date is its midnight UTC; no zone is UTC); 400
    ``INVALID_INPUT`` naming ``name`` for anything else."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except (ValueError, TypeError):
        raise invalid(f"{name} must be an ISO 8601 date-time.") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def as_datetime(value: Any) -> datetime:
    """A timestamp (a datetime or its ISO string) as an aware datetime (no zone is UTC)."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    parsed = parse_datetime(str(value), "timestamp")
    assert parsed is not None
    return parsed
