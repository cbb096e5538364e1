"""Decoding hostile WebAuthn input: base64url, JSON and CBOR that fail only with PasskeyError.

Every helper takes the error code to raise, so a caller names what was malformed. CBOR is read
with duplicate keys refused (a ``{1: .., True: ..}`` map must not collapse), every semantic tag
refused (WebAuthn's CTAP2 encoding has none, and cbor2 would otherwise build regexes, dates and
shared references from attacker bytes) and a small nesting limit.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import sys
from collections.abc import Mapping
from functools import partial
from typing import Any, NoReturn

import cbor2

from .. import _strict_json as strict_json
from ._errors import fail

__all__ = [
    "MAX_FIELD_CHARS",
    "b64url_decode",
    "b64url_encode",
    "cbor_decode",
    "cbor_decode_prefix",
    "json_object",
]

#: Upper bound on one base64url field (a TPM or ML-DSA attestation is a few tens of KiB).
MAX_FIELD_CHARS = 1 << 20
_MAX_CBOR_DEPTH = 16
_MAX_JSON_BYTES = 1 << 20
# base64url, plus the standard alphabet's "+" and "/": real clients send both (the Windows Hello
# TPM samples of py_webauthn's tests), and py_webauthn's decoder reads both. Once the text
# matches, both read as the standard alphabet.
_B64URL = re.compile(r"[A-Za-z0-9_+/-]*")
_TO_STANDARD_ALPHABET = bytes.maketrans(b"-_", b"+/")
_STRICT_A2B: dict[str, bool] = {"strict_mode": True} if sys.version_info >= (3, 11) else {}
# cbor2's built-in semantic tags (found by probing cbor2 6.3); any other tag reaches _no_tag.
_CBOR2_SEMANTIC_TAGS = (
    *(0, 1, 2, 3, 4, 5, 25, 28, 29, 30, 35, 36, 37, 52, 54, 100, 256, 258),
    *(260, 261, 1004, 43000, 55799),
)


def b64url_encode(data: bytes) -> str:
    """Unpadded base64url, the encoding of every binary WebAuthn value (formats.md section 6)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: object, what: str, code: str) -> bytes:
    """Strict base64url, padded or not (``+`` and ``/`` read as ``-`` and ``_``); anything
    else (whitespace, other characters, an impossible length) raises ``code``."""
    if not isinstance(text, str):
        raise fail(code, f"{what} must be a base64url string")
    if len(text) > MAX_FIELD_CHARS:
        raise fail(code, f"{what} is longer than {MAX_FIELD_CHARS} characters")
    unpadded = text.rstrip("=")
    if len(unpadded) % 4 == 1 or (
        len(unpadded) != len(text) and (len(text) % 4 or len(text) - len(unpadded) > 2)
    ):
        raise fail(code, f"{what} is not base64url (bad length or padding)")
    if not _STRICT_A2B and not _B64URL.fullmatch(unpadded):
        raise fail(code, f"{what} is not base64url")
    try:
        data = (unpadded + "=" * (-len(unpadded) % 4)).encode("ascii")
        # strict_mode (Python 3.11+): only the alphabet, padding only at the end, exact length.
        return binascii.a2b_base64(data.translate(_TO_STANDARD_ALPHABET), **_STRICT_A2B)
    except (UnicodeEncodeError, binascii.Error):
        raise fail(code, f"{what} is not base64url") from None


def json_object(data: bytes | str, what: str, code: str) -> dict[str, Any]:
    """A JSON object from UTF-8 bytes or text (``_strict_json``: no duplicate keys, no
    deep-nesting crash), at most 1 MiB; anything else raises ``code``."""
    if len(data) > _MAX_JSON_BYTES:
        raise fail(code, f"{what} is longer than {_MAX_JSON_BYTES} bytes")
    return strict_json.json_object(data, what=what, error=partial(fail, code))


def _no_tag(decoder: object, tag: object = None) -> NoReturn:
    raise ValueError("CBOR semantic tags are not allowed")


_STRICT: dict[str, Any] = {
    "semantic_decoders": dict.fromkeys(_CBOR2_SEMANTIC_TAGS, _no_tag),
    "tag_hook": _no_tag,
    "max_depth": _MAX_CBOR_DEPTH,
    "allow_duplicate_keys": False,
}


def cbor_decode(data: bytes, what: str, code: str) -> Any:
    """The first CBOR item of ``data`` (trailing bytes are the caller's business)."""
    return cbor_decode_prefix(data, 0, what, code)[0]


def cbor_decode_prefix(data: bytes, offset: int, what: str, code: str) -> tuple[Any, int]:
    """The CBOR item starting at ``offset`` and the offset just after it."""
    stream = io.BytesIO(data)
    stream.seek(offset)
    try:
        value = cbor2.CBORDecoder(stream, read_size=1, **_STRICT).decode()
    except (cbor2.CBORDecodeError, ValueError, TypeError, RecursionError, MemoryError):
        raise fail(code, f"{what} is not valid CBOR") from None
    return value, stream.tell()


def cbor_map(data: bytes, what: str, code: str) -> Mapping[Any, Any]:
    value = cbor_decode(data, what, code)
    if not isinstance(value, dict):
        raise fail(code, f"{what} is not a CBOR map")
    return value
