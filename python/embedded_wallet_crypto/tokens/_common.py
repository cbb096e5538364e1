"""What the two token kinds share: the error codes, strict decoding of the compact form, the
pinned header, claim readers, the clock and the signer's raw ``r || s`` (formats.md section 14).

Decoding is bounded and strict so that a hostile token (huge, bad base64url, a repeated JSON
member, ``NaN``, a lone surrogate) ends in a :class:`TokenError`, never in another exception,
and so that one token has exactly one accepted encoding.
"""

from __future__ import annotations

import binascii
import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any, NoReturn

from .. import _native
from .. import _strict_json as strict_json
from .._types import BytesLike, KeyLike
from ..errors import TokenError
from ..keys import KeyPair

# The codes of TokenError (status 401).
MALFORMED = "TOKEN_MALFORMED"
HEADER_INVALID = "TOKEN_HEADER_INVALID"
ALGORITHM_NOT_ALLOWED = "TOKEN_ALGORITHM_NOT_ALLOWED"
TYPE_INVALID = "TOKEN_TYPE_INVALID"
SIGNATURE_MALFORMED = "TOKEN_SIGNATURE_MALFORMED"
SIGNATURE_INVALID = "TOKEN_SIGNATURE_INVALID"
CLAIM_MISSING = "TOKEN_CLAIM_MISSING"
CLAIM_INVALID = "TOKEN_CLAIM_INVALID"
EXPIRED = "TOKEN_EXPIRED"
#: A mint was asked for a value it cannot write (an empty claim, a time out of range).
PARAMETERS_INVALID = "TOKEN_PARAMETERS_INVALID"

#: Real tokens are under 1 KB; this bounds the work an unauthenticated token can cause.
MAX_TOKEN_LENGTH = 8192
#: The last instant a token may name: 9999-12-31T23:59:59Z (seconds since the epoch).
MAX_EXP_SECONDS = 253_402_300_799
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_ALPHABET_INDEX = {character: index for index, character in enumerate(_ALPHABET)}
# A last character after 2 (or 3) characters of a group carries 4 (or 2) unused low bits.
_UNUSED_BITS = {2: 0b1111, 3: 0b11}
_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
_TO_URLSAFE = bytes.maketrans(b"+/", b"-_")


def fail(code: str, reason: str) -> NoReturn:
    raise TokenError(reason, code, 401)


def b64url_decode(segment: str, what: str) -> bytes:
    """Strict unpadded base64url (RFC 7515 section 2): the alphabet only, no padding, and the
    canonical form (unused bits zero), so that one value has exactly one encoding."""
    if not _BASE64URL.fullmatch(segment) or len(segment) % 4 == 1:
        fail(MALFORMED, f"the {what} is not unpadded base64url")
    tail = len(segment) % 4
    if tail and _ALPHABET_INDEX[segment[-1]] & _UNUSED_BITS[tail]:
        fail(MALFORMED, f"the {what} is not canonical base64url (non-zero unused bits)")
    padded = segment.encode("ascii").translate(_TO_STANDARD) + b"=" * (-tail % 4)
    return binascii.a2b_base64(padded)


def b64url_encode(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).rstrip(b"=").translate(_TO_URLSAFE).decode()


def json_segment(segment: str, what: str) -> dict[str, Any]:
    return strict_json.json_object(
        b64url_decode(segment, what),
        what=f"the token {what}",
        error=lambda reason: TokenError(reason, MALFORMED, 401),
    )


def split(token: object) -> tuple[str, str, str, str]:
    """(header, payload, signature segments, signing input) of a compact token."""
    if not isinstance(token, str):
        raise TypeError(f"token must be str, not {type(token).__name__}")
    if len(token) > MAX_TOKEN_LENGTH:
        fail(MALFORMED, f"the token is longer than {MAX_TOKEN_LENGTH} characters")
    if not token.isascii():
        fail(MALFORMED, "the token is not ASCII")
    parts = token.split(".")
    if len(parts) != 3:
        fail(MALFORMED, f"the token has {len(parts)} segments, not header.payload.signature")
    header, payload, signature = parts
    return header, payload, signature, token[: len(header) + 1 + len(payload)]


def check_header(segment: str, known: frozenset[str]) -> None:
    """The header is exactly ``{"alg": "ES256", "typ": "JWT"}`` (in either member order)."""
    if segment in known:  # the encodings the infrastructure writes: nothing to decode
        return
    header = json_segment(segment, "header")
    alg = header.get("alg")
    if alg != "ES256":
        fail(ALGORITHM_NOT_ALLOWED, f"the token algorithm must be ES256, not {_show(alg)}")
    typ = header.get("typ")
    if typ != "JWT":
        fail(TYPE_INVALID, f"the token type must be JWT, not {_show(typ)}")
    extra = sorted(set(header) - {"alg", "typ"})
    if extra:
        fail(HEADER_INVALID, f"the token header has members beyond alg and typ: {extra[:5]}")


def signature_bytes(segment: str) -> bytes:
    signature = b64url_decode(segment, "signature")
    if len(signature) != 64:
        fail(SIGNATURE_MALFORMED, f"the signature is {len(signature)} bytes, not 64 (r || s)")
    return signature


def check_signature(public_key: KeyLike, message: BytesLike, signature: bytes) -> None:
    """ECDSA P-256 / SHA-256 over ``message`` in the core; raises InvalidKey for a bad key."""
    if not _native.verify_signature_p1363(public_key, message, signature):
        fail(SIGNATURE_INVALID, "the token signature does not verify with the signer key")


def _show(value: object) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) else "..."
    return text[:40]


def text_claim(claims: dict[str, Any], name: str) -> str:
    """A required, non-empty string claim that is valid Unicode."""
    if name not in claims:
        fail(CLAIM_MISSING, f"the token has no {name!r} claim")
    value = claims[name]
    if not isinstance(value, str) or not value:
        fail(CLAIM_INVALID, f"the {name!r} claim must be a non-empty string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        fail(CLAIM_INVALID, f"the {name!r} claim is not valid Unicode (a lone surrogate)")
    return value


def now_utc(now: object) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    if isinstance(now, datetime) and now.utcoffset() is not None:
        return now
    raise TypeError("now must be a timezone-aware datetime (or None for the current time)")


def check_not_expired(expires_at: datetime, now: datetime) -> None:
    if now >= expires_at:
        fail(EXPIRED, f"the token expired at {expires_at.isoformat()}")


def parameter_text(value: object, name: str) -> str:
    """A mint parameter: a non-empty str that is valid Unicode."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be str, not {type(value).__name__}")
    if not value:
        fail(PARAMETERS_INVALID, f"{name} must not be empty")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        fail(PARAMETERS_INVALID, f"{name} is not valid Unicode text (it holds a lone surrogate)")
    return value


def parameter_time(value: object, name: str) -> timedelta:
    """A mint time: a timezone-aware datetime within 1970..9999, as the time since the epoch."""
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise TypeError(f"{name} must be a timezone-aware datetime")
    try:
        since = value - EPOCH
    except OverflowError:
        fail(PARAMETERS_INVALID, f"{name} is out of range")
    if since < timedelta(0) or since > timedelta(seconds=MAX_EXP_SECONDS):
        fail(PARAMETERS_INVALID, f"{name} must lie between 1970 and the end of 9999")
    return since


def encode_json(value: dict[str, Any]) -> str:
    """Compact JSON as the infrastructure writes it (no spaces, non-ASCII as raw UTF-8)."""
    return b64url_encode(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def p1363_signature(signer: object, message: bytes) -> str:
    """``signer`` signs ``message`` (ECDSA P-256 / SHA-256); the raw ``r || s``, base64url."""
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    if not isinstance(signer, KeyPair):
        raise TypeError(f"signer must be a KeyPair, not {type(signer).__name__}")
    r, s = decode_dss_signature(signer.sign(message))
    return b64url_encode(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
