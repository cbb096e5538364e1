"""base58 and base58check, Bitcoin alphabet (rust/core/src/base58.rs).

Decoding is strict: whitespace and characters outside the alphabet are a ``DecodeError``, and so
is a wrong 4-byte double-SHA-256 checksum. Decoding is quadratic in the length, so text longer
than :data:`MAX_DECODE_CHARS` (8192 characters, about 6 KB decoded) is refused at once with
``DecodeError`` code ``INVALID_BASE58``: a session key is about 50 characters, and 1 MB of
hostile text would otherwise take seconds. Encoding has no cap.
"""

from __future__ import annotations

from . import _native
from ._types import BytesLike

__all__ = ["MAX_DECODE_CHARS", "b58check_decode", "b58check_encode", "b58decode", "b58encode"]

#: The longest text :func:`b58decode` and :func:`b58check_decode` accept (rust/core/src/base58.rs).
MAX_DECODE_CHARS = 8192


def b58encode(data: BytesLike) -> str:
    """Encode bytes as base58 (leading zero bytes become leading ``1``)."""
    return _native.b58encode(data)


def b58decode(text: str) -> bytes:
    """Decode base58 text of at most :data:`MAX_DECODE_CHARS` characters.

    Raises:
        DecodeError: ``INVALID_BASE58`` for a character outside the alphabet or a longer text.
    """
    return _native.b58decode(text)


def b58check_encode(data: BytesLike) -> str:
    """Append the 4-byte double-SHA-256 checksum and encode as base58 (no version byte)."""
    return _native.b58check_encode(data)


def b58check_decode(text: str) -> bytes:
    """Decode base58check (at most :data:`MAX_DECODE_CHARS` characters); return the payload.

    Raises:
        DecodeError: ``INVALID_BASE58`` as for :func:`b58decode`, ``INVALID_CHECKSUM`` for a
            bad checksum.
    """
    return _native.b58check_decode(text)
