"""``MemoryStore``: challenges in a dict behind a lock; for one process."""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable

from .._records import ChallengeRecord, request_id_conflict

__all__ = ["MemoryStore"]


class MemoryStore:
    """The default store: thread-safe, but private to one process and gone on restart.

    Records are forgotten ``ttl_seconds`` after ``put`` by ``clock`` (monotonic by default),
    lazily, when a later ``put`` runs.
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._records: dict[str, ChallengeRecord] = {}
        self._forget_at: list[tuple[float, str]] = []  # a heap

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

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)
