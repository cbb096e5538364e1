"""P-256 keys and ECDSA signatures (rust/core/src/p256.rs).

``KeyPair`` is a handle: the private scalar stays in Rust and is zeroized when the handle goes,
unless ``private_key_bytes()`` exports it on purpose. ``key_text`` and ``same_public_key``
(in ``_key_text.py``) are the one place that writes a client key as text and compares two keys.
"""

from __future__ import annotations

from . import _native
from ._key_text import key_text, same_public_key
from ._types import BytesLike, KeyLike

__all__ = [
    "KeyPair",
    "compress_public_key",
    "key_text",
    "parse_public_key",
    "same_public_key",
    "verify_signature",
]

KeyPair = _native.KeyPair


def parse_public_key(key: KeyLike) -> bytes:
    """Validate a SEC1 public key (hex or bytes, compressed or not); return 65 uncompressed bytes.

    Raises:
        InvalidKey: wrong length or prefix, a coordinate >= p, off the curve, or the identity.
    """
    return _native.parse_public_key(key)


def compress_public_key(key: KeyLike) -> bytes:
    """Validate a SEC1 public key and return its 33-byte compressed form.

    Raises:
        InvalidKey: as for :func:`parse_public_key`.
    """
    return _native.compress_public_key(key)


def verify_signature(public_key: KeyLike, message: BytesLike, signature_der: BytesLike) -> bool:
    """Verify a DER ECDSA P-256 / SHA-256 signature over ``message``.

    High-S and low-S signatures both verify. Returns False for a well-formed signature that does
    not verify (including r or s out of range).

    Raises:
        InvalidKey: the public key is malformed.
        DecodeError: the signature is not strict DER (BER forms, trailing bytes, bad lengths).
    """
    return _native.verify_signature(public_key, message, signature_der)
