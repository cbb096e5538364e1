"""App and boot proofs (formats.md section 16) through ``ewc.proofs``: the upstream known
answers (../shared/upstream-vectors/turnkey-sdk/app_proofs.json: two real app/boot proof pairs
from the infrastructure, with real AWS Nitro attestation documents), the refusals with their
codes, and properties (app proofs signed here verify, ``cryptography`` agreeing; any changed
byte of a real attestation document is refused)."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from datetime import datetime, timedelta, timezone
from typing import Any

import cbor2
import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from embedded_wallet_crypto.proofs import (
    APP_PROOF_SCHEME,
    AWS_NITRO_ROOT_SHA256,
    ProofError,
    verify_app_proof,
    verify_app_proof_against_boot_proof,
    verify_boot_proof,
)
from hypothesis import given, settings
from hypothesis import strategies as st

VECTORS = "turnkey-sdk/app_proofs.json"
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
ENCRYPTION = ewc.KeyPair.from_private_hex("55" * 32)
SIGNING = ewc.KeyPair.from_private_hex("66" * 32)


@pytest.fixture(scope="module")
def upstream() -> dict[str, Any]:
    document: dict[str, Any] = load_upstream_json(VECTORS)
    return document


def code_of(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(ProofError) as caught:
        call(*args, **kwargs)
    assert isinstance(caught.value, ewc.WalletCryptoError)
    return caught.value.code


def app_proof(payload: str = '{"type":"T","timestampMs":"1758058763571"}') -> dict[str, str]:
    r, s = decode_dss_signature(SIGNING.sign(payload.encode()))
    return {
        "scheme": APP_PROOF_SCHEME,
        "publicKey": ENCRYPTION.public_key_hex() + SIGNING.public_key_hex(),
        "proofPayload": payload,
        "signature": (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex(),
    }


def _resolve(document: dict[str, Any], reference: Any) -> Any:
    if isinstance(reference, str) and "." in reference and reference.split(".")[0] in document:
        name, member = reference.split(".", 1)
        return document[name][member]
    return reference


def _inputs(document: dict[str, Any], case: dict[str, Any]) -> tuple[Any, Any]:
    """The case's app proof and boot proof with its replacements applied."""
    source = case["input"]
    app = copy.deepcopy(document[source["app_proof"]]) if "app_proof" in source else None
    boot = copy.deepcopy(document[source["boot_proof"]]) if "boot_proof" in source else None
    for field, reference in source.get("replace", {}).items():
        target = boot if boot is not None and field in boot else app
        assert target is not None
        target[field] = _resolve(document, reference)
    return app, boot


# ---------------------------------------------------------------- upstream known answers


@pytest.mark.upstream
def test_pinned_root_is_the_upstream_root(upstream: dict[str, Any]) -> None:
    root = upstream["aws_nitro_root"]
    assert root["sha256_der_upper_hex"].lower() == AWS_NITRO_ROOT_SHA256
    der = base64.b64decode("".join(root["pem"].strip().splitlines()[1:-1]))
    assert hashlib.sha256(der).hexdigest() == AWS_NITRO_ROOT_SHA256
    assert "".join(ewc.proofs.AWS_NITRO_ROOT_PEM.split()) == "".join(root["pem"].split())


APP_CODES = {
    "app-proof-2-with-public-key-of-1": "PROOF_SIGNATURE_INVALID",
    "app-proof-2-with-payload-of-1": "PROOF_SIGNATURE_INVALID",
    "app-proof-2-with-signature-of-1": "PROOF_SIGNATURE_INVALID",
    "app-proof-1-scheme-invalid": "PROOF_SCHEME_UNSUPPORTED",
    "app-proof-1-public-key-65-bytes": "PROOF_PUBLIC_KEY_INVALID",
}
PAIR_CODES = {
    "pair-2-boot-ephemeral-key-of-1": "PROOF_KEY_MISMATCH",
    "pair-2-attestation-doc-of-1": "PROOF_KEY_MISMATCH",
    "pair-2-random-manifest": "BOOT_PROOF_MANIFEST_MISMATCH",
}


@pytest.mark.upstream
def test_upstream_proofs(upstream: dict[str, Any]) -> None:
    counts = {"app": 0, "pair": 0, "time": 0, "not_applicable": 0}
    for case in upstream["cases"]:
        app, boot = _inputs(upstream, case)
        kind, case_id = case["kind"], case["id"]
        if kind == "app_proof_signature":
            if case["expected"]["valid"]:
                verified = verify_app_proof(app)
                assert verified.public_key.hex() == app["publicKey"]
                assert verified.signing_public_key == verified.public_key[65:]
                assert verified.payload == json.loads(app["proofPayload"])
                assert verify_app_proof(json.dumps(app)) == verified
            else:
                assert code_of(verify_app_proof, app) == APP_CODES[case_id], case_id
            counts["app"] += 1
        elif kind == "app_and_boot_proof":
            at = verify_app_proof(upstream[case["input"]["app_proof"]]).timestamp
            if case_id == "pair-1-boot-created-at-1970":
                # Upstream checks the chain at the boot proof's createdAt (unsigned); here the
                # time is the caller's: at that instant the chain does not verify.
                at_1970 = EPOCH + timedelta(seconds=int(boot["createdAt"]["seconds"]))
                code = code_of(verify_app_proof_against_boot_proof, app, boot, now=at_1970)
                assert code == "BOOT_PROOF_CHAIN_INVALID"
            elif case["expected"]["valid"]:
                verified_app, verified_boot = verify_app_proof_against_boot_proof(app, boot, now=at)
                facts = upstream["derived"][f"{case['input']['boot_proof']}_attestation"]
                assert verified_boot.module_id == facts["module_id"]
                assert verified_boot.timestamp == EPOCH + timedelta(
                    milliseconds=facts["timestamp_ms"]
                )
                assert verified_boot.user_data is not None
                assert verified_boot.user_data.hex() == facts["user_data_hex"]
                assert verified_boot.public_key == verified_app.public_key
                assert len(verified_boot.pcrs) == facts["pcr_count"]
                assert verified_boot.nonce is None
            else:
                code = code_of(verify_app_proof_against_boot_proof, app, boot, now=at)
                assert code == PAIR_CODES[case_id], case_id
            counts["pair"] += 1
        elif kind == "app_proof_time":
            expected = EPOCH + timedelta(milliseconds=case["expected"]["unix_millis"])
            assert verify_app_proof(app).timestamp == expected
            counts["time"] += 1
        else:
            # boot_proof_time: parsing the boot proof's createdAt, which is not signed and not
            # read here (the caller chooses the validation time).
            assert kind == "boot_proof_time"
            counts["not_applicable"] += 1
    assert sum(counts.values()) == len(upstream["cases"])
    report_counts("upstream app/boot proofs", **counts)


@pytest.mark.upstream
def test_real_attestation_validity_window(upstream: dict[str, Any]) -> None:
    facts = upstream["derived"]["boot_proof_1_attestation"]
    document = upstream["boot_proof_1"]["awsAttestationDocB64"]
    not_before = datetime.fromisoformat(facts["leaf_not_before"])
    not_after = datetime.fromisoformat(facts["leaf_not_after"])
    assert verify_boot_proof(document, now=not_before).not_valid_after == not_after
    assert verify_boot_proof(base64.b64decode(document), now=not_after).module_id
    for outside in (not_before - timedelta(seconds=1), not_after + timedelta(seconds=1)):
        assert code_of(verify_boot_proof, document, now=outside) == "BOOT_PROOF_CHAIN_INVALID"
    # Today (the leaf lived three hours in 2025): refused with the default now.
    assert code_of(verify_boot_proof, document) == "BOOT_PROOF_CHAIN_INVALID"


# ---------------------------------------------------------------- boot proof refusals


def _document(upstream: dict[str, Any]) -> tuple[bytes, datetime]:
    raw = base64.b64decode(upstream["boot_proof_1"]["awsAttestationDocB64"])
    at = EPOCH + timedelta(
        milliseconds=upstream["derived"]["boot_proof_1_attestation"]["timestamp_ms"]
    )
    return raw, at


def _rebuilt(raw: bytes, change: Any) -> bytes:
    """The COSE_Sign1 with its parts (and its decoded document) passed through ``change``."""
    protected, unprotected, payload, signature = cbor2.loads(raw)
    document = cbor2.loads(payload)
    parts = change([protected, unprotected, payload, signature], document)
    return cbor2.dumps(parts)


@pytest.mark.upstream
def test_boot_proof_refusals(upstream: dict[str, Any]) -> None:
    raw, at = _document(upstream)
    verify_boot_proof(raw, now=at)
    assert verify_boot_proof(cbor2.dumps(cbor2.CBORTag(18, cbor2.loads(raw))), now=at).module_id

    def bad(data: Any) -> str:
        return code_of(verify_boot_proof, data, now=at)

    assert bad(raw + b"\x00") == "BOOT_PROOF_MALFORMED"
    assert bad(raw[:-1]) == "BOOT_PROOF_MALFORMED"
    assert bad(b"") == "BOOT_PROOF_MALFORMED"
    assert bad(cbor2.dumps(cbor2.CBORTag(98, cbor2.loads(raw)))) == "BOOT_PROOF_MALFORMED"
    assert bad(cbor2.dumps(cbor2.loads(raw)[:3])) == "BOOT_PROOF_MALFORMED"
    text = base64.b64encode(raw).decode()
    assert bad(text + "\n") == "BOOT_PROOF_MALFORMED"
    assert bad(text[:-1]) == "BOOT_PROOF_MALFORMED"
    assert bad(text[:-4] + text[-4:-2] + "==") == "BOOT_PROOF_MALFORMED"
    assert bad(base64.urlsafe_b64encode(raw).decode()) in {"BOOT_PROOF_MALFORMED"}
    assert bad("\ud800") == "BOOT_PROOF_MALFORMED"

    def with_header(header: Any) -> bytes:
        return _rebuilt(raw, lambda p, d: [cbor2.dumps(header), *p[1:]])

    assert bad(with_header({1: -7})) == "BOOT_PROOF_ALGORITHM_UNSUPPORTED"  # ES256
    assert bad(with_header({})) == "BOOT_PROOF_ALGORITHM_UNSUPPORTED"
    # The signed protected header is part of what the signature covers.
    assert bad(with_header({1: -35, 4: b"k"})) == "BOOT_PROOF_SIGNATURE_INVALID"

    def with_document(change: Any) -> bytes:
        def apply(parts: list[Any], document: dict[str, Any]) -> list[Any]:
            change(document)
            return [parts[0], parts[1], cbor2.dumps(document), parts[3]]

        return _rebuilt(raw, apply)

    assert bad(with_document(lambda d: d.update(user_data=b"x" * 32))) == (
        "BOOT_PROOF_SIGNATURE_INVALID"
    )
    assert bad(with_document(lambda d: d.update(public_key=b"y" * 130))) == (
        "BOOT_PROOF_SIGNATURE_INVALID"
    )
    for change in (
        lambda d: d.pop("nonce"),
        lambda d: d.update(extra=1),
        lambda d: d.update(digest="SHA256"),
        lambda d: d.update(timestamp=-1),
        lambda d: d.update(timestamp=1.5),
        lambda d: d.update(module_id=""),
        lambda d: d.update(pcrs={}),
        lambda d: d.update(pcrs={0: b"short"}),
        lambda d: d.update(cabundle=[]),
        lambda d: d.update(certificate=b"not a certificate"),
        lambda d: d.update(user_data=b"u" * 513),
        lambda d: d.update(public_key="text"),
    ):
        assert bad(with_document(change)) in {"BOOT_PROOF_MALFORMED"}, change
    # Chains that do not reach the pinned root.
    assert bad(with_document(lambda d: d.update(cabundle=d["cabundle"][:1]))) == (
        "BOOT_PROOF_CHAIN_INVALID"
    )
    assert bad(
        with_document(lambda d: d.update(cabundle=d["cabundle"][:1] + d["cabundle"][2:]))
    ) == ("BOOT_PROOF_CHAIN_INVALID")
    # The COSE signature: another length, a flipped bit, high r.
    assert bad(_rebuilt(raw, lambda p, d: [*p[:3], p[3][:95]])) == "BOOT_PROOF_SIGNATURE_INVALID"
    flipped = _rebuilt(raw, lambda p, d: [*p[:3], bytes([p[3][0] ^ 1]) + p[3][1:]])
    assert bad(flipped) == "BOOT_PROOF_SIGNATURE_INVALID"
    assert bad(_rebuilt(raw, lambda p, d: [*p[:3], b"\xff" * 96])) == "BOOT_PROOF_SIGNATURE_INVALID"
    with pytest.raises(TypeError):
        verify_boot_proof(raw, now=at.replace(tzinfo=None))
    with pytest.raises(TypeError):
        verify_boot_proof(12)  # type: ignore[arg-type]


@pytest.mark.upstream
@settings(max_examples=40, database=None)
@given(data=st.data())
def test_any_changed_byte_is_refused(upstream: dict[str, Any], data: st.DataObject) -> None:
    raw, at = _document(upstream)
    index = data.draw(st.integers(0, len(raw) - 1), label="index")
    mask = data.draw(st.integers(1, 255), label="mask")
    changed = raw[:index] + bytes([raw[index] ^ mask]) + raw[index + 1 :]
    with pytest.raises(ProofError) as caught:
        verify_boot_proof(changed, now=at)
    assert caught.value.code.startswith("BOOT_PROOF_")


# ---------------------------------------------------------------- app proof refusals


def test_app_proof_refusals() -> None:
    good = app_proof()
    verified = verify_app_proof(good)
    assert verified.proof_type == "T"
    assert verified.encryption_public_key == ENCRYPTION.public_key_bytes()

    def bad(**changes: Any) -> str:
        proof = {**good, **changes}
        return code_of(verify_app_proof, {k: v for k, v in proof.items() if v is not None})

    assert bad(scheme=None) == "PROOF_MALFORMED"
    assert bad(scheme="SIGNATURE_SCHEME_TK_API_P256") == "PROOF_SCHEME_UNSUPPORTED"
    assert bad(publicKey=None) == "PROOF_MALFORMED"
    assert bad(publicKey=good["publicKey"][:-2]) == "PROOF_PUBLIC_KEY_INVALID"
    assert bad(publicKey=good["publicKey"] + "00") == "PROOF_PUBLIC_KEY_INVALID"
    assert bad(publicKey=good["publicKey"][:-1]) == "PROOF_PUBLIC_KEY_INVALID"
    assert bad(publicKey="zz" * 130) == "PROOF_PUBLIC_KEY_INVALID"
    compressed = ENCRYPTION.public_key_hex(compressed=True) + "00" * 32
    assert bad(publicKey=compressed + SIGNING.public_key_hex()) == "PROOF_PUBLIC_KEY_INVALID"
    off_curve = "04" + "00" * 63 + "01"
    assert bad(publicKey=ENCRYPTION.public_key_hex() + off_curve) == "PROOF_PUBLIC_KEY_INVALID"
    swapped = SIGNING.public_key_hex() + ENCRYPTION.public_key_hex()
    assert bad(publicKey=swapped) == "PROOF_SIGNATURE_INVALID"
    assert bad(signature=good["signature"][:-2]) == "PROOF_SIGNATURE_MALFORMED"
    assert bad(signature=good["signature"] + "00") == "PROOF_SIGNATURE_MALFORMED"
    assert bad(signature=" " + good["signature"][1:]) == "PROOF_SIGNATURE_MALFORMED"
    r, s = bytes.fromhex(good["signature"][:64]), bytes.fromhex(good["signature"][64:])
    der = encode_dss_signature(int.from_bytes(r, "big"), int.from_bytes(s, "big")).hex()
    assert bad(signature=der) == "PROOF_SIGNATURE_MALFORMED"
    assert bad(proofPayload=good["proofPayload"] + " ") == "PROOF_SIGNATURE_INVALID"
    assert bad(proofPayload=1) == "PROOF_MALFORMED"
    assert bad(proofPayload="\ud800") == "PROOF_PAYLOAD_INVALID"
    for payload in (
        "[]",
        '{"a":1,"a":2}',
        '{"timestampMs":1758058763571}',
        '{"type":1}',
        '{"timestampMs":"-1"}',
        '{"timestampMs":"9999999999999999"}',
        "not json",
    ):
        assert code_of(verify_app_proof, app_proof(payload)) == "PROOF_PAYLOAD_INVALID", payload
    assert verify_app_proof(app_proof("{}")).timestamp is None
    assert code_of(verify_app_proof, "[]") == "PROOF_MALFORMED"
    assert code_of(verify_app_proof, '{"scheme":"a","scheme":"b"}') == "PROOF_MALFORMED"
    assert code_of(verify_app_proof, "x" * 70000) == "PROOF_MALFORMED"
    with pytest.raises(TypeError):
        verify_app_proof(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        verify_app_proof(json.dumps(good).encode())  # type: ignore[arg-type]


def test_pair_refusals_without_network() -> None:
    good = app_proof()
    boot = {"awsAttestationDocB64": "", "ephemeralPublicKeyHex": "", "qosManifestB64": ""}
    for member in boot:
        broken = {k: v for k, v in boot.items() if k != member}
        assert code_of(verify_app_proof_against_boot_proof, good, broken) == "BOOT_PROOF_MALFORMED"
    assert code_of(verify_app_proof_against_boot_proof, good, boot) == "BOOT_PROOF_MALFORMED"
    assert code_of(verify_app_proof_against_boot_proof, {}, boot) == "PROOF_MALFORMED"


# ---------------------------------------------------------------- properties


@settings(max_examples=50)
@given(payload=st.dictionaries(st.text(max_size=10), st.text(max_size=20), max_size=4))
def test_app_proofs_signed_here_verify_and_agree_with_cryptography(payload: dict[str, str]) -> None:
    payload.pop("timestampMs", None)
    payload.pop("type", None)
    text = json.dumps(payload)
    try:
        text.encode()
    except UnicodeEncodeError:
        assert code_of(verify_app_proof, app_proof(text)) == "PROOF_PAYLOAD_INVALID"
        return
    proof = app_proof(text)
    verified = verify_app_proof(proof)
    assert verified.payload == payload
    # The oracle: cryptography verifies the same r || s over SHA-256 of the payload bytes.
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), verified.signing_public_key)
    raw = verified.signature
    key.verify(
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        text.encode(),
        ec.ECDSA(hashes.SHA256()),
    )
    other = app_proof(text + " ")
    assert code_of(verify_app_proof, {**proof, "signature": other["signature"]}) == (
        "PROOF_SIGNATURE_INVALID"
    )
