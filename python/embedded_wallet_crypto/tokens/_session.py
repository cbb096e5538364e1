"""The session JWT (formats.md section 14): labelled ES256, but signed by the notarizer over
``SHA-256(SHA-256(header_b64 "." payload_b64))``, the signature a raw 64-byte ``r || s``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .._types import KeyLike
from ..keys import KeyPair
from . import _common as c

__all__ = ["NOTARIZER_PUBLIC_KEY", "SessionJwt", "mint_session_jwt", "verify_session_jwt"]

#: The production notarizer key, the signer of real session JWTs (formats.md section 14).
NOTARIZER_PUBLIC_KEY = (
    "04d498aa87ac3bf982ac2b5dd9604d0074905cfbda5d62727c5a237b895e6749205e9f7cd566909c4387f6ca"
    "25c308445c60884b788560b785f4a96ac33702a469"
)

_KNOWN_HEADERS = frozenset(
    {"eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9", "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9"}
)
_MINT_HEADER = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9"  # {"alg":"ES256","typ":"JWT"}
_TEXT_CLAIMS = ("public_key", "user_id", "organization_id", "session_type")


@dataclass(frozen=True)
class SessionJwt:
    """A verified session JWT.

    Attributes:
        public_key: the session's public key, as written (compressed hex in real tokens).
        user_id: the user the session belongs to.
        organization_id: the user's organization.
        session_type: for instance ``"SESSION_TYPE_READ_WRITE"`` or ``"SESSION_TYPE_READ_ONLY"``.
        expires_at: the ``exp`` claim (whole seconds), a timezone-aware UTC datetime.
        claims: every claim of the token, as decoded.
    """

    public_key: str
    user_id: str
    organization_id: str
    session_type: str
    expires_at: datetime
    claims: dict[str, Any] = field(repr=False, compare=False)


def verify_session_jwt(
    token: str,
    *,
    notarizer_public_key: KeyLike = NOTARIZER_PUBLIC_KEY,
    now: datetime | None = None,
) -> SessionJwt:
    """Verify a session JWT (formats.md section 14) and return its claims.

    The checks, in order: at most ``MAX_TOKEN_LENGTH`` ASCII characters in three canonical
    unpadded base64url segments; the header exactly ``{"alg": "ES256", "typ": "JWT"}``; a
    64-byte ``r || s`` signature by ``notarizer_public_key`` over
    ``SHA-256(SHA-256(header_b64 "." payload_b64))`` (so a standard ES256 signature over the
    same token does not verify); a JSON payload without repeated members; the non-empty string
    claims ``public_key``, ``user_id``, ``organization_id``, ``session_type``; ``exp`` an
    integer number of seconds since the epoch (not a float or a string, at most the end of
    year 9999); and ``now`` before ``exp``.

    Args:
        token: the compact token text.
        notarizer_public_key: the signer's P-256 key (SEC1, hex or bytes); by default the
            production notarizer key.
        now: a timezone-aware ``datetime``; None for the current time.

    Raises:
        TokenError: ``code`` says which check failed (the codes of
            :func:`verify_verification_token`).
        InvalidKey: ``notarizer_public_key`` is not a P-256 public key.
        TypeError: ``token`` is not a str, or ``now`` is not an aware datetime.
    """
    instant = c.now_utc(now)
    header, payload, signature, signing_input = c.split(token)
    c.check_header(header, _KNOWN_HEADERS)
    raw_signature = c.signature_bytes(signature)
    digest = hashlib.sha256(signing_input.encode("ascii")).digest()
    c.check_signature(notarizer_public_key, digest, raw_signature)  # ECDSA hashes it again
    claims = c.json_segment(payload, "payload")
    public_key, user_id, organization_id, session_type = (
        c.text_claim(claims, name) for name in _TEXT_CLAIMS
    )
    if "exp" not in claims:
        c.fail(c.CLAIM_MISSING, "the token has no 'exp' claim")
    exp = claims["exp"]
    if type(exp) is not int or not 0 <= exp <= c.MAX_EXP_SECONDS:
        c.fail(c.CLAIM_INVALID, "the 'exp' claim must be an integer number of seconds")
    expires_at = c.EPOCH + timedelta(seconds=exp)
    c.check_not_expired(expires_at, instant)
    return SessionJwt(public_key, user_id, organization_id, session_type, expires_at, claims)


def mint_session_jwt(
    signer: KeyPair,
    *,
    public_key: str,
    user_id: str,
    organization_id: str,
    session_type: str = "SESSION_TYPE_READ_WRITE",
    expires_at: datetime,
) -> str:
    """Server and sandbox side: a session JWT that :func:`verify_session_jwt` accepts with
    ``signer``'s public key as the notarizer key.

    The bytes are the infrastructure's form: the header ``{"alg":"ES256","typ":"JWT"}``, the
    claims ``exp`` (seconds), ``public_key``, ``session_type``, ``user_id``,
    ``organization_id`` in that order as compact JSON, and the raw ``r || s`` signature over
    ``SHA-256(SHA-256(header_b64 "." payload_b64))``.

    Args:
        signer: the notarizer's :class:`~embedded_wallet_crypto.KeyPair`.
        public_key: the session key (usually compressed hex), written as given.
        user_id: the user the session belongs to.
        organization_id: the user's organization.
        session_type: the session's type.
        expires_at: a timezone-aware datetime, rounded down to the second.

    Raises:
        TokenError: ``TOKEN_PARAMETERS_INVALID`` for an empty or non-Unicode text or a time
            outside 1970..9999.
        TypeError: a parameter of the wrong type (``signer`` must be a KeyPair).
    """
    since = c.parameter_time(expires_at, "expires_at")
    claims = {
        "exp": since // timedelta(seconds=1),
        "public_key": c.parameter_text(public_key, "public_key"),
        "session_type": c.parameter_text(session_type, "session_type"),
        "user_id": c.parameter_text(user_id, "user_id"),
        "organization_id": c.parameter_text(organization_id, "organization_id"),
    }
    signing_input = f"{_MINT_HEADER}.{c.encode_json(claims)}"
    digest = hashlib.sha256(signing_input.encode("ascii")).digest()
    return f"{signing_input}.{c.p1363_signature(signer, digest)}"
