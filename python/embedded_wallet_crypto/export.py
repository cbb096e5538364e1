"""Wallet export envelopes: ``encryptedWalletCredentials`` (formats.md section 8),
rust/core/src/envelope.rs.

The server seals the wallet's secret (the UTF-8 BIP-39 mnemonic, or a raw 32-byte private key)
to the client's fresh ``clientPublicKey`` with HPKE (section 1), puts
``{"encappedPublic", "ciphertext", "organizationId"}`` as hex into ``data`` and signs those data
bytes. The client opens it in a fixed order: version, signer pinned (the embedded
``enclaveQuorumPublic`` must be the pinned key; it is never trusted by itself), the signature
over the exact data bytes, the organization, and only then the decryption.

Legacy v0 (no ``version``: ``{"encappedPublic", "encappedPublicSignature", "ciphertext"}``) is
read, not written: the signature covers the hex-decoded ``encappedPublic`` bytes and is checked
with the pinned key; an ``enclaveQuorumPublic`` it may carry must be the pinned key. A v0
envelope names no organization, so it opens only with ``organization_id=None``; an empty
``encappedPublicSignature`` is the unsigned form, which needs the sandbox like v1's.
"""

from __future__ import annotations

from . import _native
from ._contract import buffer_bytes
from ._types import BytesLike, KeyLike
from .errors import DecodeError
from .key_formats import KeyFormat, _format, encode_private_key
from .keys import KeyPair
from .mnemonic import check_mnemonic, is_valid_mnemonic
from .policy import Environment, sandbox_allowed

__all__ = [
    "PREPRODUCTION_SIGNER_PUBLIC_KEY",
    "PRODUCTION_SIGNER_PUBLIC_KEY",
    "check_mnemonic",
    "is_valid_mnemonic",
    "open_export_bundle",
    "open_export_mnemonic",
    "open_export_private_key",
    "raw_key_hex",
    "seal_export_bundle",
]

#: The production signer (enclave quorum key) of the real infrastructure (formats.md section 8).
PRODUCTION_SIGNER_PUBLIC_KEY = (
    "04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc"
    "8703acd69adca9a4bbf7f5d00d20a5e364b2569"
)
#: The pre-production signer of the real infrastructure (formats.md section 8).
PREPRODUCTION_SIGNER_PUBLIC_KEY = (
    "04f3422b8afbe425d6ece77b8d2469954715a2ff273ab7ac89f1ed70e0a9325eaa1698b4351fd1b23734e65c0b6"
    "a86b62dd49d70b37c94606aac402cbd84353212"
)

Secret = str | BytesLike


def _seal(
    client_public_key: KeyLike,
    secret: Secret,
    organization_id: str,
    signer: KeyPair | None,
    ephemeral_key: KeyPair | None,
) -> str:
    """The seal; ``ephemeral_key`` only through ``embedded_wallet_crypto.testing``."""
    return _native.seal_export_bundle(
        client_public_key, secret, organization_id, signer, ephemeral_key
    )


def seal_export_bundle(
    client_public_key: KeyLike,
    secret: Secret,
    *,
    organization_id: str,
    signer: KeyPair | None = None,
) -> str:
    """Server: seal ``secret`` to the client's key as a v1.0.0 export envelope.

    Args:
        client_public_key: the request's ``clientPublicKey`` (SEC1 hex or bytes).
        secret: the mnemonic (``str``: its UTF-8 bytes) or the raw private key bytes.
        organization_id: written into the signed data (non-ASCII characters as raw UTF-8).
        signer: the enclave signing key; None writes the sandbox form (empty signature fields),
            which clients open only with their sandbox opt-in.

    Returns:
        The ``encryptedWalletCredentials`` JSON text.

    Raises:
        InvalidKey: the client key is malformed or not a valid point.
        EnvelopeError: ``ENVELOPE_PARAMETERS_INVALID`` for an empty ``organization_id``.
    """
    return _seal(client_public_key, secret, organization_id, signer, None)


def open_export_bundle(
    bundle: str | BytesLike,
    client_key: KeyPair | BytesLike,
    *,
    organization_id: str | None = None,
    signer_public_key: KeyLike = PRODUCTION_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
) -> bytes:
    """Client: verify and open an export envelope (v1.0.0, or legacy v0).

    Args:
        bundle: the ``encryptedWalletCredentials`` JSON text (or its bytes).
        client_key: the client's private key (``KeyPair`` or 32 bytes) for the clientPublicKey
            it sent with the export request.
        organization_id: when given, the signed ``organizationId`` must equal it.
        signer_public_key: the pinned signer; the envelope's own ``enclaveQuorumPublic`` must be
            this key. Defaults to the production signer.
        sandbox: allow the unsigned sandbox form (see ``ewc.policy``; None means the process
            default). A signed envelope is verified whatever this says.

    Returns:
        The plaintext: the UTF-8 mnemonic for a wallet export, 32 key bytes for a key export
        (see :func:`check_mnemonic` and :func:`raw_key_hex`).

    Raises:
        EnvelopeError: ``ENVELOPE_MALFORMED``, ``ENVELOPE_VERSION_UNSUPPORTED``,
            ``ENVELOPE_UNSIGNED``, ``ENVELOPE_SIGNER_NOT_PINNED``, ``ENVELOPE_SIGNATURE_INVALID``,
            ``ENVELOPE_DATA_MALFORMED`` or ``ENVELOPE_ORGANIZATION_MISMATCH``.
        DecryptionError: the ciphertext does not open with this client key (an invalid
            ``encappedPublic`` or a truncated ciphertext included).
        InvalidKey: ``signer_public_key`` or ``client_key`` itself is malformed.
    """
    # Resolved first, so a misconfigured `sandbox` fails every call, not only unsigned ones.
    allowed = sandbox_allowed(sandbox)
    return _native.open_export_bundle(
        bundle, client_key, signer_public_key, allowed, organization_id
    )


# --- what clients do with the plaintext ------------------------------------------------------
# (the mnemonic checks, check_mnemonic and is_valid_mnemonic, live in .mnemonic)


def raw_key_hex(plaintext: BytesLike) -> str:
    """The lowercase hex of an exported raw private key (exactly 32 bytes).

    Raises:
        DecodeError: ``INVALID_LENGTH`` when the plaintext is not 32 bytes (a mnemonic, say).
    """
    key = buffer_bytes(plaintext, "plaintext")
    if len(key) != 32:
        raise DecodeError(f"an exported private key is 32 bytes, not {len(key)}", "INVALID_LENGTH")
    return key.hex()


# --- typed opens -----------------------------------------------------------------------------


def open_export_private_key(
    bundle: str | BytesLike,
    client_key: KeyPair | BytesLike,
    *,
    key_format: KeyFormat | str = KeyFormat.HEXADECIMAL,
    organization_id: str | None = None,
    signer_public_key: KeyLike = PRODUCTION_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
) -> str:
    """Client: :func:`open_export_bundle`, then the exported private key (exactly 32 bytes) as
    text in ``key_format`` (formats.md section 13; hex is lowercase without ``0x``).

    Raises:
        EnvelopeError, DecryptionError, InvalidKey: as :func:`open_export_bundle`.
        DecodeError: ``INVALID_LENGTH`` when the plaintext is not 32 bytes (a wallet export).
        WalletCryptoError: ``KEY_FORMAT_UNSUPPORTED`` for an unknown format (before opening).
    """
    chosen = _format(key_format)
    plaintext = open_export_bundle(
        bundle,
        client_key,
        organization_id=organization_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
    )
    return encode_private_key(bytes.fromhex(raw_key_hex(plaintext)), chosen)


def open_export_mnemonic(
    bundle: str | BytesLike,
    client_key: KeyPair | BytesLike,
    *,
    organization_id: str | None = None,
    signer_public_key: KeyLike = PRODUCTION_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
) -> str:
    """Client: :func:`open_export_bundle`, then the exported wallet as checked UTF-8 text.

    The first line must be a BIP-39 English mnemonic (:func:`check_mnemonic`); a wallet with a
    BIP-39 passphrase comes back as the mnemonic, a newline and the passphrase, as the export
    frame shows it. The text is returned as exported.

    Raises:
        EnvelopeError, DecryptionError, InvalidKey: as :func:`open_export_bundle`.
        DecodeError: ``MNEMONIC_NOT_TEXT`` (a key export, say) or another ``MNEMONIC_*`` code.
    """
    plaintext = open_export_bundle(
        bundle,
        client_key,
        organization_id=organization_id,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
    )
    try:
        text = plaintext.decode("utf-8")
    except UnicodeDecodeError:
        raise DecodeError("the exported wallet is not UTF-8 text", "MNEMONIC_NOT_TEXT") from None
    check_mnemonic(text.partition("\n")[0])
    return text
