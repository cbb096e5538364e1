"""Wallet and private-key import (formats.md section 12), rust/core/src/envelope.rs.

The enclave publishes an import bundle: the signed envelope of section 8 whose data is
``{"targetPublic", "organizationId", "userId"}``. The client checks it like an export envelope
(version, signer pinned, signature over the exact data bytes, organization, user), checks the
secret (a BIP-39 English mnemonic, or a private key in one of the formats of section 13), then
HPKE-seals it to ``targetPublic`` and sends ``{"encappedPublic", "ciphertext"}``; the enclave
opens that with the target key.

The legacy v0 bundle ``{"targetPublic", "targetPublicSignature"}`` (signed over the 65 raw key
bytes) names no organization or user: it is accepted only when the caller passes
``organization_id=None, user_id=None``, its explicit opt-out of those checks.
"""

from __future__ import annotations

from . import _native
from ._types import BytesLike, KeyLike
from .errors import DecodeError
from .export import PRODUCTION_SIGNER_PUBLIC_KEY, check_mnemonic
from .key_formats import KEY_LENGTH, KeyFormat, _format, decode_private_key
from .keys import KeyPair
from .policy import Environment, sandbox_allowed

__all__ = [
    "PASSPHRASE_SEPARATOR",
    "encrypt_private_key_to_bundle",
    "encrypt_wallet_to_bundle",
    "open_import_bundle",
    "seal_import_bundle",
    "wallet_plaintext",
]

#: What the import frame puts between a mnemonic and its BIP-39 passphrase.
PASSPHRASE_SEPARATOR = "\n--PASS--\n"  # noqa: S105 - a separator, not a secret


def seal_import_bundle(
    target_public_key: KeyLike,
    *,
    organization_id: str,
    user_id: str,
    signer: KeyPair | None = None,
) -> str:
    """Server (enclave): the signed import bundle for ``target_public_key``.

    Args:
        target_public_key: the key the client seals to (SEC1 hex or bytes); its private half
            stays with the server, which opens the result with :func:`open_import_bundle`.
        organization_id: written into the signed data (non-empty).
        user_id: written into the signed data; ``""`` for an organization-level import.
        signer: the enclave signing key; None writes the sandbox form (empty signature fields),
            which clients accept only with their sandbox opt-in.

    Raises:
        InvalidKey: the target key is malformed.
        EnvelopeError: ``ENVELOPE_PARAMETERS_INVALID`` for an empty organization id or a
            ``user_id`` that is not a string.
    """
    return _native.seal_import_bundle(target_public_key, organization_id, user_id, signer)


def wallet_plaintext(mnemonic: str | BytesLike, passphrase: str | None = None) -> bytes:
    """The plaintext of a wallet import: the checked mnemonic (words joined by single spaces),
    then ``"\\n--PASS--\\n"`` and the passphrase when one is given, as the import frame writes it.

    Raises:
        DecodeError: ``MNEMONIC_MULTILINE`` (a mnemonic of more than one line: give a
            passphrase as ``passphrase``), or a code of :func:`ewc.export.check_mnemonic`.
        TypeError: ``mnemonic`` is not text or bytes, or ``passphrase`` is neither a ``str``
            nor None.
    """
    if passphrase is not None and not isinstance(passphrase, str):
        raise TypeError(f"passphrase must be str or None, not {type(passphrase).__name__}")
    if not isinstance(mnemonic, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"mnemonic must be str or bytes, not {type(mnemonic).__name__}")
    if not isinstance(mnemonic, str):
        try:
            mnemonic = bytes(mnemonic).decode("utf-8")
        except (UnicodeDecodeError, TypeError):
            raise DecodeError("the mnemonic is not UTF-8 text", "MNEMONIC_NOT_TEXT") from None
    if "\n" in mnemonic.strip():
        raise DecodeError(
            "the mnemonic has more than one line; pass a BIP-39 passphrase as passphrase=",
            "MNEMONIC_MULTILINE",
        )
    words = check_mnemonic(mnemonic)
    if "\n" in words:  # pragma: no cover - check_mnemonic joins with spaces
        raise AssertionError("check_mnemonic returned more than one line")
    text = words + (PASSPHRASE_SEPARATOR + passphrase if passphrase else "")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise DecodeError("the passphrase is not valid Unicode text", "INVALID_TEXT") from None


def _private_key_bytes(private_key: str | BytesLike, key_format: KeyFormat | str) -> bytes:
    chosen = _format(key_format)
    if isinstance(private_key, str):
        return decode_private_key(private_key, chosen)
    if not isinstance(private_key, (bytes, bytearray, memoryview)):
        raise TypeError(f"private_key must be str or bytes, not {type(private_key).__name__}")
    raw = bytes(private_key)
    if len(raw) != KEY_LENGTH:
        raise DecodeError(f"a private key is {KEY_LENGTH} bytes, not {len(raw)}", "INVALID_LENGTH")
    return raw


def _verified_target(
    import_bundle: str | BytesLike,
    *,
    organization_id: str | None,
    user_id: str | None,
    signer_public_key: KeyLike,
    sandbox: bool | Environment | None,
) -> bytes:
    allowed = sandbox_allowed(sandbox)  # a misconfigured `sandbox` fails every call
    return _native.verify_import_bundle(
        import_bundle, signer_public_key, allowed, organization_id, user_id
    )


def _encrypt_wallet(
    import_bundle: str | BytesLike,
    mnemonic: str | BytesLike,
    *,
    organization_id: str | None,
    user_id: str | None,
    signer_public_key: KeyLike,
    sandbox: bool | Environment | None,
    passphrase: str | None,
    ephemeral_key: KeyPair | None = None,
) -> str:
    """The wallet seal; ``ephemeral_key`` only through ``embedded_wallet_crypto.testing``."""
    target = _verified_target(
        import_bundle,
        organization_id=organization_id,
        user_id=user_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
    )
    plaintext = wallet_plaintext(mnemonic, passphrase)
    return _native.seal_to_import_target(target, plaintext, ephemeral_key)


def _encrypt_private_key(
    import_bundle: str | BytesLike,
    private_key: str | BytesLike,
    *,
    key_format: KeyFormat | str,
    organization_id: str | None,
    user_id: str | None,
    signer_public_key: KeyLike,
    sandbox: bool | Environment | None,
    ephemeral_key: KeyPair | None = None,
) -> str:
    """The key seal; ``ephemeral_key`` only through ``embedded_wallet_crypto.testing``."""
    _format(key_format)
    target = _verified_target(
        import_bundle,
        organization_id=organization_id,
        user_id=user_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
    )
    raw = _private_key_bytes(private_key, key_format)
    return _native.seal_to_import_target(target, raw, ephemeral_key)


def encrypt_wallet_to_bundle(
    import_bundle: str | BytesLike,
    mnemonic: str | BytesLike,
    *,
    organization_id: str | None,
    user_id: str | None,
    signer_public_key: KeyLike = PRODUCTION_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
    passphrase: str | None = None,
) -> str:
    """Client: verify the import bundle, check the mnemonic, seal it to the bundle's target.

    Args:
        import_bundle: the import bundle JSON text (or its bytes).
        mnemonic: a BIP-39 English mnemonic (12 to 24 words, checksum checked; words are
            separated by any whitespace and sealed joined by single spaces).
        organization_id: the signed ``organizationId`` must equal it. A required keyword:
            ``None`` skips the check, and a legacy v0 bundle is accepted only when both this
            and ``user_id`` are ``None``.
        user_id: the signed ``userId`` must equal it (``""`` for an organization-level
            import); a required keyword, ``None`` skips the check.
        signer_public_key: the pinned signer (default: the production signer).
        sandbox: allow the unsigned sandbox form (see ``ewc.policy``).
        passphrase: a BIP-39 passphrase, sealed after the mnemonic as the import frame does.

    Returns:
        The encrypted bundle: JSON ``{"encappedPublic", "ciphertext"}`` as the real SDKs write it.

    Raises:
        EnvelopeError: as :func:`ewc.open_export_bundle` for the bundle, plus
            ``ENVELOPE_USER_MISMATCH`` and ``ENVELOPE_TARGET_KEY_INVALID``.
        DecodeError: ``MNEMONIC_*`` for a mnemonic that is not BIP-39 English.
        InvalidKey: ``signer_public_key`` is malformed.
    """
    return _encrypt_wallet(
        import_bundle,
        mnemonic,
        organization_id=organization_id,
        user_id=user_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
        passphrase=passphrase,
    )


def encrypt_private_key_to_bundle(
    import_bundle: str | BytesLike,
    private_key: str | BytesLike,
    *,
    key_format: KeyFormat | str = KeyFormat.HEXADECIMAL,
    organization_id: str | None,
    user_id: str | None,
    signer_public_key: KeyLike = PRODUCTION_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
) -> str:
    """Client: verify the import bundle, decode the key, seal its 32 bytes to the target.

    Args:
        private_key: the key text in ``key_format`` (see :func:`ewc.decode_private_key`), or
            its 32 raw bytes (``key_format`` is then not used).
        key_format: an :class:`ewc.KeyFormat` (or its name).

    The other arguments are those of :func:`encrypt_wallet_to_bundle`.

    Raises:
        EnvelopeError: as :func:`encrypt_wallet_to_bundle`.
        DecodeError: the key text is not a valid key in ``key_format`` (stable codes of
            :func:`ewc.decode_private_key`), or the raw key is not 32 bytes.
        WalletCryptoError: ``KEY_FORMAT_UNSUPPORTED`` for an unknown format.
    """
    return _encrypt_private_key(
        import_bundle,
        private_key,
        key_format=key_format,
        organization_id=organization_id,
        user_id=user_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
    )


def open_import_bundle(encrypted_bundle: str | BytesLike, target_key: KeyPair | BytesLike) -> bytes:
    """Server (enclave): open an encrypted import bundle with the target private key.

    Returns:
        The plaintext: the UTF-8 mnemonic (with ``"\\n--PASS--\\n"`` and a passphrase when the
        client gave one) or the 32 raw key bytes.

    Raises:
        EnvelopeError: ``ENVELOPE_MALFORMED`` (not a JSON object with hex ``encappedPublic`` and
            ``ciphertext``).
        DecryptionError: it was not sealed to this target key, or was altered.
    """
    return _native.open_import_bundle(encrypted_bundle, target_key)
