"""Session challenges: a passkey login that commits to the client's session key.

formats.md section 6: ``/challenge`` answers with the lowercase hex SHA-256 of the canonical
session-creation body, which binds the ``clientPublicKey``; the WebAuthn challenge bytes are the
64 ASCII bytes of that hex. The body here has the shape of formats.md section 5 (compact JSON,
sorted keys) and binds, besides the key, the ``requestId`` that ``/verify`` must present and the
account. The server keeps the body under the requestId; at ``/verify`` it recomputes the
challenge from that body, so an assertion over any other key, request or account fails.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._contract import buffer_bytes
from .._types import BytesLike, KeyLike
from ..keys import key_text
from ..policy import Environment
from ._assertion import VerifiedAssertion, verify_assertion
from ._codec import b64url_encode, json_object
from ._errors import REQUEST_ID_MISMATCH, SESSION_BODY_INVALID, fail

__all__ = [
    "SESSION_ACTIVITY_TYPE",
    "SessionChallenge",
    "VerifiedSession",
    "issue_session_challenge",
    "session_challenge",
    "session_creation_body",
    "verify_session_assertion",
]

#: formats.md section 5, the activity that creates (or refreshes) a read-write session.
SESSION_ACTIVITY_TYPE = "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"


def session_challenge(session_creation_body: str | BytesLike) -> str:
    """The session challenge of a session-creation body: lowercase hex SHA-256 of its bytes
    exactly as given (a ``str`` means its UTF-8 bytes). formats.md section 6."""
    if isinstance(session_creation_body, str):
        data = session_creation_body.encode("utf-8", "surrogatepass")
    else:
        data = buffer_bytes(session_creation_body, "session_creation_body")
    return hashlib.sha256(data).hexdigest()


def session_creation_body(
    *,
    client_public_key: KeyLike,
    request_id: str,
    organization_id: str,
    account_id: str,
    timestamp_ms: int,
) -> str:
    """The canonical session-creation body: compact JSON with sorted keys,
    ``{"organizationId", "parameters": {"requestId", "targetPublicKey", "userId"},
    "timestampMs": "<ms>", "type": "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"}``.

    Raises:
        InvalidKey: ``client_public_key`` is not a valid P-256 point.
    """
    body = {
        "organizationId": organization_id,
        "parameters": {
            "requestId": request_id,
            "targetPublicKey": key_text(client_public_key),
            "userId": account_id,
        },
        "timestampMs": str(_timestamp(timestamp_ms)),
        "type": SESSION_ACTIVITY_TYPE,
    }
    return json.dumps(body, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class SessionChallenge:
    """A pending passkey login: keep ``body`` under ``request_id``; answer ``to_response()``."""

    request_id: str
    body: str
    challenge: str  # session_challenge(body), 64 lowercase hex characters

    @property
    def expected_challenge(self) -> bytes:
        """The raw WebAuthn challenge: the ASCII bytes of the hex challenge."""
        return self.challenge.encode("ascii")

    def to_response(self) -> dict[str, str]:
        """What ``POST /auth/credentials/{id}/challenge`` answers (base64url challenge)."""
        return {"challenge": b64url_encode(self.expected_challenge), "requestId": self.request_id}


def issue_session_challenge(
    *,
    client_public_key: KeyLike,
    organization_id: str,
    account_id: str,
    request_id: str | None = None,
    timestamp_ms: int | None = None,
) -> SessionChallenge:
    """Server side of ``/challenge`` for a PASSKEY: bind the client's key into a new body.

    ``request_id`` defaults to a fresh ``Request:<uuid4>`` and ``timestamp_ms`` to now; fixed
    values are for known-answer vectors.

    Raises:
        InvalidKey: ``client_public_key`` is not a valid P-256 point.
    """
    request_id = request_id if request_id is not None else f"Request:{uuid.uuid4()}"
    now_ms = timestamp_ms if timestamp_ms is not None else time.time_ns() // 1_000_000
    body = session_creation_body(
        client_public_key=client_public_key,
        request_id=request_id,
        organization_id=organization_id,
        account_id=account_id,
        timestamp_ms=now_ms,
    )
    return SessionChallenge(request_id=request_id, body=body, challenge=session_challenge(body))


@dataclass(frozen=True)
class VerifiedSession:
    """A passkey login that verified, and what its challenge bound."""

    assertion: VerifiedAssertion
    request_id: str
    client_public_key: str  # seal the session key to this one
    account_id: str
    organization_id: str


def _bound(body: str | BytesLike) -> dict[str, Any]:
    if not isinstance(body, str):
        body = buffer_bytes(body, "session_creation_body")
    parsed = json_object(body, "session-creation body", SESSION_BODY_INVALID)
    parameters = parsed.get("parameters")
    if parsed.get("type") != SESSION_ACTIVITY_TYPE or not isinstance(parameters, dict):
        raise fail(SESSION_BODY_INVALID, "not a session-creation body")
    bound = {
        "request_id": parameters.get("requestId"),
        "client_public_key": parameters.get("targetPublicKey"),
        "account_id": parameters.get("userId"),
        "organization_id": parsed.get("organizationId"),
    }
    if not all(isinstance(value, str) for value in bound.values()):
        raise fail(SESSION_BODY_INVALID, "the session-creation body lacks a bound value")
    return bound


def verify_session_assertion(
    assertion: object,
    *,
    session_creation_body: str,
    request_id: str | None,
    credential_public_key: bytes,
    rp_id: str,
    origin: str | Sequence[str],
    current_sign_count: int,
    require_user_verification: bool = True,
    sandbox: bool | Environment | None = None,
) -> VerifiedSession:
    """Server side of ``/verify`` for a PASSKEY: the assertion must sign the challenge of the
    body stored under this ``Request-Id``.

    Raises:
        PasskeyError: ``PASSKEY_REQUEST_ID_MISMATCH`` when the body was issued for another
            request, ``PASSKEY_SESSION_BODY_INVALID`` when it is not a session-creation body,
            and every code of :func:`verify_assertion`.
    """
    bound = _bound(session_creation_body)
    if request_id != bound["request_id"]:
        raise fail(REQUEST_ID_MISMATCH, "the Request-Id is not the one this challenge was for")
    verified = verify_assertion(
        assertion,
        credential_public_key=credential_public_key,
        expected_challenge=session_challenge(session_creation_body).encode("ascii"),
        rp_id=rp_id,
        origin=origin,
        current_sign_count=current_sign_count,
        require_user_verification=require_user_verification,
        sandbox=sandbox,
    )
    return VerifiedSession(assertion=verified, **bound)


def _timestamp(timestamp_ms: object) -> int:
    if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, int):
        raise TypeError(f"timestamp_ms must be an int, not {type(timestamp_ms).__name__}")
    if not 0 <= timestamp_ms < 10**16:  # milliseconds since 1970, before the year 318857
        raise fail(SESSION_BODY_INVALID, "timestamp_ms is out of range")
    return timestamp_ms
