"""Encrypted email OTP (formats.md section 9): target bundles, the client's encryption and the
server's decryption, each check with its code. The one-time codes are in test_otp_codes.py."""

from __future__ import annotations

import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import otp

ORG = "org-1"
USER = "User:1"
SIGNER = ewc.hpke.derive_key_pair(b"test_otp signer ikm 000000000001")
IMPOSTOR = ewc.hpke.derive_key_pair(b"test_otp impostor ikm 0000000001")
TARGET = ewc.KeyPair.generate()
CLIENT = ewc.KeyPair.generate()


def target_bundle(signer: ewc.KeyPair | None = SIGNER, **changes: Any) -> str:
    bundle = otp.seal_target_bundle(
        TARGET.public_key_hex(), organization_id=ORG, user_id=USER, signer=signer
    )
    if not changes:
        return bundle
    data = json.loads(bytes.fromhex(json.loads(bundle)["data"]))
    for name, value in changes.items():
        if value is None:
            data.pop(name)
        else:
            data[name] = value
    raw = json.dumps(data).encode()
    signer = signer or SIGNER
    return json.dumps(
        {
            "version": "v1.0.0",
            "data": raw.hex(),
            "dataSignature": signer.sign(raw).hex(),
            "enclaveQuorumPublic": signer.public_key_hex(),
        }
    )


def encrypt(bundle: str, code: str = "123456", **options: Any) -> str:
    options.setdefault("signer_public_key", SIGNER.public_key_hex())
    client = options.pop("client_public_key", CLIENT.public_key_hex())
    return otp.encrypt_otp_code(bundle, code, client, **options)


def refused(bundle: str, code: str, **options: Any) -> None:
    with pytest.raises(ewc.EnvelopeError) as raised:
        encrypt(bundle, **options)
    assert raised.value.code == code, repr(raised.value)


# --- target bundles and the client's encryption ----------------------------------------------


def test_target_bundle_form() -> None:
    envelope = json.loads(target_bundle())
    assert list(envelope) == ["version", "data", "dataSignature", "enclaveQuorumPublic"]
    data = bytes.fromhex(envelope["data"])
    assert json.loads(data) == {
        "targetPublic": TARGET.public_key_hex(),
        "organizationId": ORG,
        "userId": USER,
    }
    assert ewc.verify_signature(
        SIGNER.public_key_bytes(), data, bytes.fromhex(envelope["dataSignature"])
    )
    unsigned = json.loads(target_bundle(None))
    assert unsigned["dataSignature"] == unsigned["enclaveQuorumPublic"] == ""
    compressed = otp.seal_target_bundle(
        TARGET.public_key_hex(compressed=True), organization_id=ORG, user_id=USER
    )
    assert bytes.fromhex(json.loads(compressed)["data"]) == data  # written uncompressed


def test_target_bundle_arguments() -> None:
    with pytest.raises(ewc.InvalidKey):
        otp.seal_target_bundle("04" + "00" * 64, organization_id=ORG, user_id=USER)
    for organization_id, user_id in (("", USER), (ORG, "")):
        with pytest.raises(ewc.EnvelopeError) as raised:
            otp.seal_target_bundle(
                TARGET.public_key_hex(), organization_id=organization_id, user_id=user_id
            )
        assert raised.value.code == "ENVELOPE_PARAMETERS_INVALID"


def test_encrypt_then_decrypt() -> None:
    sealed = encrypt(target_bundle(), organization_id=ORG, user_id=USER)
    document = json.loads(sealed)  # encoded once: one json.loads gives the object
    assert list(document) == ["encappedPublic", "ciphertext"]
    assert len(bytes.fromhex(document["encappedPublic"])) == 65
    submission = otp.decrypt_otp_bundle(sealed, TARGET)
    assert submission == otp.OtpSubmission(otp_code="123456", public_key=CLIENT.public_key_hex())
    assert otp.decrypt_otp_bundle(sealed.encode(), TARGET.private_key_bytes()) == submission
    assert "123456" not in repr(submission)
    # The plaintext is exactly {"otp_code", "public_key"} under the section 1 profile.
    enc = bytes.fromhex(document["encappedPublic"])
    plaintext = ewc.hpke.open(TARGET, enc, bytes.fromhex(document["ciphertext"]))
    assert json.loads(plaintext) == {"otp_code": "123456", "public_key": CLIENT.public_key_hex()}


def test_the_client_key_is_bound_in_the_form_given() -> None:
    compressed = CLIENT.public_key_hex(compressed=True)
    for given, bound in (
        (compressed.upper(), compressed),
        (CLIENT.public_key_bytes(), CLIENT.public_key_hex()),
    ):
        sealed = encrypt(target_bundle(), client_public_key=given)
        assert otp.decrypt_otp_bundle(sealed, TARGET).public_key == bound
    with pytest.raises(ewc.InvalidKey):
        encrypt(target_bundle(), client_public_key="04" + "00" * 64)


def test_each_encryption_is_fresh() -> None:
    assert len({encrypt(target_bundle()) for _ in range(3)}) == 3


def test_the_tls_fetcher_signer_is_pinned_by_default() -> None:
    assert otp.TLS_FETCHER_SIGNER_PUBLIC_KEY.startswith("046b4f88421f76b6ba418afc2ea1d8ced6")
    ewc.parse_public_key(otp.TLS_FETCHER_SIGNER_PUBLIC_KEY)
    with pytest.raises(ewc.EnvelopeError) as raised:
        otp.encrypt_otp_code(target_bundle(), "123456", CLIENT.public_key_hex())
    assert raised.value.code == "ENVELOPE_SIGNER_NOT_PINNED"


def test_target_bundle_checks() -> None:
    bundle = target_bundle()
    envelope = json.loads(bundle)
    refused(target_bundle(IMPOSTOR), "ENVELOPE_SIGNER_NOT_PINNED")
    swapped = dict(envelope, data=target_bundle(IMPOSTOR, targetPublic=IMPOSTOR.public_key_hex()))
    swapped["data"] = json.loads(swapped["data"])["data"]
    refused(json.dumps(swapped), "ENVELOPE_SIGNATURE_INVALID")
    refused(json.dumps(dict(envelope, dataSignature="")), "ENVELOPE_SIGNATURE_INVALID")
    refused(json.dumps(dict(envelope, version="v2")), "ENVELOPE_VERSION_UNSUPPORTED")
    refused(
        json.dumps({k: v for k, v in envelope.items() if k != "version"}),
        "ENVELOPE_VERSION_UNSUPPORTED",
    )
    refused(target_bundle(userId=None), "ENVELOPE_DATA_MALFORMED")
    refused(target_bundle(targetPublic=7), "ENVELOPE_DATA_MALFORMED")
    refused(target_bundle(targetPublic="04" + "00" * 64), "ENVELOPE_TARGET_KEY_INVALID")
    refused(bundle, "ENVELOPE_ORGANIZATION_MISMATCH", organization_id="org-2")
    refused(bundle, "ENVELOPE_USER_MISMATCH", user_id="User:2")
    refused("[" + bundle + "]", "ENVELOPE_MALFORMED")
    refused(json.dumps(bundle), "ENVELOPE_MALFORMED")
    refused('{"x":' + "[" * 50_000 + "]" * 50_000 + "}", "ENVELOPE_MALFORMED")


def test_sandbox_target_bundles() -> None:
    unsigned = target_bundle(None)
    refused(unsigned, "ENVELOPE_UNSIGNED")
    sealed = encrypt(unsigned, sandbox=True)
    assert otp.decrypt_otp_bundle(sealed, TARGET).otp_code == "123456"
    refused(target_bundle(IMPOSTOR), "ENVELOPE_SIGNER_NOT_PINNED", sandbox=True)


@pytest.mark.parametrize("code", ["", "12 34", "12345\n", "١٢٣٤٥٦", "x" * 65, 123456])
def test_malformed_codes_are_refused(code: Any) -> None:
    with pytest.raises(ewc.OtpError) as raised:
        encrypt(target_bundle(), code)
    assert raised.value.code == "OTP_MALFORMED"


def test_decrypt_failures() -> None:
    sealed = json.loads(encrypt(target_bundle()))
    with pytest.raises(ewc.DecryptionError):
        otp.decrypt_otp_bundle(json.dumps(sealed), ewc.KeyPair.generate())
    with pytest.raises(ewc.DecryptionError):
        otp.decrypt_otp_bundle(
            json.dumps(dict(sealed, ciphertext=sealed["ciphertext"][:-2])), TARGET
        )
    with pytest.raises(ewc.DecryptionError):
        otp.decrypt_otp_bundle(json.dumps(dict(sealed, encappedPublic="04" + "11" * 64)), TARGET)
    for malformed in (
        json.dumps(json.dumps(sealed)),
        "{}",
        '{"encappedPublic":"zz","ciphertext":""}',
        b"\xff",
        '{"a":' * 2000,
    ):
        with pytest.raises(ewc.EnvelopeError) as raised:
            otp.decrypt_otp_bundle(malformed, TARGET)
        assert raised.value.code == "ENVELOPE_MALFORMED"


@pytest.mark.parametrize(
    "plaintext",
    [
        b"123456",
        b"[]",
        b'{"otp_code":"1"}',
        b'{"otp_code":1,"public_key":"04"}',
        b'{"otp_code":"1","public_key":"0400"}',
        b"\xff",
    ],
)
def test_decrypted_plaintext_must_be_the_submission(plaintext: bytes) -> None:
    enc, ciphertext = ewc.hpke.seal(TARGET.public_key_bytes(), plaintext)
    bundle = json.dumps({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()})
    with pytest.raises(ewc.EnvelopeError) as raised:
        otp.decrypt_otp_bundle(bundle, TARGET)
    assert raised.value.code == "ENVELOPE_DATA_MALFORMED"
