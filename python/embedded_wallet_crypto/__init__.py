"""embedded-wallet-crypto: the cryptography behind self-custodial embedded wallets.

The public names of ``shared/design/API.md``. Hot cryptography runs in the Rust core
(``_native``); this package layers the protocol pieces on top.
"""

from __future__ import annotations

from . import errors, hpke
from ._native import __version__
from .base58 import b58check_decode, b58check_encode, b58decode, b58encode
from .errors import (
    DecodeError,
    DecryptionError,
    EnvelopeError,
    InvalidKey,
    OidcError,
    OtpError,
    PasskeyError,
    SignedRetryError,
    StampError,
    WalletCryptoError,
)
from .keys import KeyPair, compress_public_key, parse_public_key, verify_signature

__all__ = [
    "DecodeError",
    "DecryptionError",
    "EnvelopeError",
    "InvalidKey",
    "KeyPair",
    "OidcError",
    "OtpError",
    "PasskeyError",
    "SignedRetryError",
    "StampError",
    "WalletCryptoError",
    "__version__",
    "b58check_decode",
    "b58check_encode",
    "b58decode",
    "b58encode",
    "compress_public_key",
    "errors",
    "hpke",
    "parse_public_key",
    "verify_signature",
]
