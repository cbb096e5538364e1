"""embedded-wallet-crypto: the cryptography behind self-custodial embedded wallets.

The public names of ``shared/design/API.md``. Hot cryptography runs in the Rust core
(``_native``); this package layers the protocol pieces on top.
"""

from __future__ import annotations

from . import errors, hpke, oidc, otp, passkeys, policy, signed_retry
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
from .export import (
    PREPRODUCTION_SIGNER_PUBLIC_KEY,
    PRODUCTION_SIGNER_PUBLIC_KEY,
    open_export_bundle,
    seal_export_bundle,
)
from .keys import KeyPair, compress_public_key, parse_public_key, verify_signature
from .policy import Environment, default_environment, set_default_environment
from .session import open_session_key, seal_session_key
from .stamps import Stamp, check_payload_binding, create_stamp, verify_stamp, verify_stamps
from .webhooks import sign_webhook, verify_webhook_signature

__all__ = [
    "PREPRODUCTION_SIGNER_PUBLIC_KEY",
    "PRODUCTION_SIGNER_PUBLIC_KEY",
    "DecodeError",
    "DecryptionError",
    "EnvelopeError",
    "Environment",
    "InvalidKey",
    "KeyPair",
    "OidcError",
    "OtpError",
    "PasskeyError",
    "SignedRetryError",
    "Stamp",
    "StampError",
    "WalletCryptoError",
    "__version__",
    "b58check_decode",
    "b58check_encode",
    "b58decode",
    "b58encode",
    "check_payload_binding",
    "compress_public_key",
    "create_stamp",
    "default_environment",
    "errors",
    "hpke",
    "oidc",
    "open_export_bundle",
    "open_session_key",
    "otp",
    "parse_public_key",
    "passkeys",
    "policy",
    "seal_export_bundle",
    "seal_session_key",
    "set_default_environment",
    "sign_webhook",
    "signed_retry",
    "verify_signature",
    "verify_stamp",
    "verify_stamps",
    "verify_webhook_signature",
]
