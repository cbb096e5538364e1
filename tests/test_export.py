"""Wallet export envelopes (formats.md section 8): seal, verify, pin, open; the BIP-39 and raw-key
helpers; ``ewc open-export`` and ``ewc seal-export``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from embedded_wallet_crypto import hpke, policy

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
ORG = "org-1"
SIGNER = ewc.hpke.derive_key_pair(b"test_export signer ikm 000000001")
IMPOSTOR = ewc.hpke.derive_key_pair(b"test_export impostor ikm 0000001")
CLIENT = ewc.KeyPair.generate()
MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"
RAW_KEY = bytes(range(32))


def sealed(secret: str | bytes = MNEMONIC, signer: ewc.KeyPair | None = SIGNER) -> str:
    return ewc.seal_export_bundle(
        CLIENT.public_key_hex(), secret, organization_id=ORG, signer=signer
    )


def opened(bundle: str | bytes, **options: Any) -> bytes:
    options.setdefault("organization_id", ORG)
    options.setdefault("signer_public_key", SIGNER.public_key_hex())
    return ewc.open_export_bundle(bundle, options.pop("client", CLIENT), **options)


def refused(bundle: str | bytes, code: str, **options: Any) -> ewc.EnvelopeError:
    with pytest.raises(ewc.EnvelopeError) as raised:
        opened(bundle, **options)
    assert raised.value.code == code, repr(raised.value)
    assert raised.value.status == 400
    return raised.value


def edited(bundle: str, **fields: Any) -> str:
    """The envelope with fields replaced (None removes one)."""
    document = json.loads(bundle)
    for name, value in fields.items():
        if value is None:
            document.pop(name)
        else:
            document[name] = value
    return json.dumps(document)


def resigned(data: bytes, signer: ewc.KeyPair = SIGNER) -> str:
    """A v1.0.0 envelope around ``data`` signed by ``signer`` (any bytes, valid or not)."""
    return json.dumps(
        {
            "version": "v1.0.0",
            "data": data.hex(),
            "dataSignature": signer.sign(data).hex(),
            "enclaveQuorumPublic": signer.public_key_hex(),
        }
    )


def inner(bundle: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(bytes.fromhex(json.loads(bundle)["data"]))
    return data


def with_inner(bundle: str, **fields: Any) -> str:
    data = inner(bundle)
    for name, value in fields.items():
        if value is None:
            data.pop(name)
        else:
            data[name] = value
    return resigned(json.dumps(data).encode())


# --- the round trip and the wire form --------------------------------------------------------


@pytest.mark.parametrize("secret", [MNEMONIC, MNEMONIC.encode(), RAW_KEY, bytearray(RAW_KEY)])
def test_seal_then_open(secret: str | bytes) -> None:
    plaintext = secret.encode() if isinstance(secret, str) else bytes(secret)
    bundle = sealed(secret)
    assert opened(bundle) == plaintext
    assert opened(bundle.encode()) == plaintext
    assert opened(memoryview(bundle.encode()), client=CLIENT.private_key_bytes()) == plaintext


def test_the_wire_form() -> None:
    bundle = sealed()
    envelope = json.loads(bundle)
    assert list(envelope) == ["version", "data", "dataSignature", "enclaveQuorumPublic"]
    assert envelope["version"] == "v1.0.0"
    assert envelope["enclaveQuorumPublic"] == SIGNER.public_key_hex()
    data = bytes.fromhex(envelope["data"])
    assert list(json.loads(data)) == ["encappedPublic", "ciphertext", "organizationId"]
    assert b" " not in data  # compact JSON
    # The signature is DER over the data bytes, checked by cryptography.
    point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), SIGNER.public_key_bytes())
    point.verify(bytes.fromhex(envelope["dataSignature"]), data, ec.ECDSA(hashes.SHA256()))
    fields = json.loads(data)
    enc = bytes.fromhex(fields["encappedPublic"])
    assert len(enc) == 65 and enc[0] == 4
    assert fields["organizationId"] == ORG
    assert hpke.open(CLIENT, enc, bytes.fromhex(fields["ciphertext"])) == MNEMONIC.encode()


def test_the_sandbox_form_has_empty_signature_fields() -> None:
    envelope = json.loads(sealed(signer=None))
    assert envelope["dataSignature"] == "" and envelope["enclaveQuorumPublic"] == ""


def test_each_seal_uses_a_fresh_ephemeral_key() -> None:
    assert len({inner(sealed())["encappedPublic"] for _ in range(4)}) == 4


def test_seal_refuses_bad_arguments() -> None:
    with pytest.raises(ewc.InvalidKey) as raised:
        ewc.seal_export_bundle("04" + "00" * 64, MNEMONIC, organization_id=ORG)
    assert raised.value.code == "INVALID_POINT"
    with pytest.raises(ewc.EnvelopeError) as empty:
        ewc.seal_export_bundle(CLIENT.public_key_hex(), MNEMONIC, organization_id="")
    assert empty.value.code == "ENVELOPE_PARAMETERS_INVALID"
    with pytest.raises(TypeError):
        ewc.seal_export_bundle(
            CLIENT.public_key_hex(),
            MNEMONIC,
            organization_id=ORG,
            signer=SIGNER.private_key_bytes(),  # type: ignore[arg-type]
        )


def test_constants_are_the_real_signers() -> None:
    assert ewc.PRODUCTION_SIGNER_PUBLIC_KEY.startswith("04cf288fe433cc4e1aa0ce1632feac4ea2")
    assert ewc.PREPRODUCTION_SIGNER_PUBLIC_KEY.endswith("aac402cbd84353212")
    for key in (ewc.PRODUCTION_SIGNER_PUBLIC_KEY, ewc.PREPRODUCTION_SIGNER_PUBLIC_KEY):
        assert ewc.parse_public_key(key).hex() == key  # a valid uncompressed point
    assert ewc.PRODUCTION_SIGNER_PUBLIC_KEY != ewc.PREPRODUCTION_SIGNER_PUBLIC_KEY


def test_production_signer_is_pinned_by_default() -> None:
    bundle = sealed()
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.open_export_bundle(bundle, CLIENT, organization_id=ORG)
    assert raised.value.code == "ENVELOPE_SIGNER_NOT_PINNED"


# --- each check, in order --------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v2.0.0", "v1.0", "", 1, None, ["v1.0.0"]])
def test_version(version: object) -> None:
    bundle = json.loads(sealed())
    bundle["version"] = version
    refused(json.dumps(bundle), "ENVELOPE_VERSION_UNSUPPORTED")


def test_signer_must_be_the_pinned_key() -> None:
    refused(sealed(signer=IMPOSTOR), "ENVELOPE_SIGNER_NOT_PINNED")
    # The pinned key signed, but the envelope names another key: still not pinned.
    refused(
        edited(sealed(), enclaveQuorumPublic=IMPOSTOR.public_key_hex()),
        "ENVELOPE_SIGNER_NOT_PINNED",
    )
    compressed = SIGNER.public_key_hex(compressed=True)
    refused(edited(sealed(), enclaveQuorumPublic=compressed), "ENVELOPE_SIGNER_NOT_PINNED")
    refused(edited(sealed(), enclaveQuorumPublic="not hex"), "ENVELOPE_SIGNER_NOT_PINNED")
    # The pin itself may be given compressed, in upper case or as bytes.
    for pin in (compressed, SIGNER.public_key_hex().upper(), SIGNER.public_key_bytes()):
        assert opened(sealed(), signer_public_key=pin) == MNEMONIC.encode()
    with pytest.raises(ewc.InvalidKey):
        opened(sealed(), signer_public_key="04" + "00" * 64)


def test_signature_over_the_exact_data_bytes() -> None:
    bundle = sealed()
    data = bytes.fromhex(json.loads(bundle)["data"])
    changed = data.replace(ORG.encode(), b"org-2")
    refused(edited(bundle, data=changed.hex()), "ENVELOPE_SIGNATURE_INVALID")
    # The same JSON with other whitespace is other bytes.
    respaced = json.dumps(json.loads(data)).encode()
    refused(edited(bundle, data=respaced.hex()), "ENVELOPE_SIGNATURE_INVALID")
    over_hex_text = SIGNER.sign(data.hex().encode()).hex()
    refused(edited(bundle, dataSignature=over_hex_text), "ENVELOPE_SIGNATURE_INVALID")
    by_impostor = IMPOSTOR.sign(data).hex()
    refused(edited(bundle, dataSignature=by_impostor), "ENVELOPE_SIGNATURE_INVALID")
    for broken in ("", "30", "zz", "00" * 64, json.loads(bundle)["dataSignature"] + "00"):
        refused(edited(bundle, dataSignature=broken), "ENVELOPE_SIGNATURE_INVALID")


def test_high_s_signatures_are_accepted() -> None:
    bundle = json.loads(sealed())
    r, s = decode_dss_signature(bytes.fromhex(bundle["dataSignature"]))
    for form in (min(s, N - s), max(s, N - s)):
        bundle["dataSignature"] = encode_dss_signature(r, form).hex()
        assert opened(json.dumps(bundle)) == MNEMONIC.encode()


def test_hex_in_either_case() -> None:
    envelope = json.loads(sealed())
    upper = {k: v if k == "version" else v.upper() for k, v in envelope.items()}
    assert opened(json.dumps(upper)) == MNEMONIC.encode()


def test_organization() -> None:
    bundle = sealed()
    refused(bundle, "ENVELOPE_ORGANIZATION_MISMATCH", organization_id="org-2")
    refused(bundle, "ENVELOPE_ORGANIZATION_MISMATCH", organization_id="")
    assert opened(bundle, organization_id=None) == MNEMONIC.encode()


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"organizationId": None}, "no organizationId"),
        ({"ciphertext": None}, "no ciphertext"),
        ({"encappedPublic": None}, "no encappedPublic"),
        ({"organizationId": 7}, "a number"),
        ({"ciphertext": "xyz"}, "not hex"),
        ({"encappedPublic": "0"}, "odd length"),
    ],
)
def test_signed_data_fields(fields: dict[str, Any], why: str) -> None:
    refused(with_inner(sealed(), **fields), "ENVELOPE_DATA_MALFORMED")


@pytest.mark.parametrize(
    "data", [b"\xff{}", b"[]", b'"text"', b"", b"{" * 3000, b'{"a":1,"a":2}'], ids=repr
)
def test_signed_data_that_is_not_a_json_object(data: bytes) -> None:
    refused(resigned(data), "ENVELOPE_DATA_MALFORMED")


def test_decryption_failures_stay_decryption_errors() -> None:
    bundle = sealed()
    with pytest.raises(ewc.DecryptionError):
        opened(bundle, client=ewc.KeyPair.generate())
    fields = inner(bundle)
    point = ewc.parse_public_key(fields["encappedPublic"])
    off_curve = point[:-1] + bytes([point[-1] ^ 1])
    for changes in (
        {"ciphertext": fields["ciphertext"][:-2]},
        {"ciphertext": ""},
        {"encappedPublic": off_curve.hex()},
        {"encappedPublic": "04" + "00" * 64},
        {"encappedPublic": ""},
    ):
        with pytest.raises(ewc.DecryptionError) as raised:
            opened(with_inner(bundle, **changes))
        assert raised.value.code == "DECRYPTION_FAILED"


def test_nothing_is_decrypted_before_every_check_passed() -> None:
    # The client key is not even used (a malformed one is InvalidKey) before every envelope
    # check has passed.
    bundle = sealed()
    no_key = b"\x00" * 32
    refused(edited(bundle, dataSignature=""), "ENVELOPE_SIGNATURE_INVALID", client=no_key)
    refused(bundle, "ENVELOPE_ORGANIZATION_MISMATCH", organization_id="org-2", client=no_key)
    refused(sealed(signer=IMPOSTOR), "ENVELOPE_SIGNER_NOT_PINNED", client=no_key)
    with pytest.raises(ewc.InvalidKey):
        opened(bundle, client=no_key)
    assert opened(bundle) == MNEMONIC.encode()


def test_the_first_failed_check_is_reported() -> None:
    impostor = sealed(signer=IMPOSTOR)
    # version before signer, signer before signature, signature before organization.
    refused(edited(impostor, version="v9"), "ENVELOPE_VERSION_UNSUPPORTED")
    refused(impostor, "ENVELOPE_SIGNER_NOT_PINNED", organization_id="org-2")
    tampered = edited(sealed(), dataSignature=IMPOSTOR.sign(b"x").hex())
    refused(tampered, "ENVELOPE_SIGNATURE_INVALID", organization_id="org-2")
    # organization before decryption.
    refused(sealed(), "ENVELOPE_ORGANIZATION_MISMATCH", organization_id="o", client=IMPOSTOR)


# --- sandbox ---------------------------------------------------------------------------------


def test_an_unsigned_envelope_needs_the_sandbox_opt_in() -> None:
    bundle = sealed(signer=None)
    refused(bundle, "ENVELOPE_UNSIGNED")
    refused(bundle, "ENVELOPE_UNSIGNED", sandbox=False)
    refused(bundle, "ENVELOPE_UNSIGNED", sandbox=ewc.Environment.PRODUCTION)
    assert opened(bundle, sandbox=True) == MNEMONIC.encode()
    assert opened(bundle, sandbox=ewc.Environment.SANDBOX) == MNEMONIC.encode()
    # Only both fields empty is the sandbox form.
    refused(
        edited(bundle, enclaveQuorumPublic=SIGNER.public_key_hex()),
        "ENVELOPE_SIGNATURE_INVALID",
        sandbox=True,
    )


def test_an_envelope_naming_no_signer_is_unsigned_whatever_it_carries() -> None:
    """Production refuses the sandbox form like any envelope without a signer (policy.py)."""
    signature_only = edited(sealed(), enclaveQuorumPublic="")
    for sandbox in (None, False, True):
        refused(signature_only, "ENVELOPE_UNSIGNED", sandbox=sandbox)
    magic = refused(sealed(signer=None), "ENVELOPE_UNSIGNED")
    assert magic.reason == refused(signature_only, "ENVELOPE_UNSIGNED").reason


def test_the_process_default_environment_is_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = sealed(signer=None)
    monkeypatch.setattr(policy, "_default", ewc.Environment.SANDBOX)
    assert opened(bundle) == MNEMONIC.encode()
    refused(bundle, "ENVELOPE_UNSIGNED", sandbox=False)
    monkeypatch.setattr(policy, "_default", ewc.Environment.PRODUCTION)
    refused(bundle, "ENVELOPE_UNSIGNED")


def test_a_signed_envelope_is_still_verified_in_sandbox() -> None:
    refused(sealed(signer=IMPOSTOR), "ENVELOPE_SIGNER_NOT_PINNED", sandbox=True)
    refused(edited(sealed(), dataSignature=""), "ENVELOPE_SIGNATURE_INVALID", sandbox=True)
    assert opened(sealed(), sandbox=True) == MNEMONIC.encode()


def test_sandbox_must_be_a_bool_or_environment() -> None:
    with pytest.raises(TypeError):
        opened(sealed(signer=None), sandbox="false")


# --- hostile input ---------------------------------------------------------------------------

HOSTILE: list[tuple[str, Callable[[], str | bytes]]] = [
    ("deep nesting", lambda: '{"version":"v1.0.0","x":' + "[" * 100_000 + "]" * 100_000 + "}"),
    ("huge integer", lambda: '{"version":"v1.0.0","x":' + "9" * 5000 + "}"),
    ("huge float", lambda: '{"version":"v1.0.0","x":1e999}'),
    ("NaN", lambda: '{"version":"v1.0.0","x":NaN}'),
    ("duplicate version", lambda: '{"version":"v1.0.0","version":"v1.0.0"}'),
    ("not UTF-8", lambda: b'{"version":"\xff"}'),
    ("lone surrogate", lambda: '{"version":"\ud800"}'),
    ("too large", lambda: '{"version":"v1.0.0","x":"' + "a" * (1 << 20) + '"}'),
    ("array", lambda: "[]"),
    ("encoded twice", lambda: json.dumps(sealed())),
    ("empty", lambda: ""),
    ("not JSON", lambda: "version=v1.0.0"),
    ("data not hex", lambda: edited(sealed(), data="zz")),
    ("data a number", lambda: edited(sealed(), data=7)),
    ("no dataSignature", lambda: edited(sealed(), dataSignature=None)),
    ("no enclaveQuorumPublic", lambda: edited(sealed(), enclaveQuorumPublic=None)),
]


@pytest.mark.parametrize(("why", "make"), HOSTILE, ids=[why for why, _ in HOSTILE])
def test_hostile_envelopes_are_envelope_errors(why: str, make: Callable[[], str | bytes]) -> None:
    refused(make(), "ENVELOPE_MALFORMED")


def test_a_wrong_input_type_is_an_envelope_error() -> None:
    refused(12345, "ENVELOPE_MALFORMED")  # type: ignore[arg-type]


# --- legacy v0 -------------------------------------------------------------------------------


def legacy(signer: ewc.KeyPair | None = SIGNER, **extra: str) -> str:
    enc, ciphertext = hpke.seal(CLIENT.public_key_bytes(), MNEMONIC.encode())
    fields = {
        "encappedPublic": enc.hex(),
        "encappedPublicSignature": signer.sign(enc).hex() if signer else "",
        "ciphertext": ciphertext.hex(),
    }
    return json.dumps(fields | extra)


def test_legacy_v0_is_read() -> None:
    assert opened(legacy(), organization_id=None) == MNEMONIC.encode()
    with_key = legacy(enclaveQuorumPublic=SIGNER.public_key_hex())
    assert opened(with_key, organization_id=None) == MNEMONIC.encode()
    refused(legacy(IMPOSTOR), "ENVELOPE_SIGNATURE_INVALID", organization_id=None)
    refused(
        legacy(IMPOSTOR, enclaveQuorumPublic=IMPOSTOR.public_key_hex()),
        "ENVELOPE_SIGNER_NOT_PINNED",
        organization_id=None,
    )
    refused(legacy(), "ENVELOPE_ORGANIZATION_MISMATCH")  # it names no organization
    refused(legacy(None), "ENVELOPE_UNSIGNED", organization_id=None)
    assert opened(legacy(None), organization_id=None, sandbox=True) == MNEMONIC.encode()
    refused(
        legacy(None, enclaveQuorumPublic=SIGNER.public_key_hex()),
        "ENVELOPE_SIGNATURE_INVALID",
        organization_id=None,
        sandbox=True,
    )
    refused(json.dumps({"encappedPublic": "04"}), "ENVELOPE_MALFORMED", organization_id=None)
