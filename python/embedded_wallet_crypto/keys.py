"""P-256 keys and ECDSA signatures (rust/core/src/p256.rs), and the key pairs of the other stamp
schemes: secp256k1 (rust/core/src/secp256k1.rs) and Ed25519 (rust/core/src/ed25519.rs).

``KeyPair`` is a handle: the private scalar stays in Rust and is zeroized when the handle goes,
unless ``private_key_bytes()`` exports it on purpose. ``key_text`` and ``same_public_key``
(in ``_key_text.py``) are the one place that writes a client key as text and compares two keys.
"""

from __future__ import annotations

from . import _native
from ._key_text import key_text, same_public_key
from ._types import BytesLike, KeyLike

__all__ = [
    "Ed25519KeyPair",
    "KeyPair",
    "Secp256k1KeyPair",
    "compress_public_key",
    "der_to_p1363",
    "key_text",
    "p1363_to_der",
    "parse_public_key",
    "same_public_key",
    "verify_signature",
]

KeyPair = _native.KeyPair
#: A secp256k1 key pair for ``SIGNATURE_SCHEME_TK_API_SECP256K1`` stamps (formats.md section 15):
#: ``generate()``, ``from_private_bytes(32 bytes)``, ``public_key_hex()`` (compressed, 66 hex),
#: ``sign(message)`` (DER ECDSA over SHA-256), ``scheme``; the secret stays in Rust.
Secp256k1KeyPair = _native.Secp256k1KeyPair
#: An Ed25519 key pair for ``SIGNATURE_SCHEME_TK_API_ED25519`` stamps (formats.md section 15):
#: ``generate()``, ``from_private_bytes(32-byte seed)``, ``public_key_hex()`` (64 hex),
#: ``sign(message)`` (64 bytes over the raw message), ``scheme``; the seed stays in Rust.
Ed25519KeyPair = _native.Ed25519KeyPair


def der_to_p1363(signature: BytesLike) -> bytes:
    """Convert a strict-DER ECDSA P-256 signature to its 64-byte IEEE P1363 form (r || s).

    Raises:
        DecodeError: ``INVALID_SIGNATURE_ENCODING``: not strict DER (BER forms, trailing bytes,
            bad lengths), or r or s wider than 32 bytes.
    """
    return _native.der_to_p1363(signature)


def p1363_to_der(signature: BytesLike) -> bytes:
    """Convert a 64-byte IEEE P1363 ECDSA P-256 signature (r || s) to strict DER.

    Raises:
        DecodeError: ``INVALID_SIGNATURE_ENCODING``: the signature is not 64 bytes.
    """
    return _native.p1363_to_der(signature)


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
