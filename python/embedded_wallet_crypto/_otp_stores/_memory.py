"""``MemoryStore`` for one-time codes: a dict behind a lock; for one process."""

from __future__ import annotations

import dataclasses
import threading

from ._records import (
    AttemptStatus,
    CodeState,
    IssueLimits,
    NewCode,
    attempt_status,
    issue_window,
)

__all__ = ["MemoryStore"]


class MemoryStore:
    """The default OTP store: thread-safe, private to one process, gone on restart. A
    credential's state is dropped lazily once ``forget_after_ms`` has passed since its last
    issue and its code has expired."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, CodeState] = {}
        self._forget_at: dict[str, int] = {}

    def _purge(self, now_ms: int) -> None:
        for key in [k for k, at in self._forget_at.items() if at <= now_ms]:
            del self._forget_at[key]
            self._states.pop(key, None)

    def issue(self, key: str, code: NewCode, now_ms: int, limits: IssueLimits) -> int:
        with self._lock:
            self._purge(now_ms)
            retry_after_ms, window_start_ms, window_issues = issue_window(
                self._states.get(key), now_ms, limits
            )
            if retry_after_ms:
                return retry_after_ms
            self._states[key] = CodeState(
                code_hash=code.code_hash,
                issue_id=code.issue_id,
                expires_at_ms=code.expires_at_ms,
                attempts=0,
                used=False,
                window_start_ms=window_start_ms,
                window_issues=window_issues,
                last_issue_ms=now_ms,
            )
            self._forget_at[key] = max(code.expires_at_ms, now_ms + limits.forget_after_ms)
            return 0

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
        with self._lock:
            return len(self._states)
