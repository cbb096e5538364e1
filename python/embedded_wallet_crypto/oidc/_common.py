"""What the OIDC modules share: the error codes, and strict decoding of the compact JWS form.

Decoding is bounded and strict so that a hostile token (huge, deeply nested JSON, bad base64,
``NaN`` numbers, a repeated member that two readers could read differently) ends in an
:class:`OidcError`, never in another exception.
"""

from __future__ import annotations

import binascii
import math
import re
from typing import Any, NoReturn

from .. import _strict_json as strict_json
from .._contract import buffer_bytes
from ..errors import OidcError

# The codes of OidcError (status 401, http_reason "Invalid OIDC token" for every one).
MALFORMED = "OIDC_TOKEN_MALFORMED"
ALGORITHM_NOT_ALLOWED = "OIDC_ALGORITHM_NOT_ALLOWED"
KEY_NOT_FOUND = "OIDC_KEY_NOT_FOUND"
SIGNATURE_INVALID = "OIDC_SIGNATURE_INVALID"
ISSUER_NOT_ALLOWED = "OIDC_ISSUER_NOT_ALLOWED"
AUDIENCE_MISMATCH = "OIDC_AUDIENCE_MISMATCH"
EXPIRED = "OIDC_TOKEN_EXPIRED"
TOO_OLD = "OIDC_TOKEN_TOO_OLD"
ISSUED_IN_FUTURE = "OIDC_ISSUED_IN_FUTURE"
NOT_YET_VALID = "OIDC_TOKEN_NOT_YET_VALID"
CLAIM_MISSING = "OIDC_CLAIM_MISSING"
CLAIM_INVALID = "OIDC_CLAIM_INVALID"
NONCE_MISSING = "OIDC_NONCE_MISSING"
NONCE_MISMATCH = "OIDC_NONCE_MISMATCH"
JWKS_UNAVAILABLE = "OIDC_JWKS_UNAVAILABLE"
JWKS_INVALID = "OIDC_JWKS_INVALID"
#: The verifier's own configuration is unusable (status 500): a NaN age, an HMAC algorithm ...
CONFIG_INVALID = "OIDC_CONFIG_INVALID"

#: Real ID tokens are 1 to 3 KB; this bounds the work an unauthenticated token can cause.
MAX_TOKEN_LENGTH = 32 * 1024
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_ALPHABET_INDEX = {character: index for index, character in enumerate(_ALPHABET)}
# A last character after 2 (or 3) characters of a group carries 4 (or 2) unused low bits.
_UNUSED_BITS = {2: 0b1111, 3: 0b11}
_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def fail(code: str, reason: str) -> NoReturn:
    raise OidcError(reason, code, 401)


class ConfigError(OidcError, ValueError):
    """``OIDC_CONFIG_INVALID``: an :class:`OidcError`, and a ``ValueError`` as before."""


def config_error(reason: str) -> ConfigError:
    """The error for an unusable configuration value (``raise config_error(...)``)."""
    return ConfigError(reason, CONFIG_INVALID, 500)


def b64url_decode(segment: str, what: str, code: str = MALFORMED) -> bytes:
    """Strict unpadded base64url (RFC 7515 section 2): the alphabet only, no padding, and the
    canonical form (unused bits zero), so that one value has exactly one encoding."""
    if not _BASE64URL.fullmatch(segment) or len(segment) % 4 == 1:
        fail(code, f"the {what} is not unpadded base64url")
    tail = len(segment) % 4
    if tail and _ALPHABET_INDEX[segment[-1]] & _UNUSED_BITS[tail]:
        fail(code, f"the {what} is not canonical base64url (non-zero unused bits)")
    try:
        padded = segment.encode("ascii").translate(_TO_STANDARD) + b"=" * (-tail % 4)
        return binascii.a2b_base64(padded)
    except (binascii.Error, ValueError):
        fail(code, f"the {what} is not unpadded base64url")


def json_object(data: bytes, what: str, code: str = MALFORMED) -> dict[str, Any]:
    """A JSON object from UTF-8 bytes, decoded by ``_strict_json``: a repeated member, NaN,
    Infinity, an overflowing float, a huge integer or deep nesting is ``code``."""
    return strict_json.json_object(
        data, what=f"the {what}", error=lambda reason: OidcError(reason, code, 401)
    )


def token_text(token: object) -> str:
    """The token as text, after the type and length checks (bytes are taken as ASCII)."""
    if isinstance(token, (bytes, bytearray, memoryview)):
        try:
            token = buffer_bytes(token, "token").decode("ascii")
        except UnicodeDecodeError:
            fail(MALFORMED, "the token is not ASCII")
    if not isinstance(token, str):
        fail(MALFORMED, f"the token must be a string, not {type(token).__name__}")
    if len(token) > MAX_TOKEN_LENGTH:
        fail(MALFORMED, f"the token is longer than {MAX_TOKEN_LENGTH} characters")
    return token


def parse_token(
    token: object, *, require_signature: bool = True
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(text, header, claims) of a structurally valid compact JWS: three base64url segments,
    a JSON object header and claims, and (unless not required) a non-empty signature."""
    text = token_text(token)
    parts = text.split(".")
    if len(parts) != 3:
        fail(MALFORMED, f"the token has {len(parts)} segments, not header.payload.signature")
    header_segment, payload_segment, signature = parts
    header = json_object(b64url_decode(header_segment, "header"), "header")
    claims = json_object(b64url_decode(payload_segment, "payload"), "payload")
    b64url_decode(signature, "signature")
    if require_signature and not signature:
        fail(MALFORMED, "the token has an empty signature segment")
    return text, header, claims


def is_number(value: object) -> bool:
    """A JSON number usable as a NumericDate: int or finite float, never a bool."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
