"""Secrets at rest: what the service must read back (a TOTP factor's secret, a delegated key's
private key) is kept sealed to the service's own P-256 key, never in the clear.

- a TOTP secret: HPKE (``ewc.hpke.seal``: DHKEM(P-256), HKDF-SHA256, AES-256-GCM) to the
  sealing key's public key, with ``info`` :data:`INFO` and the factor's id as the associated
  data (a sealed secret copied to another row does not open there); stored as
  ``hpke1:<hex of enc || ciphertext>``;
- a delegated key: ``ewc.seal_session_key`` seals the ``KeyPair`` in the core (its private key
  never becomes Python bytes), ``ewc.open_session_key`` gives the ``KeyPair`` back, checked
  against the row's public key;
- a pending TOTP enrollment keeps only the SHA-256 of its secret (the confirmation carries the
  secret; 20 random bytes are not guessable from their hash).

The sealing key is made once per database (``services.shared_secret``, beside the service's
other keys: the OTP hash key, the token signer) and held by each process as a ``KeyPair``. So
the tables that hold the secrets (and their dumps, backups and logs) reveal neither; a copy of
the whole database, the service's key table included, does (a sandbox keeps its keys in its
database; a deployment would hold the sealing key in a KMS)."""

from __future__ import annotations

import hashlib
from typing import Final

from ... import hpke
from ...errors import DecryptionError
from ...keys import KeyPair
from ...session import open_session_key, seal_session_key
from ...totp import TotpSecret
from ..services import Services

__all__ = [
    "INFO",
    "open_key",
    "open_totp_secret",
    "seal_key",
    "seal_totp_secret",
    "secret_digest",
]

#: The HPKE ``info`` of the sealed TOTP secrets.
INFO: Final = b"ewc-sandbox secret at rest v1"
_PREFIX: Final = "hpke1:"
_ENC_BYTES: Final = 65


def seal_totp_secret(services: Services, secret: TotpSecret, factor_id: str) -> str:
    """``secret`` sealed for the factor ``factor_id``."""
    recipient = services.sealing_key.public_key_hex(compressed=False)
    enc, ciphertext = hpke.seal(recipient, secret.key, info=INFO, aad=factor_id.encode())
    return _PREFIX + (enc + ciphertext).hex()


def open_totp_secret(services: Services, stored: str, factor_id: str) -> TotpSecret:
    """The secret of the factor ``factor_id``. Raises ``DecryptionError`` for a value that was
    not sealed for this factor with this database's key."""
    if not stored.startswith(_PREFIX):
        raise DecryptionError("the stored TOTP secret is not sealed")
    sealed = bytes.fromhex(stored[len(_PREFIX) :])
    plain = hpke.open(
        services.sealing_key,
        sealed[:_ENC_BYTES],
        sealed[_ENC_BYTES:],
        info=INFO,
        aad=factor_id.encode(),
    )
    return TotpSecret(plain)


def seal_key(services: Services, key: KeyPair) -> str:
    """``key`` sealed in the core (base58check)."""
    return seal_session_key(services.sealing_key.public_key_hex(compressed=False), key)


def open_key(services: Services, stored: str, public_key: str) -> KeyPair:
    """The key sealed in ``stored``; ``DecryptionError`` unless its public key is
    ``public_key`` (compressed hex: the row's own)."""
    key = open_session_key(stored, services.sealing_key)
    if key.public_key_hex(compressed=True) != public_key:
        raise DecryptionError("the sealed key is not this row's")
    return key


def secret_digest(secret: TotpSecret) -> str:
    """The SHA-256 (hex) a pending enrollment is found by."""
    return hashlib.sha256(secret.key).hexdigest()
