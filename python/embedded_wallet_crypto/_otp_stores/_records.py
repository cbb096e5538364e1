"""What an OTP store keeps per credential, the rules every store applies atomically, and the
interface every store implements (the OTP sibling of ``signed_retry``'s stores)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..errors import OtpError

__all__ = [
    "AttemptStatus",
    "CodeState",
    "IssueLimits",
    "NewCode",
    "OtpStore",
    "attempt_status",
    "issue_window",
    "state_from_fields",
    "store_corrupt",
    "store_unavailable",
]

#: ``ok``: the attempt was counted and may be compared; the others say why it may not.
AttemptStatus = Literal["ok", "not_issued", "used", "expired", "exhausted"]


@dataclass(frozen=True)
class IssueLimits:
    """How often a credential may be sent a new code."""

    min_interval_ms: int  # between two issues
    window_ms: int  # the counting window ...
    max_issues: int  # ... and how many issues it allows
    forget_after_ms: int  # a store may drop the state this long after the last issue


@dataclass(frozen=True)
class NewCode:
    """A code being issued: its keyed hash, the id of this issue, and when it expires."""

    code_hash: str
    issue_id: str
    expires_at_ms: int


@dataclass(frozen=True)
class CodeState:
    """One credential's outstanding code (only its keyed hash) and its issue counters."""

    code_hash: str
    issue_id: str
    expires_at_ms: int
    attempts: int
    used: bool
    window_start_ms: int
    window_issues: int
    last_issue_ms: int


def state_from_fields(fields: Sequence[Any]) -> CodeState:
    """A ``CodeState`` from a store's row (the fields in declaration order, text or bytes)."""
    try:
        text = [field.decode() if isinstance(field, bytes) else str(field) for field in fields]
        return CodeState(
            code_hash=text[0],
            issue_id=text[1],
            expires_at_ms=int(text[2]),
            attempts=int(text[3]),
            used=text[4] == "1",
            window_start_ms=int(text[5]),
            window_issues=int(text[6]),
            last_issue_ms=int(text[7]),
        )
    except (ValueError, IndexError, UnicodeDecodeError):
        raise store_corrupt() from None


def issue_window(state: CodeState | None, now_ms: int, limits: IssueLimits) -> tuple[int, int, int]:
    """``(retry_after_ms, window_start_ms, window_issues)`` for an issue at ``now_ms``:
    ``retry_after_ms`` is 0 when the issue is allowed (and the window values are the new ones)."""
    if state is None:
        return 0, now_ms, 1
    since_last = now_ms - state.last_issue_ms
    if 0 <= since_last < limits.min_interval_ms:
        return limits.min_interval_ms - since_last, 0, 0
    if 0 <= now_ms - state.window_start_ms < limits.window_ms:
        if state.window_issues >= limits.max_issues:
            return state.window_start_ms + limits.window_ms - now_ms, 0, 0
        return 0, state.window_start_ms, state.window_issues + 1
    return 0, now_ms, 1


def attempt_status(state: CodeState | None, now_ms: int, max_attempts: int) -> AttemptStatus:
    """Whether a verification attempt may be counted now (the store then adds one)."""
    if state is None or not state.code_hash:
        return "not_issued"
    if state.used:
        return "used"
    if now_ms >= state.expires_at_ms:
        return "expired"
    if state.attempts >= max_attempts:
        return "exhausted"
    return "ok"


class OtpStore(Protocol):
    """Where one-time codes live between issue and verify. Every method is atomic per
    credential key, also across the processes (and hosts) that share the store; failures of
    the backing service raise ``OtpError`` code ``STORE_UNAVAILABLE`` (503)."""

    def issue(self, key: str, code: NewCode, now_ms: int, limits: IssueLimits) -> int:
        """Replace the credential's code if :func:`issue_window` allows it; returns 0 when it
        did, else the milliseconds until an issue would be allowed."""
        ...

    def attempt(
        self, key: str, now_ms: int, max_attempts: int
    ) -> tuple[AttemptStatus, CodeState | None]:
        """Count one attempt when :func:`attempt_status` is ``ok``; returns the status and, for
        ``ok``, the state with the attempt counted."""
        ...

    def consume(self, key: str, issue_id: str) -> bool:
        """Mark code ``issue_id`` used; True exactly for the one call that did."""
        ...


def store_unavailable(store: str, problem: BaseException) -> OtpError:
    return OtpError(
        f"the {store} OTP store failed: {type(problem).__name__}", "STORE_UNAVAILABLE", 503
    )


def store_corrupt() -> OtpError:
    return OtpError("a stored one-time code record is corrupt", "STORE_CORRUPT", 500)
