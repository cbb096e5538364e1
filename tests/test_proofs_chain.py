"""Boot proofs against a certificate chain generated here, so the chain rules that the real
Nitro documents all pass can be seen failing: a leaf that is a CA, a leaf without the
digitalSignature key usage, a leaf key that is not P-384, an intermediate that is not a CA, a
chain to another root. The pinned root is swapped for the generated one inside each test only
(``monkeypatch``); the real root is tested with the real documents in ``test_proofs.py``."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import Any

import cbor2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID
from embedded_wallet_crypto.proofs import ProofError, _nitro, verify_boot_proof

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _key(label: str, curve: ec.EllipticCurve | None = None) -> ec.EllipticCurvePrivateKey:
    curve = curve or ec.SECP384R1()
    order = {"secp384r1": 2**384, "secp256r1": 2**256}[curve.name]
    scalar = int.from_bytes(hashlib.sha512(label.encode()).digest(), "big") % (order // 2) + 1
    return ec.derive_private_key(scalar, curve)


def _cert(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: str,
    issuer_key: ec.EllipticCurvePrivateKey,
    *,
    ca: bool,
    digital_signature: bool = True,
    with_aki: bool = True,
) -> x509.Certificate:
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())
        .serial_number(int.from_bytes(hashlib.sha256(subject.encode()).digest()[:8], "big"))
        .not_valid_before(NOW - timedelta(days=1))
        .not_valid_after(NOW + timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=digital_signature,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=ca,
                crl_sign=ca,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
    )
    if ca:
        builder = builder.add_extension(
            x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
        )
    if with_aki and subject != issuer:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
            critical=False,
        )
    return builder.sign(issuer_key, hashes.SHA384())


ROOT_KEY = _key("root")
ROOT = _cert("test root", ROOT_KEY, "test root", ROOT_KEY, ca=True)
INTERMEDIATE_KEY = _key("intermediate")
INTERMEDIATE = _cert("test intermediate", INTERMEDIATE_KEY, "test root", ROOT_KEY, ca=True)


def _document(
    leaf: x509.Certificate, leaf_key: Any, intermediates: list[x509.Certificate]
) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding

    payload = cbor2.dumps(
        {
            "module_id": "i-test-enc",
            "digest": "SHA384",
            "timestamp": int(NOW.timestamp() * 1000),
            "pcrs": {index: bytes(48) for index in range(16)},
            "certificate": leaf.public_bytes(Encoding.DER),
            "cabundle": [c.public_bytes(Encoding.DER) for c in [ROOT, *intermediates]],
            "public_key": b"\x04" * 130,
            "user_data": bytes(32),
            "nonce": None,
        }
    )
    protected = cbor2.dumps({1: -35})
    to_sign = cbor2.dumps(["Signature1", protected, b"", payload])
    if isinstance(leaf_key.curve, ec.SECP384R1):
        r, s = decode_dss_signature(leaf_key.sign(to_sign, ec.ECDSA(hashes.SHA384())))
        signature = r.to_bytes(48, "big") + s.to_bytes(48, "big")
    else:
        signature = bytes(96)
    return cbor2.dumps([protected, {}, payload, signature])


@pytest.fixture
def test_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_nitro, "_root", lambda: ROOT)


def _leaf(label: str = "leaf", **options: Any) -> tuple[x509.Certificate, Any]:
    curve = options.pop("curve", ec.SECP384R1())
    key = _key(label, curve)
    return _cert(label, key, "test intermediate", INTERMEDIATE_KEY, **options), key


def code_of(document: bytes, now: datetime = NOW) -> str:
    with pytest.raises(ProofError) as caught:
        verify_boot_proof(document, now=now)
    return caught.value.code


@pytest.mark.usefixtures("test_root")
def test_generated_chain_verifies_and_each_rule_can_fail() -> None:
    leaf, key = _leaf(ca=False, with_aki=False)  # Nitro leaves carry no AKI
    good = _document(leaf, key, [INTERMEDIATE])
    proof = verify_boot_proof(good, now=NOW)
    assert proof.module_id == "i-test-enc" and len(proof.pcrs) == 16
    assert code_of(good, NOW + timedelta(days=2)) == "BOOT_PROOF_CHAIN_INVALID"
    assert code_of(good, NOW - timedelta(days=2)) == "BOOT_PROOF_CHAIN_INVALID"
    assert code_of(_document(leaf, key, [])) == "BOOT_PROOF_CHAIN_INVALID"

    ca_leaf, ca_key = _leaf("ca leaf", ca=True)
    assert code_of(_document(ca_leaf, ca_key, [INTERMEDIATE])) == "BOOT_PROOF_CHAIN_INVALID"
    no_signing, no_signing_key = _leaf("no signing", ca=False, digital_signature=False)
    assert code_of(_document(no_signing, no_signing_key, [INTERMEDIATE])) == (
        "BOOT_PROOF_CHAIN_INVALID"
    )
    p256_leaf, p256_key = _leaf("p256 leaf", ca=False, curve=ec.SECP256R1())
    assert code_of(_document(p256_leaf, p256_key, [INTERMEDIATE])) == (
        "BOOT_PROOF_SIGNATURE_INVALID"
    )
    # An intermediate that is not a CA cannot issue the leaf.
    not_ca_key = _key("not a ca")
    not_ca = _cert("test intermediate", not_ca_key, "test root", ROOT_KEY, ca=False)
    leaf_under, leaf_under_key = _leaf("under not-ca", ca=False)
    leaf_under = _cert("under not-ca", leaf_under_key, "test intermediate", not_ca_key, ca=False)
    assert code_of(_document(leaf_under, leaf_under_key, [not_ca])) == "BOOT_PROOF_CHAIN_INVALID"
    # The leaf signed the document, but another key signed the COSE structure.
    other_key = _key("other signer")
    assert code_of(_document(leaf, other_key, [INTERMEDIATE])) == "BOOT_PROOF_SIGNATURE_INVALID"


def test_generated_chain_is_refused_under_the_pinned_root() -> None:
    leaf, key = _leaf(ca=False, with_aki=False)
    assert code_of(_document(leaf, key, [INTERMEDIATE])) == "BOOT_PROOF_CHAIN_INVALID"
