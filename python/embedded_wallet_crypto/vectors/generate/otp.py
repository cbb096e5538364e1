"""otp.json: encrypted email OTP (formats.md section 9)."""

from __future__ import annotations

import json
from typing import Any

from . import _envelope_writer as w
from . import _reference as ref
from ._common import Case, case, key, seal, vector_file

DESCRIPTION = (
    "Encrypted email OTP (formats.md section 9). otp_target_seal: the otpEncryptionTargetBundle "
    "data {targetPublic, organizationId, userId} the server signs. otp_encrypt: the client "
    "checks the target bundle (version, signer pinned, signature over the data bytes, "
    "organization and user when given; unsigned only with sandbox true), then HPKE-seals "
    '{"otp_code","public_key"} to targetPublic with a fixed ephemeral key and writes '
    "{encappedPublic, ciphertext} once. otp_decrypt: the server opens it with the target key."
)
ORG = "org-vectors"
USER = "User:vectors"
TARGET = "otp-target"
SIGNER = "otp-signer"
CLIENT = "otp-client"
CODE = "123456"
TLS_FETCHER_SIGNER = (
    "046b4f88421f76b6ba418afc2ea1d8ced671337d7db6b80478a60d8531bf8f17fa9a512f0fef96fc0c9b4cd9df"
    "f70b34992e520ce04c79d931f6ff6296b547d201"
)
USER_MISMATCH = "ENVELOPE_USER_MISMATCH"
TARGET_KEY_INVALID = "ENVELOPE_TARGET_KEY_INVALID"


def _target_data(**changes: Any) -> bytes:
    data: dict[str, Any] = {
        "targetPublic": w.public_hex(TARGET),
        "organizationId": ORG,
        "userId": USER,
    }
    for name, value in changes.items():
        if value is None:
            data.pop(name)
        else:
            data[name] = value
    return w.compact(data)


def _sealed(
    ephemeral: str, *, public_key: str | None = None, code: str = CODE, **changes: Any
) -> str:
    """The encryptedOtpBundle the client writes (``changes`` alter the plaintext fields)."""
    plaintext: dict[str, Any] = {
        "otp_code": code,
        "public_key": public_key or w.public_hex(CLIENT),
    }
    plaintext.update(changes)
    enc, ciphertext = seal(key(TARGET)[1], w.compact(plaintext), ephemeral)
    return json.dumps(
        {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()}, separators=(",", ":")
    )


def _encrypt(
    case_id: str,
    bundle: str,
    error: str | None,
    comment: str,
    *,
    otp_code: str = CODE,
    client_public_key: str | None = None,
    signer_public_key: str | None = None,
    sandbox: bool = False,
    organization_id: str | None = ORG,
    user_id: str | None = USER,
) -> Case:
    ephemeral = f"otp-encrypt-{case_id}/ephemeral"
    client = client_public_key or w.public_hex(CLIENT)
    inputs = {
        "target_bundle": bundle,
        "otp_code": otp_code,
        "client_public_key": client,
        "signer_public_key": signer_public_key or w.public_hex(SIGNER),
        "sandbox": sandbox,
        "organization_id": organization_id,
        "user_id": user_id,
        "ephemeral_private_key": w.private_hex(ephemeral),
    }
    expected = None
    if error is None:
        expected = {"encrypted_otp_bundle": _sealed(ephemeral, public_key=client.lower())}
    return case(
        f"otp-encrypt-{case_id}", "otp_encrypt", inputs, expected=expected, error=error,
        comment=comment,
    )  # fmt: skip


def _encrypt_cases() -> list[Case]:
    data = _target_data()
    signed = w.envelope(data, SIGNER)
    changed = data.replace(b"User:vectors", b"User:vectorz")
    off_curve = w.point_off_curve(TARGET).hex()
    compressed_client = ref.compress(key(CLIENT)[1]).hex()
    # (id, target bundle, error or None, comment, other inputs)
    table: list[tuple[str, str, str | None, str, dict[str, Any]]] = [
        ("signed", signed, None, "a signed target bundle, organization and user checked", {}),
        ("high-s", w.envelope(data, SIGNER, high_s=True), None, "a high-S signature", {}),
        ("no-organization-user-check", signed, None, "organization_id and user_id null",
         {"organization_id": None, "user_id": None}),
        ("compressed-client-key", signed, None, "public_key bound in its compressed form",
         {"client_public_key": compressed_client}),
        ("upper-case-client-key", signed, None, "the client key in upper-case hex: written lower",
         {"client_public_key": w.public_hex(CLIENT).upper()}),
        ("sandbox-opt-in", w.envelope(data, None), None,
         "the unsigned sandbox form with sandbox true", {"sandbox": True}),
        ("unpinned-signer", w.envelope(data, "otp-impostor"), w.NOT_PINNED,
         "validly signed by a key that is not the pinned one", {}),
        ("tls-fetcher-pinned", signed, w.NOT_PINNED,
         "pinned to the real TLS-fetcher key: this is not it",
         {"signer_public_key": TLS_FETCHER_SIGNER}),
        ("data-one-byte-changed", w.envelope(data, SIGNER, data=changed.hex()),
         w.SIGNATURE_INVALID, "one byte of the data changed, signature kept", {}),
        ("target-swapped", w.envelope(data, SIGNER, data=_target_data(
            targetPublic=w.public_hex("otp-impostor")).hex()), w.SIGNATURE_INVALID,
         "targetPublic swapped for an attacker's key, signature kept", {}),
        ("signature-stripped", w.envelope(data, SIGNER, dataSignature=""), w.SIGNATURE_INVALID,
         "dataSignature emptied, enclaveQuorumPublic kept", {}),
        ("signature-without-signer", w.envelope(data, SIGNER, enclaveQuorumPublic=""),
         w.UNSIGNED, "a signature but no enclaveQuorumPublic, sandbox true: not the sandbox form",
         {"sandbox": True}),
        ("sandbox-no-opt-in", w.envelope(data, None), w.UNSIGNED,
         "the unsigned sandbox form without the sandbox opt-in", {}),
        ("bad-version", w.envelope(data, SIGNER, version="v0.9.0"), w.VERSION_UNSUPPORTED,
         "version v0.9.0", {}),
        ("no-version", w.envelope(data, SIGNER, version=None), w.VERSION_UNSUPPORTED,
         "no version (target bundles have no legacy form)", {}),
        ("data-missing-user", w.envelope(_target_data(userId=None), SIGNER), w.DATA_MALFORMED,
         "signed data without userId", {}),
        ("target-off-curve", w.envelope(_target_data(targetPublic=off_curve), SIGNER),
         TARGET_KEY_INVALID, "targetPublic 04 || x || y+1, not on the curve (signed)", {}),
        ("wrong-organization", signed, w.ORGANIZATION_MISMATCH, "expected org-other",
         {"organization_id": "org-other"}),
        ("wrong-user", signed, USER_MISMATCH, "expected User:other", {"user_id": "User:other"}),
        ("code-with-space", signed, "OTP_MALFORMED", "an OTP code with a space",
         {"otp_code": "123 456"}),
        ("code-empty", signed, "OTP_MALFORMED", "an empty OTP code", {"otp_code": ""}),
        ("client-key-off-curve", signed, "INVALID_POINT", "a client key off the curve",
         {"client_public_key": w.point_off_curve(CLIENT).hex()}),
        ("not-json", signed[:-1], w.MALFORMED, "the bundle JSON cut short", {}),
        ("encoded-twice", json.dumps(signed), w.MALFORMED, "the bundle JSON-encoded twice", {}),
        ("deep-nesting", w.deeply_nested(), w.MALFORMED,
         f"an extra field nested {w.DEEP_NESTING} deep", {}),
    ]  # fmt: skip
    return [
        _encrypt(case_id, bundle, error, comment, **options)
        for case_id, bundle, error, comment, options in table
    ]


def _decrypt(case_id: str, bundle: str, error: str | None, comment: str, **options: Any) -> Case:
    inputs = {
        "target_private_key": w.private_hex(options.get("target", TARGET)),
        "encrypted_otp_bundle": bundle,
    }
    expected = None
    if error is None:
        expected = {"otp_code": CODE, "public_key": w.public_hex(CLIENT)}
    return case(
        f"otp-decrypt-{case_id}", "otp_decrypt", inputs, expected=expected, error=error,
        comment=comment,
    )  # fmt: skip


def _decrypt_cases() -> list[Case]:
    ephemeral = "otp-decrypt/ephemeral"
    bundle = _sealed(ephemeral)
    fields = json.loads(bundle)
    enc, ciphertext = fields["encappedPublic"], fields["ciphertext"]

    def replaced(**changes: str | None) -> str:
        document = {k: v for k, v in (fields | changes).items() if v is not None}
        return json.dumps(document, separators=(",", ":"))

    unauthenticated = w.compact({"otp_code": CODE, "public_key": w.public_hex(CLIENT)})
    no_aad_enc, no_aad_ciphertext = seal(key(TARGET)[1], unauthenticated, ephemeral, aad=b"")
    table: list[tuple[str, str, str | None, str, dict[str, Any]]] = [
        ("profile", bundle, None, "the client's bundle, opened with the target key", {}),
        ("upper-case-hex", replaced(encappedPublic=enc.upper(), ciphertext=ciphertext.upper()),
         None, "encappedPublic and ciphertext in upper-case hex", {}),
        ("extra-plaintext-field", _sealed(ephemeral, extra="ignored"), None,
         "an unknown plaintext field", {}),
        ("wrong-target-key", bundle, w.DECRYPTION, "opened with another target key",
         {"target": "otp-other-target"}),
        ("truncated-ciphertext", replaced(ciphertext=ciphertext[:-2]), w.DECRYPTION,
         "the ciphertext's last byte removed", {}),
        ("encapped-public-off-curve", replaced(encappedPublic=w.point_off_curve(
            "otp-decrypt/ephemeral").hex()), w.DECRYPTION, "encappedPublic not on the curve", {}),
        ("sealed-without-profile-aad", replaced(encappedPublic=no_aad_enc.hex(),
         ciphertext=no_aad_ciphertext.hex()), w.DECRYPTION,
         "sealed as plain RFC 9180 (empty aad) instead of the profile's enc || pkR", {}),
        ("encoded-twice", json.dumps(bundle), w.MALFORMED,
         "the bundle JSON-encoded twice (a JSON string)", {}),
        ("missing-ciphertext", replaced(ciphertext=None), w.MALFORMED, "no ciphertext", {}),
        ("ciphertext-not-hex", replaced(ciphertext="zz" + ciphertext), w.MALFORMED,
         "ciphertext is not hex", {}),
        ("plaintext-missing-public-key", _sealed_without("public_key"), w.DATA_MALFORMED,
         "the sealed JSON has no public_key", {}),
        ("plaintext-invalid-public-key", _sealed(ephemeral, public_key="04" + "00" * 64),
         w.DATA_MALFORMED, "the sealed public_key is not a valid point", {}),
        ("plaintext-code-number", _sealed(ephemeral, otp_code=123456), w.DATA_MALFORMED,
         "the sealed otp_code is a number", {}),
        ("plaintext-not-json", _sealed_raw(b"123456"), w.DATA_MALFORMED,
         "the sealed plaintext is not a JSON object", {}),
    ]  # fmt: skip
    return [
        _decrypt(case_id, bundle, error, comment, **options)
        for case_id, bundle, error, comment, options in table
    ]


def _sealed_raw(plaintext: bytes) -> str:
    enc, ciphertext = seal(key(TARGET)[1], plaintext, "otp-decrypt/raw/ephemeral")
    return json.dumps(
        {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()}, separators=(",", ":")
    )


def _sealed_without(name: str) -> str:
    plaintext = {"otp_code": CODE, "public_key": w.public_hex(CLIENT)}
    del plaintext[name]
    return _sealed_raw(w.compact(plaintext))


def _target_seal(
    case_id: str, error: str | None, comment: str, *, signer: str | None = SIGNER, **inputs: Any
) -> Case:
    all_inputs = {
        "target_public_key": w.public_hex(TARGET),
        "organization_id": ORG,
        "user_id": USER,
        "signer_private_key": w.private_hex(signer) if signer else None,
    } | inputs
    expected = None
    if error is None:
        expected = {
            "data": _target_data().hex(),
            "enclave_quorum_public": w.public_hex(signer) if signer else "",
        }
    return case(
        f"otp-target-seal-{case_id}", "otp_target_seal", all_inputs, expected=expected,
        error=error, comment=comment,
    )  # fmt: skip


def _target_seal_cases() -> list[Case]:
    target = w.public_hex(TARGET)
    return [
        _target_seal("signed", None, "a signed target bundle"),
        _target_seal("sandbox", None, "no signer: the sandbox form", signer=None),
        _target_seal("upper-case-target", None, "targetPublic is written in lowercase",
                     target_public_key=target.upper()),
        _target_seal("target-off-curve", "INVALID_POINT", "a target key off the curve",
                     target_public_key=w.point_off_curve(TARGET).hex()),
        _target_seal("empty-user", "ENVELOPE_PARAMETERS_INVALID", "an empty user id",
                     user_id=""),
    ]  # fmt: skip


def build() -> dict[str, Any]:
    return vector_file(DESCRIPTION, _target_seal_cases() + _encrypt_cases() + _decrypt_cases())
