"""The import and private-key format operations of the vector files (vectors/README.md), run
through the public Python API: ``import_seal``, ``import_encrypt_wallet``,
``import_encrypt_private_key``, ``import_open``, ``private_key_encode``, ``private_key_decode``
and ``export_open_typed``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
from embedded_wallet_crypto import testing

from ._inputs import Inputs, MalformedCase, Mismatch, agree, input_bool, input_bytes, input_text
from ._operations_envelopes import _optional_key, _optional_text, _signed_fields

# vectors/README.md, "Error codes": the exception class each import or key-format code comes with.
IMPORT_EXCEPTIONS: dict[str, type[ewc.WalletCryptoError]] = {
    code: ewc.DecodeError
    for code in (
        "INVALID_BECH32",
        "WIF_VERSION_MISMATCH",
        "WIF_UNCOMPRESSED",
        "WIF_FLAG_INVALID",
        "SOLANA_PUBLIC_KEY_MISMATCH",
        "SUI_PREFIX_MISMATCH",
        "SUI_FLAG_UNSUPPORTED",
        "MNEMONIC_NOT_TEXT",
        "MNEMONIC_WORD_COUNT",
        "MNEMONIC_UNKNOWN_WORD",
        "MNEMONIC_CHECKSUM",
        "MNEMONIC_MULTILINE",
    )
}


def _import_seal(inputs: Inputs) -> dict[str, Any]:
    target = input_text(inputs, "target_public_key")
    signer = _optional_key(inputs, "signer_private_key")
    bundle = ewc.seal_import_bundle(
        target,
        organization_id=input_text(inputs, "organization_id"),
        user_id=input_text(inputs, "user_id"),
        signer=signer,
    )
    return _signed_fields(bundle, signer)


def _client_options(inputs: Inputs) -> dict[str, Any]:
    return {
        "signer_public_key": input_text(inputs, "signer_public_key"),
        "sandbox": input_bool(inputs, "sandbox"),
        "organization_id": _optional_text(inputs, "organization_id"),
        "user_id": _optional_text(inputs, "user_id"),
    }


def _shape(sealed: str) -> None:
    if list(json.loads(sealed)) != ["encappedPublic", "ciphertext"]:
        raise Mismatch("the encrypted bundle is not {encappedPublic, ciphertext}")


def _import_encrypt_wallet(inputs: Inputs) -> dict[str, Any]:
    bundle = input_text(inputs, "import_bundle")
    mnemonic = input_text(inputs, "mnemonic")
    passphrase = _optional_text(inputs, "passphrase")
    ephemeral = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "ephemeral_private_key"))
    options = _client_options(inputs)
    real, fixed = agree(
        (
            "encrypt_wallet_to_bundle",
            lambda: ewc.encrypt_wallet_to_bundle(
                bundle, mnemonic, passphrase=passphrase, **options
            ),
        ),
        (
            "encrypt_wallet_to_bundle_deterministic_for_tests",
            lambda: testing.encrypt_wallet_to_bundle_deterministic_for_tests(
                bundle, mnemonic, ephemeral_key=ephemeral, passphrase=passphrase, **options
            ),
        ),
    )
    _shape(real)
    return {"encrypted_bundle": fixed}


def _import_encrypt_private_key(inputs: Inputs) -> dict[str, Any]:
    bundle = input_text(inputs, "import_bundle")
    private_key = input_text(inputs, "private_key")
    key_format = input_text(inputs, "key_format")
    ephemeral = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "ephemeral_private_key"))
    options = _client_options(inputs)
    real, fixed = agree(
        (
            "encrypt_private_key_to_bundle",
            lambda: ewc.encrypt_private_key_to_bundle(
                bundle, private_key, key_format=key_format, **options
            ),
        ),
        (
            "encrypt_private_key_to_bundle_deterministic_for_tests",
            lambda: testing.encrypt_private_key_to_bundle_deterministic_for_tests(
                bundle, private_key, ephemeral_key=ephemeral, key_format=key_format, **options
            ),
        ),
    )
    _shape(real)
    return {"encrypted_bundle": fixed}


def _import_open(inputs: Inputs) -> dict[str, Any]:
    scalar = input_bytes(inputs, "target_private_key")
    bundle = input_text(inputs, "encrypted_bundle")
    from_handle, from_bytes = agree(
        (
            "open_import_bundle(KeyPair)",
            lambda: ewc.open_import_bundle(bundle, ewc.KeyPair.from_private_bytes(scalar)),
        ),
        ("open_import_bundle(bytes)", lambda: ewc.open_import_bundle(bundle.encode(), scalar)),
    )
    if from_handle != from_bytes:
        raise Mismatch("the KeyPair and the private bytes opened different plaintexts")
    return {"plaintext": from_handle.hex()}


def _private_key_encode(inputs: Inputs) -> dict[str, Any]:
    key = input_bytes(inputs, "private_key")
    key_format = input_text(inputs, "key_format")
    text = ewc.encode_private_key(key, key_format)
    if ewc.decode_private_key(text, key_format) != key:
        raise Mismatch("decode_private_key(encode_private_key(key)) is not the key")
    return {"text": text}


def _private_key_decode(inputs: Inputs) -> dict[str, Any]:
    text = input_text(inputs, "text")
    return {"private_key": ewc.decode_private_key(text, input_text(inputs, "key_format")).hex()}


def _export_open_typed(inputs: Inputs) -> dict[str, Any]:
    bundle = input_text(inputs, "bundle")
    client = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "client_private_key"))
    key_format = _optional_text(inputs, "key_format")
    options: dict[str, Any] = {
        "organization_id": _optional_text(inputs, "organization_id"),
        "signer_public_key": input_text(inputs, "signer_public_key"),
        "sandbox": input_bool(inputs, "sandbox"),
    }
    if key_format is None:
        return {"text": ewc.open_export_mnemonic(bundle, client, **options)}
    if key_format not in {member.value for member in ewc.KeyFormat}:
        raise MalformedCase(f"unknown key_format {key_format!r}")
    return {"text": ewc.open_export_private_key(bundle, client, key_format=key_format, **options)}


IMPORT_OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "import_seal": _import_seal,
    "import_encrypt_wallet": _import_encrypt_wallet,
    "import_encrypt_private_key": _import_encrypt_private_key,
    "import_open": _import_open,
    "private_key_encode": _private_key_encode,
    "private_key_decode": _private_key_decode,
    "export_open_typed": _export_open_typed,
}
