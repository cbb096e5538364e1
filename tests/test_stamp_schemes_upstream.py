"""The upstream files through the Python layer: the Turnkey stamps, Wycheproof secp256k1 (compressed
keys, high-s twins) and Ed25519."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
import pytest
from _stamp_schemes_support import (
    ALL,
    ED,
    K1,
    K1_N,
    code_of,
    write_stamp,
)
from conftest import load_upstream_json, report_counts
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

# --- upstream vectors through the Python layer ----------------------------------------------------


def test_upstream_turnkey_stamps() -> None:
    """The wallet-stamper Ed25519 stamp (deterministic: we write the same header) and the
    secp256k1 EIP-191 stamp, which is another scheme and must not verify as SECP256K1."""
    cases = {c["id"]: c for c in load_upstream_json("turnkey-sdk/api_key_stamps.json")["cases"]}
    ed = cases["ed25519-wallet-stamp"]
    payload = ed["input"]["payload"]
    header = ed["derived"]["stamp_header_value"]
    verified = ewc.verify_stamp(header, payload, schemes=[ED])
    assert verified.public_key == ed["expected"]["stamp_public_key"]
    seed = bytes.fromhex(ed["input"]["solana_secret_key_64_hex"])[:32]
    assert ewc.create_stamp(payload, ewc.Ed25519KeyPair.from_private_bytes(seed)) == header
    eip = cases["secp256k1-eip191-wallet-stamp"]
    public = eip["expected"]["stamp_public_key"]
    signature = bytes.fromhex(eip["expected"]["stamp_signature"])
    as_eip = write_stamp(public, eip["expected"]["stamp_scheme"], signature)
    assert code_of(lambda: ewc.verify_stamp(as_eip, eip["input"]["payload"], schemes=ALL)) == (
        "WALLET_SIGNATURE_MALFORMED"
    )
    as_k1 = write_stamp(public, K1, signature)
    assert code_of(lambda: ewc.verify_stamp(as_k1, eip["input"]["payload"], schemes=ALL)) == (
        "WALLET_SIGNATURE_INVALID"
    )
    report_counts("turnkey-sdk/api_key_stamps.json (stamp schemes)", stamps=2)


def _compress(uncompressed_hex: str) -> bytes:
    point = bytes.fromhex(uncompressed_hex)
    return bytes([0x02 | (point[-1] & 1)]) + point[1:33]


def _is_high_s(signature: bytes) -> bool:
    try:
        r, s = decode_dss_signature(signature)
    except ValueError:
        return False
    return K1_N // 2 < s < K1_N and encode_dss_signature(r, s) == signature


@pytest.mark.parametrize(
    "file",
    [
        "ecdsa_secp256k1_sha256_test.json",
        "ecdsa_secp256k1_sha256_p1363_test.json",
        "ecdsa_secp256k1_sha256_bitcoin_test.json",
    ],
)
def test_wycheproof_secp256k1_stamps(file: str) -> None:
    doc = load_upstream_json(f"wycheproof/{file}")
    p1363, bitcoin = "p1363" in file, "bitcoin" in file
    counts = {"valid": 0, "invalid": 0, "high_s_accepted": 0, "cryptography_agrees": 0}
    failures = []
    for group in doc["testGroups"]:
        compressed = _compress(group["publicKey"]["uncompressed"])
        oracle = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256K1(), compressed)
        for test in group["tests"]:
            msg, sig = bytes.fromhex(test["msg"]), bytes.fromhex(test["sig"])
            der = sig
            if p1363:
                try:
                    der = ewc.p1363_to_der(sig) if len(sig) == 64 else b""
                except ewc.DecodeError:
                    der = b""
            try:
                ewc.verify_stamp(write_stamp(compressed, K1, der), msg, schemes=[K1])
                ours = True
            except ewc.StampError:
                ours = False
            try:
                oracle.verify(der, msg, ec.ECDSA(hashes.SHA256()))
                theirs = True
            except (InvalidSignature, ValueError):
                theirs = False
            expected = test["result"] == "valid"
            if bitcoin and not expected and _is_high_s(der):
                # Stamps accept high-S (formats.md section 4): the verdict of the low-S twin.
                r, s = decode_dss_signature(der)
                twin = write_stamp(compressed, K1, encode_dss_signature(r, K1_N - s))
                expected = ewc.verify_stamps([twin], [msg], schemes=[K1]) == [True]
                counts["high_s_accepted"] += expected
            counts["valid" if test["result"] == "valid" else "invalid"] += 1
            # cryptography is strict about DER too, so it decides every case as we do, except
            # that it parses some BER forms we refuse: those are all Wycheproof-invalid.
            counts["cryptography_agrees"] += ours == theirs
            if ours != expected:
                failures.append(f"tcId {test['tcId']} ({test['comment']}): got {ours}")
    report_counts(f"wycheproof/{file} (stamps)", **counts)
    assert not failures, failures
    assert counts["valid"] > 100


def test_wycheproof_ed25519_stamps() -> None:
    doc = load_upstream_json("wycheproof/ed25519_test.json")
    counts = {"valid": 0, "invalid": 0, "cryptography_agrees": 0}
    failures = []
    stamps, payloads, verdicts = [], [], []
    for group in doc["testGroups"]:
        public = bytes.fromhex(group["publicKey"]["pk"])
        oracle = ed25519.Ed25519PublicKey.from_public_bytes(public)
        for test in group["tests"]:
            msg, sig = bytes.fromhex(test["msg"]), bytes.fromhex(test["sig"])
            stamp = write_stamp(public, ED, sig)
            try:
                ewc.verify_stamp(stamp, msg, schemes=[ED])
                ours = True
            except ewc.StampError:
                ours = False
            try:
                oracle.verify(sig, msg)
                theirs = True
            except InvalidSignature:
                theirs = False
            expected = test["result"] == "valid"
            counts["valid" if expected else "invalid"] += 1
            counts["cryptography_agrees"] += ours == theirs
            stamps.append(stamp)
            payloads.append(msg)
            verdicts.append(expected)
            if ours != expected:
                failures.append(f"tcId {test['tcId']} ({test['comment']}): got {ours}")
    assert ewc.verify_stamps(stamps, payloads, schemes=[ED]) == verdicts
    report_counts("wycheproof/ed25519_test.json (stamps)", **counts)
    assert not failures, failures
    assert counts["cryptography_agrees"] == counts["valid"] + counts["invalid"]
