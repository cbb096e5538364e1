"""embedded-wallet-crypto: the cryptography behind self-custodial embedded wallets.

The library's public names (the API reference of the documentation lists them). Hot
cryptography runs in the Rust core (``_native``); this package layers the protocol pieces on top.

Importing the package loads the core and the light modules only. The heavier stacks (passkeys on
py_webauthn, OIDC on PyJWT, the one-time codes, TOTP and the signed URLs, the signed-retry engine
and the webhooks on ``cryptography``) load on first use of one of their names (PEP 562), so
that a command-line call or a serverless cold start does not pay for what it does not use. So do
the subpackages of the extras: ``client`` (the service's client, on httpx) and ``sandbox`` (the
sandbox service, on FastAPI).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import errors, hpke, policy
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
    ProofError,
    SignedRetryError,
    SignedUrlError,
    StampError,
    TokenError,
    TotpError,
    WalletCryptoError,
    WebhookError,
)
from .export import (
    PREPRODUCTION_SIGNER_PUBLIC_KEY,
    PRODUCTION_SIGNER_PUBLIC_KEY,
    open_export_bundle,
    open_export_mnemonic,
    open_export_private_key,
    seal_export_bundle,
)
from .import_bundles import (
    encrypt_private_key_to_bundle,
    encrypt_wallet_to_bundle,
    open_import_bundle,
    seal_import_bundle,
)
from .key_formats import KeyFormat, decode_private_key, encode_private_key
from .keys import (
    Ed25519KeyPair,
    KeyPair,
    Secp256k1KeyPair,
    compress_public_key,
    der_to_p1363,
    p1363_to_der,
    parse_public_key,
    verify_signature,
)
from .mnemonic import (
    MNEMONIC_WORD_COUNTS,
    check_mnemonic,
    generate_mnemonic,
    is_valid_mnemonic,
    mnemonic_from_entropy,
    mnemonic_to_entropy,
    mnemonic_to_seed,
)
from .policy import Environment, default_environment, set_default_environment
from .session import open_session_key, seal_session_key
from .stamps import (
    STAMP_SCHEME_ED25519,
    STAMP_SCHEME_P256,
    STAMP_SCHEME_SECP256K1,
    Stamp,
    StampSigner,
    check_payload_binding,
    create_stamp,
    verify_stamp,
    verify_stamps,
)

if TYPE_CHECKING:
    from . import (
        client,
        oidc,
        otp,
        passkeys,
        proofs,
        sandbox,
        signed_retry,
        signed_urls,
        tokens,
        totp,
    )
    from .turnkey_webhooks import TurnkeyWebhook, sign_turnkey_webhook, verify_turnkey_webhook
    from .webhooks import sign_webhook, verify_webhook_signature

# name -> (module, attribute or None for the module itself), loaded on first use.
_LAZY: dict[str, tuple[str, str | None]] = {
    "client": (".client", None),  # needs the client extra; ImportError names it
    "oidc": (".oidc", None),
    "otp": (".otp", None),
    "passkeys": (".passkeys", None),
    "proofs": (".proofs", None),
    "sandbox": (".sandbox", None),  # its names need the sandbox extra; ImportError names it
    "signed_retry": (".signed_retry", None),
    "signed_urls": (".signed_urls", None),
    "tokens": (".tokens", None),
    "totp": (".totp", None),
    "sign_webhook": (".webhooks", "sign_webhook"),
    "verify_webhook_signature": (".webhooks", "verify_webhook_signature"),
    "TurnkeyWebhook": (".turnkey_webhooks", "TurnkeyWebhook"),
    "sign_turnkey_webhook": (".turnkey_webhooks", "sign_turnkey_webhook"),
    "verify_turnkey_webhook": (".turnkey_webhooks", "verify_turnkey_webhook"),
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    module = importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "MNEMONIC_WORD_COUNTS",
    "PREPRODUCTION_SIGNER_PUBLIC_KEY",
    "PRODUCTION_SIGNER_PUBLIC_KEY",
    "STAMP_SCHEME_ED25519",
    "STAMP_SCHEME_P256",
    "STAMP_SCHEME_SECP256K1",
    "DecodeError",
    "DecryptionError",
    "Ed25519KeyPair",
    "EnvelopeError",
    "Environment",
    "InvalidKey",
    "KeyFormat",
    "KeyPair",
    "OidcError",
    "OtpError",
    "PasskeyError",
    "ProofError",
    "Secp256k1KeyPair",
    "SignedRetryError",
    "SignedUrlError",
    "Stamp",
    "StampError",
    "StampSigner",
    "TokenError",
    "TotpError",
    "TurnkeyWebhook",
    "WalletCryptoError",
    "WebhookError",
    "__version__",
    "b58check_decode",
    "b58check_encode",
    "b58decode",
    "b58encode",
    "check_mnemonic",
    "check_payload_binding",
    "client",
    "compress_public_key",
    "create_stamp",
    "decode_private_key",
    "default_environment",
    "der_to_p1363",
    "encode_private_key",
    "encrypt_private_key_to_bundle",
    "encrypt_wallet_to_bundle",
    "errors",
    "generate_mnemonic",
    "hpke",
    "is_valid_mnemonic",
    "mnemonic_from_entropy",
    "mnemonic_to_entropy",
    "mnemonic_to_seed",
    "oidc",
    "open_export_bundle",
    "open_export_mnemonic",
    "open_export_private_key",
    "open_import_bundle",
    "open_session_key",
    "otp",
    "p1363_to_der",
    "parse_public_key",
    "passkeys",
    "policy",
    "proofs",
    "sandbox",
    "seal_export_bundle",
    "seal_import_bundle",
    "seal_session_key",
    "set_default_environment",
    "sign_turnkey_webhook",
    "sign_webhook",
    "signed_retry",
    "signed_urls",
    "tokens",
    "totp",
    "verify_signature",
    "verify_stamp",
    "verify_stamps",
    "verify_turnkey_webhook",
    "verify_webhook_signature",
]
