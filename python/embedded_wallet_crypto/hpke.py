"""HPKE (RFC 9180) mode_base, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM.

The defaults are the wallet profile of formats.md section 1: ``info=b"turnkey_hpke"`` and, when
``aad`` is None, ``aad = enc || recipient public key`` (both 65-byte uncompressed). Pass
``aad=b""`` (or any bytes) for plain RFC 9180 use. All the work happens in rust/core/src/hpke.rs
with the GIL released.
"""

from __future__ import annotations

from typing import Literal

from . import _native
from ._types import BytesLike, KeyLike
from .keys import KeyPair

__all__ = [
    "AEAD_AES_128_GCM",
    "AEAD_AES_256_GCM",
    "DEFAULT_INFO",
    "KDF_HKDF_SHA256",
    "KEM_DHKEM_P256_HKDF_SHA256",
    "Context",
    "derive_key_pair",
    "open",
    "seal",
    "seal_deterministic_for_tests",
    "setup_receiver",
    "setup_sender",
]

DEFAULT_INFO = b"turnkey_hpke"
KEM_DHKEM_P256_HKDF_SHA256: int = _native.KEM_DHKEM_P256_HKDF_SHA256
KDF_HKDF_SHA256: int = _native.KDF_HKDF_SHA256
AEAD_AES_128_GCM: int = _native.AEAD_AES_128_GCM
AEAD_AES_256_GCM: int = _native.AEAD_AES_256_GCM

Aead = Literal[1, 2]
Context = _native.HpkeContext


def seal(
    recipient_public_key: KeyLike,
    plaintext: BytesLike,
    *,
    info: BytesLike = DEFAULT_INFO,
    aad: BytesLike | None = None,
) -> tuple[bytes, bytes]:
    """Seal ``plaintext`` to a P-256 public key with a fresh ephemeral key.

    Returns:
        ``(enc, ciphertext)``: ``enc`` is the 65-byte uncompressed ephemeral public key and
        ``ciphertext`` carries the 16-byte AES-GCM tag.

    Raises:
        InvalidKey: the recipient public key is malformed or not a valid point.
    """
    return _native.hpke_seal(recipient_public_key, plaintext, info, aad)


def open(
    recipient_key: KeyPair | BytesLike,
    enc: KeyLike,
    ciphertext: BytesLike,
    *,
    info: BytesLike = DEFAULT_INFO,
    aad: BytesLike | None = None,
) -> bytes:
    """Open a single-shot HPKE ciphertext with a ``KeyPair`` or 32 private-key bytes.

    ``enc`` may be compressed (33 bytes) or uncompressed (65 bytes), as bytes or hex.

    Raises:
        DecryptionError: with one generic reason, whatever went wrong with enc or ciphertext.
        InvalidKey: ``recipient_key`` itself is not a valid private key.
    """
    return _native.hpke_open(recipient_key, enc, ciphertext, info, aad)


def derive_key_pair(ikm: BytesLike) -> KeyPair:
    """RFC 9180 DeriveKeyPair(ikm) for DHKEM(P-256, HKDF-SHA256): deterministic keys."""
    return _native.hpke_derive_key_pair(ikm)


def seal_deterministic_for_tests(
    recipient_public_key: KeyLike,
    plaintext: BytesLike,
    *,
    ephemeral_key: KeyPair,
    info: BytesLike = DEFAULT_INFO,
    aad: BytesLike | None = None,
) -> tuple[bytes, bytes]:
    """Seal with a caller-chosen ephemeral key. For known-answer vectors only: reusing an
    ephemeral key across messages destroys the confidentiality HPKE provides."""
    return _native.hpke_seal_deterministic_for_tests(
        recipient_public_key, plaintext, ephemeral_key, info, aad
    )


def setup_sender(
    recipient_public_key: KeyLike, *, info: BytesLike = DEFAULT_INFO, aead: Aead = 2
) -> tuple[bytes, Context]:
    """RFC 9180 SetupBaseS: returns ``(enc, context)`` for a multi-message sender context.

    (RFC 9180's known-answer tests fix the ephemeral key through
    ``embedded_wallet_crypto.testing.setup_sender_deterministic_for_tests``.)
    """
    return _native.hpke_setup_sender(recipient_public_key, info, aead, None)


def setup_receiver(
    recipient_key: KeyPair | BytesLike,
    enc: KeyLike,
    *,
    info: BytesLike = DEFAULT_INFO,
    aead: Aead = 2,
) -> Context:
    """RFC 9180 SetupBaseR: a receiver context with sequence numbers and secret export."""
    return _native.hpke_setup_receiver(recipient_key, enc, info, aead)
