"""Wallet and private-key import (formats.md section 12) and the typed export opens: round
trips through every format, the real production-signed import bundle, and every negative as a
typed error with a stable code."""

from __future__ import annotations

import json

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json
from embedded_wallet_crypto import testing

MNEMONIC = "leaf lady until indicate praise final route toast cake minimum insect unknown"
ORG, USER = "org-import", "user-import"
SIGNER = ewc.KeyPair.from_private_bytes(bytes([7]) * 32)
PINNED = SIGNER.public_key_hex()


@pytest.fixture(scope="module")
def target() -> ewc.KeyPair:
    return ewc.KeyPair.generate()


@pytest.fixture(scope="module")
def bundle(target: ewc.KeyPair) -> str:
    return ewc.seal_import_bundle(
        target.public_key_hex(), organization_id=ORG, user_id=USER, signer=SIGNER
    )


def _export_round_trip(secret: bytes) -> tuple[str, ewc.KeyPair]:
    client = ewc.KeyPair.generate()
    exported = ewc.seal_export_bundle(
        client.public_key_hex(), secret, organization_id=ORG, signer=SIGNER
    )
    return exported, client


def test_wallet_round_trip(target: ewc.KeyPair, bundle: str) -> None:
    sealed = ewc.encrypt_wallet_to_bundle(
        bundle, MNEMONIC, organization_id=ORG, user_id=USER, signer_public_key=PINNED
    )
    assert list(json.loads(sealed)) == ["encappedPublic", "ciphertext"]
    assert sealed.startswith('{"encappedPublic":"04')
    plaintext = ewc.open_import_bundle(sealed, target)
    assert plaintext == MNEMONIC.encode()
    exported, client = _export_round_trip(plaintext)
    opened = ewc.open_export_mnemonic(
        exported, client, organization_id=ORG, signer_public_key=PINNED
    )
    assert opened == MNEMONIC


def test_wallet_with_passphrase(target: ewc.KeyPair, bundle: str) -> None:
    sealed = ewc.encrypt_wallet_to_bundle(
        bundle,
        "  " + MNEMONIC.replace(" ", "\t") + "\n",
        organization_id=ORG,
        user_id=USER,
        signer_public_key=PINNED,
        passphrase="TREZOR é",
    )
    plaintext = ewc.open_import_bundle(sealed.encode(), target.private_key_bytes())
    assert plaintext == (MNEMONIC + "\n--PASS--\nTREZOR é").encode()
    # The export frame's form of a wallet with a passphrase: mnemonic, newline, passphrase.
    exported, client = _export_round_trip((MNEMONIC + "\nTREZOR é").encode())
    text = ewc.open_export_mnemonic(exported, client, signer_public_key=PINNED)
    assert text == MNEMONIC + "\nTREZOR é"


@pytest.mark.parametrize("key_format", list(ewc.KeyFormat))
def test_private_key_round_trip_every_format(
    target: ewc.KeyPair, bundle: str, key_format: ewc.KeyFormat
) -> None:
    key = ewc.KeyPair.generate().private_key_bytes()
    text = ewc.encode_private_key(key, key_format)
    sealed = ewc.encrypt_private_key_to_bundle(
        bundle,
        text,
        key_format=key_format,
        organization_id=ORG,
        user_id=USER,
        signer_public_key=PINNED,
    )
    raw = ewc.open_import_bundle(sealed, target)
    assert raw == key
    exported, client = _export_round_trip(raw)
    opened = ewc.open_export_private_key(
        exported, client, key_format=key_format, organization_id=ORG, signer_public_key=PINNED
    )
    assert opened == text


def test_private_key_bytes_and_org_level(target: ewc.KeyPair) -> None:
    org_bundle = ewc.seal_import_bundle(
        target.public_key_bytes(), organization_id=ORG, user_id="", signer=SIGNER
    )
    key = bytes(range(32))
    sealed = ewc.encrypt_private_key_to_bundle(
        org_bundle, key, organization_id=ORG, user_id="", signer_public_key=PINNED
    )
    assert ewc.open_import_bundle(sealed, target) == key
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.encrypt_private_key_to_bundle(
            org_bundle, key[:31], organization_id=ORG, user_id="", signer_public_key=PINNED
        )
    assert raised.value.code == "INVALID_LENGTH"


def test_deterministic_seal_is_the_sdk_form(target: ewc.KeyPair, bundle: str) -> None:
    ephemeral = ewc.KeyPair.from_private_bytes(bytes([9]) * 32)
    options = {"organization_id": ORG, "user_id": USER, "signer_public_key": PINNED}
    first = testing.encrypt_wallet_to_bundle_deterministic_for_tests(
        bundle, MNEMONIC, ephemeral_key=ephemeral, **options
    )
    again = testing.encrypt_wallet_to_bundle_deterministic_for_tests(
        bundle, MNEMONIC, ephemeral_key=ephemeral, **options
    )
    assert first == again
    enc, ciphertext = ewc.hpke.seal_deterministic_for_tests(
        target.public_key_bytes(), MNEMONIC.encode(), ephemeral_key=ephemeral
    )
    assert first == json.dumps(
        {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()}, separators=(",", ":")
    )
    key_sealed = testing.encrypt_private_key_to_bundle_deterministic_for_tests(
        bundle, "0x" + "11" * 32, ephemeral_key=ephemeral, **options
    )
    assert ewc.open_import_bundle(key_sealed, target) == bytes([0x11]) * 32


def test_sandbox_bundle(target: ewc.KeyPair) -> None:
    sandbox_bundle = ewc.seal_import_bundle(
        target.public_key_hex(), organization_id=ORG, user_id=USER
    )
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.encrypt_wallet_to_bundle(sandbox_bundle, MNEMONIC, organization_id=ORG, user_id=USER)
    assert raised.value.code == "ENVELOPE_UNSIGNED"
    sealed = ewc.encrypt_wallet_to_bundle(
        sandbox_bundle, MNEMONIC, organization_id=ORG, user_id=USER, sandbox=True
    )
    assert ewc.open_import_bundle(sealed, target) == MNEMONIC.encode()


def _tampered(bundle: str) -> str:
    document = json.loads(bundle)
    data = bytes.fromhex(document["data"]).replace(ORG.encode(), b"org-imporT")
    document["data"] = data.hex()
    return json.dumps(document)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"signer_public_key": ewc.PRODUCTION_SIGNER_PUBLIC_KEY}, "ENVELOPE_SIGNER_NOT_PINNED"),
        ({"organization_id": "org-other"}, "ENVELOPE_ORGANIZATION_MISMATCH"),
        ({"user_id": "user-other"}, "ENVELOPE_USER_MISMATCH"),
        ({"user_id": ""}, "ENVELOPE_USER_MISMATCH"),
        ({"tamper": True}, "ENVELOPE_SIGNATURE_INVALID"),
        ({"bundle": "{"}, "ENVELOPE_MALFORMED"),
        ({"bundle": '{"version":"v0.9.0"}'}, "ENVELOPE_VERSION_UNSUPPORTED"),
    ],
)
def test_bundle_negatives(bundle: str, change: dict[str, object], code: str) -> None:
    options: dict[str, object] = {
        "organization_id": ORG,
        "user_id": USER,
        "signer_public_key": PINNED,
    }
    text = bundle
    if change.pop("tamper", False):
        text = _tampered(bundle)
    text = str(change.pop("bundle", text))
    options.update(change)
    for call in (
        lambda: ewc.encrypt_wallet_to_bundle(text, MNEMONIC, **options),  # type: ignore[arg-type]
        lambda: ewc.encrypt_private_key_to_bundle(text, "11" * 32, **options),  # type: ignore[arg-type]
    ):
        with pytest.raises(ewc.EnvelopeError) as raised:
            call()
        assert raised.value.code == code


@pytest.mark.parametrize(
    ("mnemonic", "code"),
    [
        (MNEMONIC.replace("unknown", "abandon"), "MNEMONIC_CHECKSUM"),
        (MNEMONIC.replace("leaf", "leafy"), "MNEMONIC_UNKNOWN_WORD"),
        ("leaf lady", "MNEMONIC_WORD_COUNT"),
        (MNEMONIC + "\nsecret", "MNEMONIC_MULTILINE"),
        (b"\xff\xfe", "MNEMONIC_NOT_TEXT"),
    ],
)
def test_mnemonic_negatives(bundle: str, mnemonic: str | bytes, code: str) -> None:
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.encrypt_wallet_to_bundle(
            bundle, mnemonic, organization_id=ORG, user_id=USER, signer_public_key=PINNED
        )
    assert raised.value.code == code
    assert "leaf" not in str(raised.value)


@pytest.mark.parametrize(
    ("key_format", "text", "code"),
    [
        (
            "BITCOIN_MAINNET_WIF",
            "L1sF5SF3CnCN9gA7vh7MAtbiVu9igdr3C1BYPKZduw4yaezdeXXX",
            "INVALID_CHECKSUM",
        ),
        (
            "BITCOIN_TESTNET_WIF",
            "L1sF5SF3CnCN9gA7vh7MAtbiVu9igdr3C1BYPKZduw4yaezdeCTV",
            "WIF_VERSION_MISMATCH",
        ),
        (
            "BITCOIN_MAINNET_WIF",
            ewc.b58check_encode(b"\x80" + bytes(range(32))),
            "WIF_UNCOMPRESSED",
        ),
        ("SOLANA", ewc.b58encode(bytes(64)), "SOLANA_PUBLIC_KEY_MISMATCH"),
        (
            "SUI_BECH32",
            "sui1qppyysjzgfpyysjzgfpyysjzgfpyysjzgfpyysjzgfpyysjzgfpyyxak2q6",
            "SUI_PREFIX_MISMATCH",
        ),
        (
            "SUI_BECH32",
            "suiprivkey1q9pyysjzgfpyysjzgfpyysjzgfpyysjzgfpyysjzgfpyysjzgfpyy0tjau2",
            "SUI_FLAG_UNSUPPORTED",
        ),
    ],
)
def test_key_negatives(bundle: str, key_format: str, text: str, code: str) -> None:
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.encrypt_private_key_to_bundle(
            bundle,
            text,
            key_format=key_format,
            organization_id=ORG,
            user_id=USER,
            signer_public_key=PINNED,
        )
    assert raised.value.code == code


def test_organization_and_user_are_required_keywords(bundle: str) -> None:
    with pytest.raises(TypeError):
        ewc.encrypt_wallet_to_bundle(bundle, MNEMONIC)  # type: ignore[call-arg]
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.seal_import_bundle(PINNED, organization_id="", user_id="u")
    assert raised.value.code == "ENVELOPE_PARAMETERS_INVALID"
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.seal_import_bundle(PINNED, organization_id="o", user_id=None)  # type: ignore[arg-type]
    assert raised.value.code == "ENVELOPE_PARAMETERS_INVALID"


def test_open_import_negatives(target: ewc.KeyPair, bundle: str) -> None:
    sealed = ewc.encrypt_wallet_to_bundle(
        bundle, MNEMONIC, organization_id=ORG, user_id=USER, signer_public_key=PINNED
    )
    with pytest.raises(ewc.DecryptionError):
        ewc.open_import_bundle(sealed, ewc.KeyPair.generate())
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.open_import_bundle(json.dumps(sealed), target)
    assert raised.value.code == "ENVELOPE_MALFORMED"


def test_typed_open_negatives() -> None:
    exported, client = _export_round_trip(MNEMONIC.encode())
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.open_export_private_key(exported, client, signer_public_key=PINNED)
    assert raised.value.code == "INVALID_LENGTH"
    exported, client = _export_round_trip(bytes(range(32)))
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.open_export_mnemonic(exported, client, signer_public_key=PINNED)
    assert raised.value.code.startswith("MNEMONIC_")
    with pytest.raises(ewc.WalletCryptoError) as raised:
        ewc.open_export_private_key(exported, client, key_format="PEM", signer_public_key=PINNED)
    assert raised.value.code == "KEY_FORMAT_UNSUPPORTED"


# --- the real infrastructure's values ---------------------------------------------------------


def _upstream_import_cases() -> dict[str, dict[str, object]]:
    cases = load_upstream_json("turnkey-sdk/import_bundles.json")["cases"]
    return {case["id"]: case for case in cases}


def test_real_production_import_bundle() -> None:
    case = _upstream_import_cases()["import-bundle-v1-swift"]
    inputs = case["input"]
    assert isinstance(inputs, dict)
    real = inputs["import_bundle"]
    org, user = inputs["organization_id"], inputs["user_id"]
    sealed = ewc.encrypt_wallet_to_bundle(
        real, inputs["mnemonic"], organization_id=org, user_id=user
    )
    document = json.loads(sealed)
    assert len(document["encappedPublic"]) == 130 and len(document["ciphertext"]) % 2 == 0
    for wrong in (
        {"organization_id": "x", "user_id": user},
        {"organization_id": org, "user_id": "x"},
    ):
        with pytest.raises(ewc.EnvelopeError):
            ewc.encrypt_wallet_to_bundle(real, inputs["mnemonic"], **wrong)
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.encrypt_wallet_to_bundle(
            real,
            inputs["mnemonic"],
            organization_id=org,
            user_id=user,
            signer_public_key=ewc.PREPRODUCTION_SIGNER_PUBLIC_KEY,
        )
    assert raised.value.code == "ENVELOPE_SIGNER_NOT_PINNED"


def _v0(case: dict[str, object]) -> str:
    inputs = case["input"]
    assert isinstance(inputs, dict)
    document = {
        "targetPublic": inputs["signed_data_hex"],
        "targetPublicSignature": inputs["signature"],
    }
    if inputs["enclave_quorum_public"] is not None:
        document["enclaveQuorumPublic"] = inputs["enclave_quorum_public"]
    return json.dumps(document)


@pytest.mark.parametrize(
    ("case_id", "code"),
    [
        ("enclave-signature-over-raw-key-valid", None),
        ("enclave-signature-over-raw-key-valid-with-quorum-field", None),
        ("enclave-signature-quorum-field-mismatch", "ENVELOPE_SIGNER_NOT_PINNED"),
        ("enclave-signature-wrong-data", "ENVELOPE_SIGNATURE_INVALID"),
        ("enclave-signature-bad-der", "ENVELOPE_SIGNATURE_INVALID"),
        ("enclave-signature-empty-signature", "ENVELOPE_UNSIGNED"),
    ],
)
def test_legacy_v0_signatures_over_the_raw_key(case_id: str, code: str | None) -> None:
    bundle = _v0(_upstream_import_cases()[case_id])
    options = {"organization_id": None, "user_id": None}
    if code is None:
        sealed = ewc.encrypt_wallet_to_bundle(bundle, MNEMONIC, **options)
        assert sealed.startswith('{"encappedPublic":"04')
        for refused in (
            {"organization_id": "o", "user_id": None},
            {"organization_id": None, "user_id": ""},
        ):
            with pytest.raises(ewc.EnvelopeError) as raised:
                ewc.encrypt_wallet_to_bundle(bundle, MNEMONIC, **refused)
            assert raised.value.code.endswith("_MISMATCH")
        return
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.encrypt_wallet_to_bundle(bundle, MNEMONIC, **options)
    assert raised.value.code == code


def test_doc_example_v0_bundle_is_pre_production() -> None:
    case = _upstream_import_cases()["doc-example-v0-import-bundle"]
    inputs = case["input"]
    assert isinstance(inputs, dict)
    bundle = json.dumps(inputs["import_bundle"])
    for pinned in (ewc.PRODUCTION_SIGNER_PUBLIC_KEY, ewc.PREPRODUCTION_SIGNER_PUBLIC_KEY):
        with pytest.raises(ewc.EnvelopeError):
            ewc.encrypt_wallet_to_bundle(
                bundle, MNEMONIC, organization_id=None, user_id=None, signer_public_key=pinned
            )


def test_real_export_bundle_opens_typed() -> None:
    cases = load_upstream_json("turnkey-sdk/export_and_credential_bundles.json")["cases"]
    case = next(c for c in cases if c["id"] == "export-bundle-v1-mnemonic")
    inputs = case["input"]
    key = bytes.fromhex(inputs["embedded_private_key"])
    text = ewc.open_export_mnemonic(
        inputs["export_bundle"].strip(), key, organization_id=inputs["organization_id"]
    )
    assert text == case["expected"]["result"]


def test_wrong_python_types_are_type_errors(bundle: str) -> None:
    options = {"organization_id": ORG, "user_id": USER, "signer_public_key": PINNED}
    with pytest.raises(TypeError):
        ewc.encrypt_wallet_to_bundle(bundle, 12, **options)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.encrypt_wallet_to_bundle(bundle, MNEMONIC, passphrase=b"x", **options)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.encrypt_private_key_to_bundle(bundle, 12, **options)  # type: ignore[arg-type]
