"""The service's clock: real time, with lifetimes and delays scaled by ``time_scale``."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

__all__ = ["Clock", "iso"]


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a ``Z`` (the interface's date-time strings)."""
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Clock:
    """``now()`` is the real time; ``seconds(n)`` is ``n`` simulated seconds, scaled."""

    def __init__(self, time_scale: float = 1.0) -> None:
        self.time_scale = time_scale

    @staticmethod
    def time() -> float:
        """Seconds since the epoch (the library's ``clock`` argument)."""
        return time.time()

    @staticmethod
    def now() -> datetime:
        return datetime.now(timezone.utc)

    def seconds(self, seconds: float) -> float:
        """A lifetime or delay of ``seconds``, multiplied by the time scale."""
        return seconds * self.time_scale

    def later(self, seconds: float) -> datetime:
        """The moment a scaled lifetime of ``seconds`` from now ends."""
        return self.now() + timedelta(seconds=self.seconds(seconds))
