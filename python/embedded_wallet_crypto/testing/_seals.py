"""Test and vector support only: never use this module in production.

The functions here seal (or set up an HPKE sender) with a caller-chosen ephemeral key, so that
known-answer vectors (``ewc vectors generate``, RFC 9180's) come out the same on every run.
Reusing an ephemeral key destroys the confidentiality HPKE provides: a real seal always draws a
fresh one (``ewc.seal_export_bundle``, ``ewc.otp.encrypt_otp_code``). The one deterministic
seal of the public API is ``ewc.hpke.seal_deterministic_for_tests``.
"""

from __future__ import annotations

from .. import _native, export, import_bundles
from .._types import BytesLike, KeyLike
from ..hpke import DEFAULT_INFO, Aead, Context
from ..key_formats import KeyFormat
from ..keys import KeyPair
from ..otp import _encrypted
from ..policy import Environment

__all__ = [
    "encrypt_otp_code_deterministic_for_tests",
    "encrypt_private_key_to_bundle_deterministic_for_tests",
    "encrypt_wallet_to_bundle_deterministic_for_tests",
    "seal_export_bundle_deterministic_for_tests",
    "setup_sender_deterministic_for_tests",
]


def seal_export_bundle_deterministic_for_tests(
    client_public_key: KeyLike,
    secret: str | BytesLike,
    *,
    organization_id: str,
    ephemeral_key: KeyPair,
    signer: KeyPair | None = None,
) -> str:
    """``ewc.seal_export_bundle`` with a fixed HPKE ephemeral key, for known-answer vectors."""
    return export._seal(client_public_key, secret, organization_id, signer, ephemeral_key)


def encrypt_otp_code_deterministic_for_tests(
    target_bundle: str | BytesLike,
    otp_code: str,
    client_public_key: KeyLike,
    *,
    ephemeral_key: KeyPair,
    signer_public_key: KeyLike = _encrypted.TLS_FETCHER_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
    organization_id: str | None = None,
    user_id: str | None = None,
) -> str:
    """``ewc.otp.encrypt_otp_code`` with a fixed HPKE ephemeral key, for known-answer vectors."""
    return _encrypted._encrypt(
        target_bundle,
        otp_code,
        client_public_key,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
        organization_id=organization_id,
        user_id=user_id,
        ephemeral_key=ephemeral_key,
    )


def encrypt_wallet_to_bundle_deterministic_for_tests(
    import_bundle: str | BytesLike,
    mnemonic: str | BytesLike,
    *,
    ephemeral_key: KeyPair,
    organization_id: str | None,
    user_id: str | None,
    signer_public_key: KeyLike = export.PRODUCTION_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
    passphrase: str | None = None,
) -> str:
    """``ewc.encrypt_wallet_to_bundle`` with a caller-chosen HPKE ephemeral key (vectors only)."""
    return import_bundles._encrypt_wallet(
        import_bundle,
        mnemonic,
        organization_id=organization_id,
        user_id=user_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
        passphrase=passphrase,
        ephemeral_key=ephemeral_key,
    )


def encrypt_private_key_to_bundle_deterministic_for_tests(
    import_bundle: str | BytesLike,
    private_key: str | BytesLike,
    *,
    ephemeral_key: KeyPair,
    key_format: KeyFormat | str = KeyFormat.HEXADECIMAL,
    organization_id: str | None,
    user_id: str | None,
    signer_public_key: KeyLike = export.PRODUCTION_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
) -> str:
    """``ewc.encrypt_private_key_to_bundle`` with a caller-chosen HPKE ephemeral key (vectors
    only)."""
    return import_bundles._encrypt_private_key(
        import_bundle,
        private_key,
        key_format=key_format,
        organization_id=organization_id,
        user_id=user_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
        ephemeral_key=ephemeral_key,
    )


def setup_sender_deterministic_for_tests(
    recipient_public_key: KeyLike,
    *,
    ephemeral_key: KeyPair,
    info: BytesLike = DEFAULT_INFO,
    aead: Aead = 2,
) -> tuple[bytes, Context]:
    """``ewc.hpke.setup_sender`` (RFC 9180 SetupBaseS) with a caller-chosen ephemeral key, for
    RFC 9180's known-answer tests only."""
    return _native.hpke_setup_sender(recipient_public_key, info, aead, ephemeral_key)
