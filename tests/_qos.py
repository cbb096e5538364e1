"""Test-side writers for boot proofs: the QOS manifest and envelope in Borsh (written here from
the tkhq/qos type definitions, independent of the library's reader), approvals signed with
pyca/cryptography, and attestation documents signed under the generated chain of
``test_proofs_chain.py`` (so PCRs and user data can be anything)."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from test_proofs_chain import INTERMEDIATE, NOW, ROOT, _leaf

ROOT_DER = ROOT.public_bytes(serialization.Encoding.DER)


def u32(value: int) -> bytes:
    return value.to_bytes(4, "little")


def blob(data: bytes) -> bytes:
    return u32(len(data)) + data


def text(value: str) -> bytes:
    return blob(value.encode())


def items(encoded: list[bytes]) -> bytes:
    return u32(len(encoded)) + b"".join(encoded)


def member_key(label: str) -> tuple[bytes, ec.EllipticCurvePrivateKey]:
    """A QOS member key: 65 bytes of encryption key, 65 of signing key; and the signing key."""
    keys = [
        ec.derive_private_key(
            int.from_bytes(hashlib.sha256(f"{label} {half}".encode()).digest(), "big") % 2**255 + 1,
            ec.SECP256R1(),
        )
        for half in ("encryption", "signing")
    ]
    public = b"".join(
        k.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        for k in keys
    )
    return public, keys[1]


@dataclass
class Manifest:
    """The fields of a QOS ManifestV0, with test defaults."""

    members: list[tuple[str, str]] = field(default_factory=lambda: [("1", "m1"), ("2", "m2")])
    threshold: int = 2
    namespace: str = "test/signer"
    nonce: int = 7
    pcrs: tuple[bytes, bytes, bytes, bytes] = (b"\x00" * 48, b"\x01" * 48, b"\x02" * 48, b"")
    root: bytes = ROOT_DER
    restart: int = 1
    tail: bytes = b""

    def member_keys(self) -> list[tuple[str, bytes, ec.EllipticCurvePrivateKey]]:
        return [(alias, *member_key(label)) for alias, label in self.members]

    def encode(self) -> bytes:
        quorum = [text(alias) + blob(key) for alias, key, _ in self.member_keys()]
        return (
            text(self.namespace)
            + u32(self.nonce)
            + blob(member_key("quorum")[0])
            + hashlib.sha256(b"pivot").digest()
            + bytes([self.restart])
            + items([text("--flag")])
            + u32(self.threshold)
            + items(quorum)
            + u32(self.threshold)
            + items(quorum)
            + b"".join(blob(pcr) for pcr in self.pcrs)
            + blob(self.root)
            + text("qos-commit")
            + u32(1)
            + items([blob(member_key("patch")[0])])
            + self.tail
        )


def approval(manifest: bytes, alias: str, key: bytes, signer: ec.EllipticCurvePrivateKey) -> bytes:
    """An Approval: r || s over SHA-256 of the manifest's hash, then the member."""
    digest = hashlib.sha256(manifest).digest()
    r, s = decode_dss_signature(signer.sign(digest, ec.ECDSA(hashes.SHA256())))
    return blob(r.to_bytes(32, "big") + s.to_bytes(32, "big")) + text(alias) + blob(key)


def envelope(manifest: bytes, approvals: list[bytes], share: list[bytes] | None = None) -> bytes:
    return manifest + items(approvals) + items(share or [])


def approvals_of(spec: Manifest, manifest: bytes) -> list[bytes]:
    return [approval(manifest, alias, key, signer) for alias, key, signer in spec.member_keys()]


def document(pcrs: dict[int, bytes], user_data: bytes, public_key: bytes) -> bytes:
    """An attestation document signed by a leaf of the generated chain (valid at NOW)."""
    leaf, key = _leaf(ca=False, with_aki=False)
    payload = cbor2.dumps(
        {
            "module_id": "i-test-enc",
            "digest": "SHA384",
            "timestamp": int(NOW.timestamp() * 1000),
            "pcrs": pcrs,
            "certificate": leaf.public_bytes(serialization.Encoding.DER),
            "cabundle": [c.public_bytes(serialization.Encoding.DER) for c in (ROOT, INTERMEDIATE)],
            "public_key": public_key,
            "user_data": user_data,
            "nonce": None,
        }
    )
    protected = cbor2.dumps({1: -35})
    to_sign = cbor2.dumps(["Signature1", protected, b"", payload])
    r, s = decode_dss_signature(key.sign(to_sign, ec.ECDSA(hashes.SHA384())))
    return cbor2.dumps([protected, {}, payload, r.to_bytes(48, "big") + s.to_bytes(48, "big")])


EPHEMERAL = member_key("ephemeral")[0]


def boot_proof(
    spec: Manifest,
    *,
    pcrs: dict[int, bytes] | None = None,
    manifest: bytes | None = None,
    approvals: list[bytes] | None = None,
) -> dict[str, Any]:
    """A whole boot proof over ``spec``: the document's PCRs are the manifest's unless given
    (PCR3 zero when the manifest has none), its user data the manifest's hash."""
    encoded = spec.encode() if manifest is None else manifest
    if pcrs is None:
        pcrs = {index: value or b"\x03" * 48 for index, value in enumerate(spec.pcrs)}
    signed = approvals_of(spec, encoded) if approvals is None else approvals
    doc = document(pcrs, hashlib.sha256(encoded).digest(), EPHEMERAL)
    return {
        "awsAttestationDocB64": base64.b64encode(doc).decode(),
        "ephemeralPublicKeyHex": EPHEMERAL.hex(),
        "qosManifestB64": base64.b64encode(encoded).decode(),
        "qosManifestEnvelopeB64": base64.b64encode(envelope(encoded, signed)).decode(),
    }
