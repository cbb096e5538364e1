"""The OTP verification token (formats.md section 14): a standard ES256 JWT by the TLS-fetcher
key whose ``exp`` is a millisecond epoch written as a decimal string."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .._types import KeyLike
from ..keys import KeyPair
from ..otp._encrypted import TLS_FETCHER_SIGNER_PUBLIC_KEY
from . import _common as c

__all__ = ["VerificationToken", "mint_verification_token", "verify_verification_token"]

# The header segments the infrastructure writes ({"typ":"JWT","alg":"ES256"} and the other
# member order), accepted without decoding; any other header is decoded and checked.
_KNOWN_HEADERS = frozenset(
    {"eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9", "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9"}
)
_MINT_HEADER = "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9"
_MILLIS = re.compile(r"0|[1-9][0-9]{0,14}")
_MAX_EXP_MS = c.MAX_EXP_SECONDS * 1000 + 999
_TEXT_CLAIMS = ("id", "verification_type", "contact", "organization_id", "public_key")


@dataclass(frozen=True)
class VerificationToken:
    """A verified OTP verification token.

    Attributes:
        id: the verification's id (the ``id`` claim).
        verification_type: for instance ``"OTP_TYPE_EMAIL"`` or ``"OTP_TYPE_SMS"``.
        contact: the email address or phone number the code went to.
        organization_id: the organization the verification belongs to.
        public_key: the key the token is bound to (the client's target key, as written).
        expires_at: the ``exp`` claim, a timezone-aware UTC datetime (millisecond precision).
        claims: every claim of the token, as decoded.
    """

    id: str
    verification_type: str
    contact: str
    organization_id: str
    public_key: str
    expires_at: datetime
    claims: dict[str, Any] = field(repr=False, compare=False)


def verify_verification_token(
    token: str,
    *,
    signer_public_key: KeyLike = TLS_FETCHER_SIGNER_PUBLIC_KEY,
    now: datetime | None = None,
) -> VerificationToken:
    """Verify an OTP verification token (formats.md section 14) and return its claims.

    The checks, in order: at most ``MAX_TOKEN_LENGTH`` ASCII characters in three canonical
    unpadded base64url segments; the header exactly ``{"alg": "ES256", "typ": "JWT"}``; a
    64-byte ``r || s`` signature that verifies as ES256 (ECDSA P-256 over SHA-256 of
    ``header.payload``) with ``signer_public_key``; a JSON payload without repeated members;
    the string claims ``id``, ``verification_type``, ``contact``, ``organization_id``,
    ``public_key``; ``exp`` a millisecond epoch written as a decimal string (no sign, no leading
    zero, at most the end of year 9999); and ``now`` before ``exp``.

    The older token form (another signer, ``exp`` in seconds as a number, no
    ``organization_id`` or ``public_key``) is not accepted.

    Args:
        token: the compact token text.
        signer_public_key: the issuer's P-256 key (SEC1, hex or bytes); by default the
            production TLS-fetcher key.
        now: a timezone-aware ``datetime``; None for the current time.

    Raises:
        TokenError: ``code`` says which check failed: ``TOKEN_MALFORMED``,
            ``TOKEN_ALGORITHM_NOT_ALLOWED``, ``TOKEN_TYPE_INVALID``, ``TOKEN_HEADER_INVALID``,
            ``TOKEN_SIGNATURE_MALFORMED``, ``TOKEN_SIGNATURE_INVALID`` (also a token by another
            signer), ``TOKEN_CLAIM_MISSING``, ``TOKEN_CLAIM_INVALID``, ``TOKEN_EXPIRED``.
        InvalidKey: ``signer_public_key`` is not a P-256 public key.
        TypeError: ``token`` is not a str, or ``now`` is not an aware datetime.
    """
    instant = c.now_utc(now)
    header, payload, signature, signing_input = c.split(token)
    c.check_header(header, _KNOWN_HEADERS)
    raw_signature = c.signature_bytes(signature)
    c.check_signature(signer_public_key, signing_input.encode("ascii"), raw_signature)
    claims = c.json_segment(payload, "payload")
    token_id, verification_type, contact, organization_id, public_key = (
        c.text_claim(claims, name) for name in _TEXT_CLAIMS
    )
    if "exp" not in claims:
        c.fail(c.CLAIM_MISSING, "the token has no 'exp' claim")
    exp = claims["exp"]
    if not isinstance(exp, str) or not _MILLIS.fullmatch(exp) or int(exp) > _MAX_EXP_MS:
        c.fail(
            c.CLAIM_INVALID,
            "the 'exp' claim must be a millisecond epoch written as a decimal string",
        )
    expires_at = c.EPOCH + timedelta(milliseconds=int(exp))
    c.check_not_expired(expires_at, instant)
    return VerificationToken(
        token_id, verification_type, contact, organization_id, public_key, expires_at, claims
    )


def mint_verification_token(
    signer: KeyPair,
    *,
    verification_type: str,
    contact: str,
    organization_id: str,
    public_key: str,
    expires_at: datetime,
    token_id: str | None = None,
) -> str:
    """Server and sandbox side: an OTP verification token that
    :func:`verify_verification_token` accepts with ``signer``'s public key.

    The bytes are the infrastructure's form: the header ``{"typ":"JWT","alg":"ES256"}``, the
    claims ``exp`` (milliseconds, as a string), ``id``, ``organization_id``,
    ``verification_type``, ``contact``, ``public_key`` in that order as compact JSON, and a raw
    ``r || s`` ES256 signature.

    Args:
        signer: the issuer's :class:`~embedded_wallet_crypto.KeyPair`.
        verification_type: for instance ``"OTP_TYPE_EMAIL"``.
        contact: the address the code went to.
        organization_id: the organization the verification belongs to.
        public_key: the key to bind the token to (the client's target key, usually compressed
            hex), written as given.
        expires_at: a timezone-aware datetime, rounded down to the millisecond.
        token_id: the ``id`` claim; None for a fresh random UUID.

    Raises:
        TokenError: ``TOKEN_PARAMETERS_INVALID`` for an empty or non-Unicode text or a time
            outside 1970..9999.
        TypeError: a parameter of the wrong type (``signer`` must be a KeyPair).
    """
    since = c.parameter_time(expires_at, "expires_at")
    claims = {
        "exp": str(since // timedelta(milliseconds=1)),
        "id": c.parameter_text(str(uuid.uuid4()) if token_id is None else token_id, "token_id"),
        "organization_id": c.parameter_text(organization_id, "organization_id"),
        "verification_type": c.parameter_text(verification_type, "verification_type"),
        "contact": c.parameter_text(contact, "contact"),
        "public_key": c.parameter_text(public_key, "public_key"),
    }
    signing_input = f"{_MINT_HEADER}.{c.encode_json(claims)}"
    return f"{signing_input}.{c.p1363_signature(signer, signing_input.encode('ascii'))}"
