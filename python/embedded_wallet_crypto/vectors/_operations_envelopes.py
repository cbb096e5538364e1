"""The export and OTP envelope operations of the vector files (vectors/README.md), run through
the public Python API: ``export_open``, ``export_seal``, ``otp_target_seal``, ``otp_encrypt``
and ``otp_decrypt``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
from embedded_wallet_crypto import otp, testing

from ._inputs import Inputs, MalformedCase, Mismatch, agree, input_bool, input_bytes, input_text

# vectors/README.md, "Error codes": the exception class each envelope or OTP code comes with.
ENVELOPE_EXCEPTIONS: dict[str, type[ewc.WalletCryptoError]] = {
    code: ewc.EnvelopeError
    for code in (
        "ENVELOPE_MALFORMED",
        "ENVELOPE_DATA_MALFORMED",
        "ENVELOPE_VERSION_UNSUPPORTED",
        "ENVELOPE_UNSIGNED",
        "ENVELOPE_SIGNER_NOT_PINNED",
        "ENVELOPE_SIGNATURE_INVALID",
        "ENVELOPE_ORGANIZATION_MISMATCH",
        "ENVELOPE_USER_MISMATCH",
        "ENVELOPE_TARGET_KEY_INVALID",
        "ENVELOPE_PARAMETERS_INVALID",
    )
} | {"OTP_MALFORMED": ewc.OtpError}
_ENVELOPE_FIELDS = ["version", "data", "dataSignature", "enclaveQuorumPublic"]


def _optional_text(inputs: Inputs, name: str) -> str | None:
    if name not in inputs:
        raise MalformedCase(f"input {name!r} is missing (use null for none)")
    return None if inputs[name] is None else input_text(inputs, name)


def _optional_key(inputs: Inputs, name: str) -> ewc.KeyPair | None:
    if name not in inputs:
        raise MalformedCase(f"input {name!r} is missing (use null for none)")
    if inputs[name] is None:
        return None
    return ewc.KeyPair.from_private_bytes(input_bytes(inputs, name))


def _signed_fields(bundle: str, signer: ewc.KeyPair | None) -> dict[str, str]:
    """The envelope's fields, checked: written in formats.md order, v1.0.0, and the signature
    verifies over the data bytes with the signer (empty fields without one)."""
    envelope = json.loads(bundle)
    if list(envelope) != _ENVELOPE_FIELDS or envelope["version"] != "v1.0.0":
        raise Mismatch(f"the envelope fields are {list(envelope)}, not {_ENVELOPE_FIELDS}")
    signature = envelope["dataSignature"]
    if signer is None:
        if signature != "" or envelope["enclaveQuorumPublic"] != "":
            raise Mismatch("the sandbox form must have empty signature fields")
    elif not ewc.verify_signature(
        signer.public_key_bytes(), bytes.fromhex(envelope["data"]), bytes.fromhex(signature)
    ):
        raise Mismatch("dataSignature does not verify over the data bytes")
    return {"data": envelope["data"], "enclave_quorum_public": envelope["enclaveQuorumPublic"]}


def _export_open(inputs: Inputs) -> dict[str, Any]:
    bundle = input_text(inputs, "bundle")
    client_scalar = input_bytes(inputs, "client_private_key")
    options: dict[str, Any] = {
        "organization_id": _optional_text(inputs, "organization_id"),
        "signer_public_key": input_text(inputs, "signer_public_key"),
        "sandbox": input_bool(inputs, "sandbox"),
    }
    client = ewc.KeyPair.from_private_bytes(client_scalar)
    from_text, from_bytes = agree(
        ("open_export_bundle(str)", lambda: ewc.open_export_bundle(bundle, client, **options)),
        (
            "open_export_bundle(bytes)",
            lambda: ewc.open_export_bundle(bundle.encode(), client_scalar, **options),
        ),
    )
    if from_text != from_bytes:
        raise Mismatch("opening the text and its bytes gave different plaintexts")
    return {"plaintext": from_text.hex()}


def _export_seal(inputs: Inputs) -> dict[str, Any]:
    client_public_key = input_text(inputs, "client_public_key")
    secret = input_bytes(inputs, "secret")
    organization_id = input_text(inputs, "organization_id")
    signer = _optional_key(inputs, "signer_private_key")
    ephemeral = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "ephemeral_private_key"))
    real, fixed = agree(
        (
            "seal_export_bundle",
            lambda: ewc.seal_export_bundle(
                client_public_key, secret, organization_id=organization_id, signer=signer
            ),
        ),
        (
            "seal_export_bundle_deterministic_for_tests",
            lambda: testing.seal_export_bundle_deterministic_for_tests(
                client_public_key,
                secret,
                organization_id=organization_id,
                ephemeral_key=ephemeral,
                signer=signer,
            ),
        ),
    )
    _signed_fields(real, signer)
    return _signed_fields(fixed, signer)


def _otp_target_seal(inputs: Inputs) -> dict[str, Any]:
    target = input_text(inputs, "target_public_key")
    signer = _optional_key(inputs, "signer_private_key")
    organization_id = input_text(inputs, "organization_id")
    user_id = input_text(inputs, "user_id")
    bundle = otp.seal_target_bundle(
        target, organization_id=organization_id, user_id=user_id, signer=signer
    )
    return _signed_fields(bundle, signer)


def _otp_encrypt(inputs: Inputs) -> dict[str, Any]:
    bundle = input_text(inputs, "target_bundle")
    otp_code = input_text(inputs, "otp_code")
    client_public_key = input_text(inputs, "client_public_key")
    ephemeral = ewc.KeyPair.from_private_bytes(input_bytes(inputs, "ephemeral_private_key"))
    options: dict[str, Any] = {
        "signer_public_key": input_text(inputs, "signer_public_key"),
        "sandbox": input_bool(inputs, "sandbox"),
        "organization_id": _optional_text(inputs, "organization_id"),
        "user_id": _optional_text(inputs, "user_id"),
    }
    real, fixed = agree(
        (
            "encrypt_otp_code",
            lambda: otp.encrypt_otp_code(bundle, otp_code, client_public_key, **options),
        ),
        (
            "encrypt_otp_code_deterministic_for_tests",
            lambda: testing.encrypt_otp_code_deterministic_for_tests(
                bundle, otp_code, client_public_key, ephemeral_key=ephemeral, **options
            ),
        ),
    )
    if list(json.loads(real)) != ["encappedPublic", "ciphertext"]:
        raise Mismatch("encrypt_otp_code did not write {encappedPublic, ciphertext}")
    return {"encrypted_otp_bundle": fixed}


def _otp_decrypt(inputs: Inputs) -> dict[str, Any]:
    scalar = input_bytes(inputs, "target_private_key")
    bundle = input_text(inputs, "encrypted_otp_bundle")
    from_handle, from_bytes = agree(
        ("decrypt_otp_bundle(KeyPair)", lambda: otp.decrypt_otp_bundle(bundle, _key(scalar))),
        ("decrypt_otp_bundle(bytes)", lambda: otp.decrypt_otp_bundle(bundle.encode(), scalar)),
    )
    if from_handle != from_bytes:
        raise Mismatch("the KeyPair and the private bytes opened different submissions")
    return {"otp_code": from_handle.otp_code, "public_key": from_handle.public_key}


def _key(scalar: bytes) -> ewc.KeyPair:
    return ewc.KeyPair.from_private_bytes(scalar)


ENVELOPE_OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "export_open": _export_open,
    "export_seal": _export_seal,
    "otp_target_seal": _otp_target_seal,
    "otp_encrypt": _otp_encrypt,
    "otp_decrypt": _otp_decrypt,
}
