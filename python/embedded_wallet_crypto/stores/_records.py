"""What a store keeps, the two interfaces every store implements, the rules each store applies
atomically, and the store's own error.

Three protocols share one store object: signed-retry challenges (:class:`ChallengeStore`:
``put`` / ``get`` / ``claim`` of a :class:`ChallengeRecord`), one-time codes
(:class:`CodeStore`: ``issue`` / ``attempt`` / ``consume`` of a :class:`CodeState`) and the
second factors' state (``FactorStore``, in ``_factors``). The rule
functions :func:`issue_window` and :func:`attempt_status` are written once here; the Redis
store repeats them in Lua, as it must run them inside the server.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, Protocol

from ..errors import OtpError, SignedRetryError, TotpError

__all__ = [
    "AttemptStatus",
    "ChallengeRecord",
    "ChallengeStore",
    "CodeState",
    "CodeStore",
    "IssueLimits",
    "IssueOutcome",
    "NewCode",
    "StoreError",
    "attempt_status",
    "decide_issue",
    "issue_window",
    "request_id_conflict",
    "state_from_fields",
    "store_config_invalid",
    "store_corrupt",
    "store_not_durable",
    "store_unavailable",
    "wall_clock_ms",
]


class StoreError(SignedRetryError, OtpError, TotpError):
    """A store failed, whichever protocol asked: ``STORE_UNAVAILABLE`` (503, transient: retry),
    ``STORE_CONFIG_INVALID`` (500), ``STORE_CORRUPT`` (500) or ``STORE_NOT_DURABLE`` (500: the
    server could lose a claim in a crash, and the store was not told to accept that). One
    store serves every protocol, so its error is a ``SignedRetryError``, an ``OtpError`` and a
    ``TotpError``: a handler written for any of those families catches it."""

    default_code = "STORE_UNAVAILABLE"
    default_status = 503


def store_unavailable(backend: str, problem: BaseException, detail: str = "") -> StoreError:
    """The backing service failed; the reason names only the exception type (and ``detail``,
    a constant such as an SQLite error name), never a URL or a stored value."""
    suffix = f" ({detail})" if detail else ""
    return StoreError(
        f"the {backend} store failed: {type(problem).__name__}{suffix}", "STORE_UNAVAILABLE", 503
    )


def store_config_invalid(reason: str) -> StoreError:
    return StoreError(reason, "STORE_CONFIG_INVALID", 500)


def store_corrupt(reason: str) -> StoreError:
    return StoreError(reason, "STORE_CORRUPT", 500)


def store_not_durable(reason: str) -> StoreError:
    return StoreError(reason, "STORE_NOT_DURABLE", 500)


def store_key_invalid() -> StoreError:
    """``STORE_KEY_INVALID`` (400): a request or credential id that is no Unicode text (a lone
    surrogate), which no store can hold; never ``UnicodeEncodeError``."""
    return StoreError(
        "a store key is not valid Unicode text (it holds a lone surrogate)",
        "STORE_KEY_INVALID",
        400,
    )


# --- signed-retry challenges ----------------------------------------------------------------


@dataclass(frozen=True)
class ChallengeRecord:
    """One issued challenge: the exact payload, who may answer it, until when, and whether an
    answer has already been accepted (``claimed``).

    ``expected_signer`` (compressed hex) is set for a challenge over a caller-given payload
    (``SignedRetry.issue_payload``): only a stamp by exactly that key answers it. Records
    without it are written as before, so a store shared with an earlier release reads them."""

    request_id: str
    account_id: str
    operation: str
    credential_type: str | None
    payload_to_sign: str
    bound_client_public_key: str | None
    expires_at_ms: int
    claimed: bool = False
    expected_signer: str | None = None

    def to_json(self) -> str:
        """Everything but ``claimed``, which each store keeps apart to flip it atomically
        (and ``expected_signer`` only when set)."""
        fields = asdict(self)
        del fields["claimed"]
        if fields["expected_signer"] is None:
            del fields["expected_signer"]
        return json.dumps(fields, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes, *, claimed: bool) -> ChallengeRecord:
        """Raises :class:`StoreError` code ``STORE_CORRUPT`` (500) for anything unexpected."""
        try:
            fields: Any = json.loads(text)
            record = cls(**fields, claimed=claimed)
        except (TypeError, ValueError, UnicodeDecodeError):
            raise store_corrupt("a stored signed-retry challenge is corrupt") from None
        if not (
            isinstance(record.payload_to_sign, str)
            and isinstance(record.account_id, str)
            and isinstance(record.expires_at_ms, int)
            and isinstance(record.expected_signer, (str, type(None)))
        ):
            raise store_corrupt("a stored signed-retry challenge is corrupt")
        return record

    def as_claimed(self) -> ChallengeRecord:
        return replace(self, claimed=True)


class ChallengeStore(Protocol):
    """Where challenges live between the two legs (public as ``ewc.signed_retry.Store``).
    Every method is safe to call concurrently, and ``claim`` is atomic: of any number of
    concurrent claims of one id, at most one wins.

    ``put`` refuses an id that is already stored (``REQUEST_ID_CONFLICT``, 500): overwriting a
    claimed record would reopen it. A store may forget a record ``ttl_seconds`` after ``put`` by
    its own clock; expiry itself is judged by the record's ``expires_at_ms`` and the caller's
    ``now_ms``. Failures of the backing service raise :class:`StoreError` code
    ``STORE_UNAVAILABLE`` (503).
    """

    def put(self, record: ChallengeRecord, ttl_seconds: float) -> None: ...

    def get(self, request_id: str) -> ChallengeRecord | None: ...

    def claim(self, request_id: str, now_ms: int) -> bool:
        """Mark the id used if it is stored, unclaimed and ``now_ms < expires_at_ms``; True
        exactly when this call did so."""
        ...


def request_id_conflict(request_id: str) -> SignedRetryError:
    return SignedRetryError(
        f"request id {request_id} is already stored; request ids must be unique",
        "REQUEST_ID_CONFLICT",
        500,
    )


# --- one-time codes -------------------------------------------------------------------------

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
    """A code being issued: its keyed hash, the id of this issue, and when it expires: at
    ``expires_at_ms`` when given, else ``ttl_ms`` after the time the store judges the issue at
    (see :meth:`CodeStore.issue`)."""

    code_hash: str
    issue_id: str
    expires_at_ms: int | None = None
    ttl_ms: int = 0

    def expiry(self, now_ms: int) -> int:
        """When the code expires if issued at ``now_ms``."""
        return self.expires_at_ms if self.expires_at_ms is not None else now_ms + self.ttl_ms


@dataclass(frozen=True)
class IssueOutcome:
    """What :meth:`CodeStore.issue` decided: ``retry_after_ms`` is 0 when the code was issued,
    else the milliseconds until an issue would be allowed; ``now_ms`` is the time the decision
    was taken at (the store's own clock, read inside its atomic section, unless the caller
    gave one); ``expires_at_ms`` is the issued code's expiry (0 when refused)."""

    retry_after_ms: int
    now_ms: int
    expires_at_ms: int = 0

    @property
    def issued(self) -> bool:
        return self.retry_after_ms == 0


def decide_issue(
    state: CodeState | None, code: NewCode, now_ms: int, limits: IssueLimits
) -> tuple[IssueOutcome, CodeState | None, int]:
    """The outcome of an issue at ``now_ms``, the state to write (None when refused) and the
    time the store may forget it: :func:`issue_window`, applied by the Python stores."""
    retry_after_ms, window_start_ms, window_issues = issue_window(state, now_ms, limits)
    if retry_after_ms:
        return IssueOutcome(retry_after_ms, now_ms), None, 0
    expires_at_ms = code.expiry(now_ms)
    written = CodeState(
        code_hash=code.code_hash,
        issue_id=code.issue_id,
        expires_at_ms=expires_at_ms,
        attempts=0,
        used=False,
        window_start_ms=window_start_ms,
        window_issues=window_issues,
        last_issue_ms=now_ms,
    )
    forget_at_ms = max(expires_at_ms, now_ms + limits.forget_after_ms)
    return IssueOutcome(0, now_ms, expires_at_ms), written, forget_at_ms


def wall_clock_ms() -> int:
    """The store's own clock for a Python-side store, in milliseconds since the epoch (read
    inside the atomic section)."""
    return time.time_ns() // 1_000_000


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
        raise store_corrupt("a stored one-time code record is corrupt") from None


def issue_window(state: CodeState | None, now_ms: int, limits: IssueLimits) -> tuple[int, int, int]:
    """``(retry_after_ms, window_start_ms, window_issues)`` for an issue at ``now_ms``:
    ``retry_after_ms`` is 0 when the issue is allowed (and the window values are the new ones).

    A ``now_ms`` behind the stored times (a clock that stepped back, another host's clock, or
    an issue that read the clock before a concurrent one committed) counts as inside the
    interval and the window: it never yields a new code or restarts the count."""
    if state is None:
        return 0, now_ms, 1
    since_last = now_ms - state.last_issue_ms
    if since_last < limits.min_interval_ms:
        return limits.min_interval_ms - since_last, 0, 0
    if now_ms - state.window_start_ms < limits.window_ms:
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


class CodeStore(Protocol):
    """Where one-time codes live between issue and verify (public as ``ewc.otp.OtpStore``).
    Every method is atomic per credential key, also across the processes (and hosts) that
    share the store; failures of the backing service raise :class:`StoreError` code
    ``STORE_UNAVAILABLE`` (503)."""

    def issue(
        self, key: str, code: NewCode, now_ms: int | None, limits: IssueLimits
    ) -> IssueOutcome:
        """Replace the credential's code if :func:`issue_window` allows it at "now".

        With ``now_ms=None`` (what :class:`~embedded_wallet_crypto.otp.OneTimeCodes` passes
        unless it was given a clock), "now" is the store's own clock read inside the atomic
        section that reads the counters and writes the code (Redis ``TIME`` in the script,
        PostgreSQL ``clock_timestamp()`` after the credential's lock, SQLite after ``BEGIN
        IMMEDIATE``, the memory store under its lock): a request that waited in flight or for
        the lock is judged when it takes effect, so two codes are never issued closer than the
        interval. A caller-given ``now_ms`` (a test's clock) is used as given. The outcome
        carries the "now" used and the code's expiry computed from it."""
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
