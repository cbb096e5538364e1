"""What the two legs return: the 202 challenges (:class:`SignedRequestChallenge`,
:class:`PayloadChallenge`) and the accepted retries (:class:`VerifiedRetry`,
:class:`VerifiedPayload`), typed, so that a caller never reads the stored payload again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ._operations import Operation

__all__ = [
    "PayloadChallenge",
    "SignedRequestChallenge",
    "VerifiedPayload",
    "VerifiedRetry",
    "utc",
]


def utc(milliseconds: int) -> datetime:
    return datetime.fromtimestamp(milliseconds / 1000, tz=timezone.utc)


def _challenge_body(
    payload_to_sign: str, request_id: str, expires_at: datetime, type: str | None
) -> dict[str, str]:
    """The interface's SignedRequestChallenge body, for both kinds of challenge."""
    body = {
        "payloadToSign": payload_to_sign,
        "requestId": request_id,
        "expiresAt": expires_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    if type is not None:
        body["type"] = type
    return body


@dataclass(frozen=True)
class SignedRequestChallenge:
    """The 202 response of leg one. ``type`` is the credential type being added, revoked, or
    that issued the session being revoked; None where the interface gives the operation none."""

    payload_to_sign: str
    request_id: str
    expires_at: datetime
    type: str | None
    operation: Operation

    def to_response(self) -> dict[str, str]:
        """The interface's SignedRequestChallenge body (``expiresAt`` in UTC, milliseconds)."""
        return _challenge_body(self.payload_to_sign, self.request_id, self.expires_at, self.type)


@dataclass(frozen=True)
class VerifiedRetry:
    """An accepted retry: what was authorized (the operation and its parameters exactly as
    signed, read from the stored payload), and by which session."""

    request_id: str
    account_id: str
    operation: Operation
    type: str | None
    parameters: dict[str, Any]
    payload_to_sign: str
    session_public_key: str  # compressed hex; "" for the sandbox stamp
    session_credential_id: str | None
    bound_client_public_key: str | None


@dataclass(frozen=True)
class PayloadChallenge:
    """The 202 response of :meth:`SignedRetry.issue_payload`: a challenge over a caller-given
    payload that only ``signer_public_key`` (compressed hex) may stamp."""

    payload_to_sign: str
    request_id: str
    expires_at: datetime
    type: str | None
    signer_public_key: str

    def to_response(self) -> dict[str, str]:
        """The interface's SignedRequestChallenge body (``expiresAt`` in UTC, milliseconds)."""
        return _challenge_body(self.payload_to_sign, self.request_id, self.expires_at, self.type)


@dataclass(frozen=True)
class VerifiedPayload:
    """An accepted answer to a :class:`PayloadChallenge`: the payload, stamped by exactly the
    expected signer (``signer_public_key``, compressed hex)."""

    request_id: str
    account_id: str
    type: str | None
    payload_to_sign: str
    signer_public_key: str
