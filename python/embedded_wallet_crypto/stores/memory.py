"""``MemoryStore``: challenges, one-time codes and factors in dicts behind one lock; for one
process."""

from __future__ import annotations

import dataclasses
import heapq
import threading
import time
from collections.abc import Callable

from ._factors import MemoryFactors
from ._records import (
    AttemptStatus,
    ChallengeRecord,
    CodeState,
    IssueLimits,
    IssueOutcome,
    NewCode,
    attempt_status,
    decide_issue,
    request_id_conflict,
    wall_clock_ms,
)

__all__ = ["MemoryStore"]


class MemoryStore(MemoryFactors):
    """The default store of every protocol: thread-safe, but private to one process and gone
    on restart.

    Challenges are forgotten ``ttl_seconds`` after ``put`` by ``clock`` (monotonic by default),
    lazily, when a later ``put`` runs. A credential's code state is dropped lazily, on a later
    ``issue``, once ``forget_after_ms`` has passed since its last issue and its code has expired.
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._steps: dict[str, int] = {}
        self._recovery: dict[str, set[str]] = {}
        self._records: dict[str, ChallengeRecord] = {}
        self._forget_at: list[tuple[float, str]] = []  # a heap
        self._states: dict[str, CodeState] = {}
        self._state_forget_at_ms: dict[str, int] = {}

    # --- signed-retry challenges (ChallengeStore) -----------------------------------------

    def put(self, record: ChallengeRecord, ttl_seconds: float) -> None:
        now = self._clock()
        with self._lock:
            while self._forget_at and self._forget_at[0][0] <= now:
                _, request_id = heapq.heappop(self._forget_at)
                self._records.pop(request_id, None)
            if record.request_id in self._records:
                raise request_id_conflict(record.request_id)
            self._records[record.request_id] = record
            heapq.heappush(self._forget_at, (now + ttl_seconds, record.request_id))

    def get(self, request_id: str) -> ChallengeRecord | None:
        with self._lock:
            return self._records.get(request_id)

    def claim(self, request_id: str, now_ms: int) -> bool:
        with self._lock:
            record = self._records.get(request_id)
            if record is None or record.claimed or now_ms >= record.expires_at_ms:
                return False
            self._records[request_id] = record.as_claimed()
            return True

    # --- one-time codes (CodeStore) -------------------------------------------------------

    def issue(
        self, key: str, code: NewCode, now_ms: int | None, limits: IssueLimits
    ) -> IssueOutcome:
        with self._lock:
            if now_ms is None:
                now_ms = wall_clock_ms()  # under the lock: the time this issue takes effect
            for forgotten in [k for k, at in self._state_forget_at_ms.items() if at <= now_ms]:
                del self._state_forget_at_ms[forgotten]
                self._states.pop(forgotten, None)
            outcome, written, forget_at_ms = decide_issue(
                self._states.get(key), code, now_ms, limits
            )
            if written is not None:
                self._states[key] = written
                self._state_forget_at_ms[key] = forget_at_ms
            return outcome

    def attempt(
        self, key: str, now_ms: int, max_attempts: int
    ) -> tuple[AttemptStatus, CodeState | None]:
        with self._lock:
            state = self._states.get(key)
            status = attempt_status(state, now_ms, max_attempts)
            if status != "ok" or state is None:
                return status, None
            counted = dataclasses.replace(state, attempts=state.attempts + 1)
            self._states[key] = counted
            return status, counted

    def consume(self, key: str, issue_id: str) -> bool:
        with self._lock:
            state = self._states.get(key)
            if state is None or state.issue_id != issue_id or state.used:
                return False
            self._states[key] = dataclasses.replace(state, used=True)
            return True

    def __len__(self) -> int:
        """How many challenges and code states are held."""
        with self._lock:
            return len(self._records) + len(self._states)
