"""Session keys: ``encryptedSessionSigningKey`` (formats.md section 3), rust/core/src/session.rs.

The server seals a fresh session key to the client's uncompressed ``clientPublicKey``; the
client opens it with the ephemeral key it generated. A compressed ``clientPublicKey`` selects the
client-held-key flow, in which the client's own key is the session key and nothing is sealed.
"""

from __future__ import annotations

from . import _native
from ._types import BytesLike, KeyLike
from .keys import KeyPair

__all__ = ["open_session_key", "seal_session_key"]


def seal_session_key(client_public_key: KeyLike, session_key: KeyPair) -> str:
    """Server: seal ``session_key`` to the client's uncompressed public key.

    Returns:
        The base58check ``encryptedSessionSigningKey`` (compressed enc, then the ciphertext).

    Raises:
        InvalidKey: the key is malformed or not a valid point; code ``CLIENT_HELD_KEY`` for a
            compressed key, where there is nothing to seal.
    """
    return _native.seal_session_key(client_public_key, session_key)


def open_session_key(
    encrypted_session_signing_key: str, client_key: KeyPair | BytesLike
) -> KeyPair:
    """Client: open an ``encryptedSessionSigningKey`` and return the session key as a handle.

    Raises:
        DecodeError: not base58check, a wrong checksum, or not 81 bytes.
        DecryptionError: it was not sealed to this client key, or was altered.
    """
    return _native.open_session_key(encrypted_session_signing_key, client_key)
