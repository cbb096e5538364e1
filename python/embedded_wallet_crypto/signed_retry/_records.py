"""What a store keeps for each issued challenge, and the interface every store implements."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol

from ..errors import SignedRetryError

__all__ = ["ChallengeRecord", "Store", "request_id_conflict", "store_unavailable"]


@dataclass(frozen=True)
class ChallengeRecord:
    """One issued challenge: the exact payload, who may answer it, until when, and whether an
    answer has already been accepted (``claimed``)."""

    request_id: str
    account_id: str
    operation: str
    credential_type: str | None
    payload_to_sign: str
    bound_client_public_key: str | None
    expires_at_ms: int
    claimed: bool = False

    def to_json(self) -> str:
        """Everything but ``claimed``, which each store keeps apart to flip it atomically."""
        fields = asdict(self)
        del fields["claimed"]
        return json.dumps(fields, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes, *, claimed: bool) -> ChallengeRecord:
        """Raises ``SignedRetryError`` code ``STORE_CORRUPT`` (500) for anything unexpected."""
        try:
            fields: Any = json.loads(text)
            record = cls(**fields, claimed=claimed)
        except (TypeError, ValueError, UnicodeDecodeError):
            raise SignedRetryError(
                "a stored signed-retry challenge is corrupt", "STORE_CORRUPT", 500
            ) from None
        if not (
            isinstance(record.payload_to_sign, str)
            and isinstance(record.account_id, str)
            and isinstance(record.expires_at_ms, int)
        ):
            raise SignedRetryError(
                "a stored signed-retry challenge is corrupt", "STORE_CORRUPT", 500
            )
        return record

    def as_claimed(self) -> ChallengeRecord:
        return replace(self, claimed=True)


class Store(Protocol):
    """Where challenges live between the two legs. Every method is safe to call concurrently,
    and ``claim`` is atomic: of any number of concurrent claims of one id, at most one wins.

    ``put`` refuses an id that is already stored (``REQUEST_ID_CONFLICT``, 500): overwriting a
    claimed record would reopen it. A store may forget a record ``ttl_seconds`` after ``put`` by
    its own clock; expiry itself is judged by the record's ``expires_at_ms`` and the caller's
    ``now_ms``. Failures of the backing service raise ``SignedRetryError`` code
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


def store_unavailable(store: str, problem: BaseException) -> SignedRetryError:
    return SignedRetryError(
        f"the {store} signed-retry store failed: {type(problem).__name__}",
        "STORE_UNAVAILABLE",
        503,
    )
