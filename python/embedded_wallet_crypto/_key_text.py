"""A client key as text, and "the same key" in either SEC1 encoding (formats.md section 2).

The encoding a client chose is kept (compressed and uncompressed select different flows), so
the text is the key as given, in lowercase hex, after the core has validated it. Two keys are
the same when they are the same point, whatever their encodings; equal text saves the second
parse, never the first, so a malformed key is never the same as anything.
"""

from __future__ import annotations

from . import _native
from ._contract import buffer_bytes
from ._types import KeyLike
from .errors import InvalidKey

__all__ = ["key_text", "same_public_key"]

_BUFFERS = (bytes, bytearray, memoryview)
_MAX_KEY_BYTES = 65  # uncompressed SEC1; longer is never a key, and is not lowercased or hexed


def key_text(key: KeyLike) -> str:
    """The key as given (compressed or not), in lowercase hex, validated first.

    Raises:
        InvalidKey: as for ``parse_public_key``.
        TypeError: ``key`` is neither text nor a bytes-like object.
    """
    _native.parse_public_key(key)  # InvalidKey before any other work
    return key.lower() if isinstance(key, str) else bytes(key).hex()


def _text_as_given(key: object) -> str | None:
    if isinstance(key, str):
        return key.lower() if len(key) <= 2 * _MAX_KEY_BYTES else None
    if isinstance(key, _BUFFERS):
        raw = buffer_bytes(key, "key")  # TypeError for a released memoryview
        return raw.hex() if len(raw) <= _MAX_KEY_BYTES else None
    return None


def same_public_key(a: KeyLike, b: KeyLike) -> bool:
    """True when ``a`` and ``b`` are the same valid P-256 key: compressed or uncompressed, hex
    (either case) or bytes. False when they differ or either is not a valid key.

    Raises:
        TypeError: a key is neither text nor a bytes-like object.
    """
    try:
        point = _native.parse_public_key(a)
        if _text_as_given(a) == _text_as_given(b):
            return True
        return _native.parse_public_key(b) == point
    except InvalidKey:
        return False
