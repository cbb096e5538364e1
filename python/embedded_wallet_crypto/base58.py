"""base58 and base58check, Bitcoin alphabet (rust/core/src/base58.rs).

Decoding is strict: whitespace and characters outside the alphabet are a ``DecodeError``, and so
is a wrong 4-byte double-SHA-256 checksum.
"""

from __future__ import annotations

from . import _native
from ._types import BytesLike

__all__ = ["b58check_decode", "b58check_encode", "b58decode", "b58encode"]


def b58encode(data: BytesLike) -> str:
    """Encode bytes as base58 (leading zero bytes become leading ``1``)."""
    return _native.b58encode(data)


def b58decode(text: str) -> bytes:
    """Decode base58 text. Raises ``DecodeError`` on any character outside the alphabet."""
    return _native.b58decode(text)


def b58check_encode(data: BytesLike) -> str:
    """Append the 4-byte double-SHA-256 checksum and encode as base58 (no version byte)."""
    return _native.b58check_encode(data)


def b58check_decode(text: str) -> bytes:
    """Decode base58check and return the payload. Raises ``DecodeError`` on a bad checksum."""
    return _native.b58check_decode(text)
