"""When to try a request again, and how long to wait first.

A request is tried again on 429, 502, 503 and 504, on 409 ``IDEMPOTENCY_REQUEST_IN_PROGRESS``
(the first try with the same ``Idempotency-Key`` is still running), and when no answer came
(a connection refused or reset, a timeout). The wait is the answer's ``Retry-After`` (seconds
or an HTTP date) when it has one, else an exponential backoff with jitter; a ``Retry-After``
longer than ``max_retry_after`` is not waited out: the error is raised at once, with its
``retry_after``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from ._errors import ClientError

__all__ = ["RETRY_STATUSES", "RetryPolicy", "parse_retry_after"]

#: The statuses a request is tried again on (as the service's own clients do).
RETRY_STATUSES = frozenset({429, 502, 503, 504})
#: The 409 code of a repeat whose first try (same Idempotency-Key) is still running.
IN_PROGRESS = "IDEMPOTENCY_REQUEST_IN_PROGRESS"


def _number(value: object, name: str, *, integer: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if integer and not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ClientError(f"{name} must be a finite number >= 0", "INVALID_SETTING")
    return float(value)


@dataclass(frozen=True)
class RetryPolicy:
    """How a client tries again.

    Attributes:
        max_retries: tries after the first (0: never try again). At most 10.
        backoff: the first backoff wait, in seconds; each next one doubles.
        max_backoff: the longest backoff wait.
        max_retry_after: the longest ``Retry-After`` the client waits out; a longer one
            raises the error at once.
    """

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0
    _random: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    def __post_init__(self) -> None:
        _number(self.max_retries, "max_retries", integer=True)
        if self.max_retries > 10:
            raise ClientError("max_retries must be at most 10", "INVALID_SETTING")
        _number(self.backoff, "backoff")
        _number(self.max_backoff, "max_backoff")
        _number(self.max_retry_after, "max_retry_after")

    def backoff_seconds(self, attempt: int) -> float:
        """The wait after try ``attempt`` (1 for the first): half the exponential step,
        plus a random part of the other half ("equal jitter"), capped at ``max_backoff``."""
        step: float = min(self.max_backoff, self.backoff * 2.0 ** (attempt - 1))
        return step / 2 + self._random.uniform(0, step / 2)

    def wait_after_answer(
        self, attempt: int, status: int, headers: Any, code: str | None, keyed: bool
    ) -> float | None:
        """The seconds to wait before trying again after an answer, or None not to.

        Args:
            attempt: the try that got this answer (1 for the first).
            status: its HTTP status.
            headers: its headers (``Retry-After`` is read from them).
            code: the error body's ``code``, if any.
            keyed: whether the request carried an ``Idempotency-Key``.
        """
        retryable = status in RETRY_STATUSES or (status == 409 and keyed and code == IN_PROGRESS)
        if not retryable or attempt > self.max_retries:
            return None
        after = parse_retry_after(headers.get("retry-after"))
        if after is None:
            return self.backoff_seconds(attempt)
        return after if after <= self.max_retry_after else None

    def wait_after_transport_error(self, attempt: int) -> float | None:
        """The seconds to wait after a try that got no answer, or None not to try again."""
        return None if attempt > self.max_retries else self.backoff_seconds(attempt)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` in seconds (RFC 9110 section 10.2.3): a non-negative number of
    seconds, or an HTTP date (the seconds from ``now`` until then, at least 0). None when
    absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return float(int(text[:12]))  # a year is 8 digits; longer is "forever", capped later
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = now or datetime.now(timezone.utc)
    return max(0.0, (when - current).total_seconds())
