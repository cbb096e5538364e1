"""Server-side one-time codes (the interface's plain ``otp`` with ``clientPublicKey``).

:class:`OneTimeCodes` issues a 6-digit code from ``secrets``, keeps only an HMAC-SHA256 of it
under a server key, verifies in constant time, allows ``max_attempts`` attempts per code and
limits re-issues (``OtpError`` status 429 with ``retry_after`` seconds). ``000000`` is accepted
only where ``policy.sandbox_allowed``. State lives in the OTP stores (``MemoryStore``,
``SqliteStore``, ``RedisStore``), the same family as ``ewc.signed_retry``'s.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .._contract import utf8
from ..errors import OtpError
from ..policy import Environment, sandbox_allowed
from ..stores import CodeStore as OtpStore
from ..stores import IssueLimits, MemoryStore, NewCode

__all__ = [
    "SANDBOX_CODE",
    "IssuedCode",
    "OneTimeCodes",
    "OtpRateLimited",
    "VerifiedCode",
]

#: The interface's sandbox code, accepted only where ``policy.sandbox_allowed``.
SANDBOX_CODE = "000000"


# --- server-side one-time codes --------------------------------------------------------------


class OtpRateLimited(OtpError):
    """Too many codes were issued for a credential: status 429; wait ``retry_after`` seconds
    (the ``Retry-After`` header)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"too many one-time codes requested; retry after {retry_after} seconds",
            "OTP_RATE_LIMITED",
            429,
        )
        self.retry_after = retry_after


@dataclass(frozen=True)
class IssuedCode:
    """A code to send to the user (by email); the store keeps only its keyed hash."""

    credential_id: str
    code: str = field(repr=False)
    expires_at: datetime


@dataclass(frozen=True)
class VerifiedCode:
    """An accepted code. ``sandbox`` is True for the sandbox ``000000``."""

    credential_id: str
    sandbox: bool


# A setting beyond about 30 years (in seconds, or as a count) is a mistake, and overflows later.
_MAX_SETTING = 10**9


def _check_setting(name: str, value: object) -> None:
    """A numeric setting: a number (TypeError otherwise), finite, 0 to 10**9 (OtpError 500)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if not 0 <= value <= _MAX_SETTING:  # NaN fails too
        raise OtpError(f"{name} must be between 0 and {_MAX_SETTING}", "INVALID_PARAMETERS", 500)


def _bad(reason: str) -> OtpError:
    return OtpError(reason, "INVALID_PARAMETERS", 400)


def _invalid(reason: str = "Invalid OTP code", code: str = "OTP_INVALID") -> OtpError:
    return OtpError(reason, code, 401)


_ATTEMPT_FAILURES = {
    "not_issued": ("no one-time code is outstanding for this credential", "OTP_NOT_ISSUED"),
    "used": ("the one-time code has already been used", "OTP_USED"),
    "expired": ("the one-time code has expired", "OTP_EXPIRED"),
    "exhausted": ("too many wrong attempts; request a new code", "OTP_ATTEMPTS_EXCEEDED"),
}


class OneTimeCodes:
    """Issue and verify the plain flow's one-time codes.

    Args:
        store: where codes live (default: a new :class:`MemoryStore`).
        hash_key: the server's secret HMAC key (at least 16 bytes); only
            HMAC-SHA256(key, credential, issue id, code) is stored.
        ttl_seconds: the life of a code.
        max_attempts: verification attempts per code, the right one included.
        min_reissue_interval_seconds: the least time between two codes for one credential.
        max_issues: at most this many codes per credential in one window.
        issue_window_seconds: the length of that window.
        clock: seconds since the epoch, for tests. None (the default) lets the store judge
            each issue by its own clock, read inside its atomic section (so a request that
            waited for the store is judged when it takes effect), and checks attempts against
            ``time.time``.
        sandbox: accept ``000000`` (see ``ewc.policy``; None means the process default).
    """

    def __init__(
        self,
        store: OtpStore | None = None,
        *,
        hash_key: bytes,
        ttl_seconds: float = 300,
        max_attempts: int = 5,
        min_reissue_interval_seconds: float = 30,
        max_issues: int = 5,
        issue_window_seconds: float = 3600,
        clock: Callable[[], float] | None = None,
        sandbox: bool | Environment | None = None,
    ) -> None:
        if not isinstance(hash_key, (bytes, bytearray)) or len(hash_key) < 16:
            raise OtpError("hash_key must be at least 16 secret bytes", "INVALID_PARAMETERS", 500)
        if not (ttl_seconds > 0 and max_attempts >= 1 and max_issues >= 1):
            raise OtpError("ttl, attempts and issues must be positive", "INVALID_PARAMETERS", 500)
        for name, value in (
            ("ttl_seconds", ttl_seconds),
            ("min_reissue_interval_seconds", min_reissue_interval_seconds),
            ("issue_window_seconds", issue_window_seconds),
            ("max_attempts", max_attempts),
            ("max_issues", max_issues),
        ):
            _check_setting(name, value)
        self.store: OtpStore = store if store is not None else MemoryStore()
        self._hash_key = bytes(hash_key)
        self._ttl_ms = max(1, round(ttl_seconds * 1000))
        self.max_attempts = max_attempts
        window_ms = round(issue_window_seconds * 1000)
        self._limits = IssueLimits(
            min_interval_ms=round(min_reissue_interval_seconds * 1000),
            window_ms=window_ms,
            max_issues=max_issues,
            forget_after_ms=max(window_ms, self._ttl_ms),
        )
        self._clock = clock
        self.sandbox = sandbox

    def _hash(self, credential_id: str, issue_id: str, code: str) -> str:
        parts = (credential_id, issue_id, code)
        message = b"\x00".join(
            (b"ewc-otp-v1", *(utf8(part, "the OTP input", _bad) for part in parts))
        )
        return hmac.new(self._hash_key, message, hashlib.sha256).hexdigest()

    @staticmethod
    def _credential(credential_id: str) -> str:
        if not isinstance(credential_id, str) or not 0 < len(credential_id) <= 200:
            raise OtpError(
                "credential_id must be a string of 1 to 200 characters", "INVALID_PARAMETERS", 400
            )
        utf8(credential_id, "credential_id", _bad)  # a lone surrogate: before any store sees it
        return credential_id

    def issue(self, credential_id: str) -> IssuedCode:
        """A fresh code for the credential, replacing any outstanding one.

        Raises:
            OtpRateLimited: ``OTP_RATE_LIMITED`` (429) with ``retry_after`` seconds.
            OtpError: ``STORE_UNAVAILABLE`` (503).
        """
        credential_id = self._credential(credential_id)
        code = f"{secrets.randbelow(10**6):06d}"
        issue_id = uuid.uuid4().hex
        code_hash = self._hash(credential_id, issue_id, code)
        now_ms = None if self._clock is None else round(self._clock() * 1000)
        new = NewCode(code_hash, issue_id, ttl_ms=self._ttl_ms)
        outcome = self.store.issue(credential_id, new, now_ms, self._limits)
        if outcome.retry_after_ms:
            raise OtpRateLimited(max(1, math.ceil(outcome.retry_after_ms / 1000)))
        expires_at = datetime.fromtimestamp(outcome.expires_at_ms / 1000, tz=timezone.utc)
        return IssuedCode(credential_id=credential_id, code=code, expires_at=expires_at)

    def verify(self, credential_id: str, code: str) -> VerifiedCode:
        """Check a submitted code; a right code is accepted once.

        Raises:
            OtpError (401): ``OTP_INVALID`` (reason "Invalid OTP code"), ``OTP_NOT_ISSUED``,
                ``OTP_USED``, ``OTP_EXPIRED``, ``OTP_ATTEMPTS_EXCEEDED``; ``STORE_UNAVAILABLE``
                (503).
        """
        credential_id = self._credential(credential_id)
        if sandbox_allowed(self.sandbox) and code == SANDBOX_CODE:  # a bad sandbox: every call
            return VerifiedCode(credential_id=credential_id, sandbox=True)
        if not isinstance(code, str) or len(code) != 6 or not (code.isascii() and code.isdigit()):
            raise _invalid()
        now = time.time() if self._clock is None else self._clock()
        status, state = self.store.attempt(credential_id, round(now * 1000), self.max_attempts)
        if status != "ok" or state is None:
            raise _invalid(*_ATTEMPT_FAILURES.get(status, _ATTEMPT_FAILURES["not_issued"]))
        candidate = self._hash(credential_id, state.issue_id, code)
        if not hmac.compare_digest(candidate, state.code_hash):  # both hex text
            raise _invalid()
        if not self.store.consume(credential_id, state.issue_id):
            raise _invalid(*_ATTEMPT_FAILURES["used"])
        return VerifiedCode(credential_id=credential_id, sandbox=False)
