"""Whole boot proofs through ``ewc.proofs.verify_boot_proof`` (formats.md section 16): the QOS
manifest bound by hash, parsed, its PCRs and approvals checked, and the auditor's pins.

The boot-proof vectors:

- the two real boot proofs of shared/upstream-vectors/turnkey-sdk/app_proofs.json, accepted
  whole (dict and JSON text), with their manifest's facts, and pinned to their own values;
- the real proofs tampered, one check each, each refused with its own code (members swapped,
  manifest bytes changed, envelope cut, its manifest changed, approvals forged, removed,
  repeated, by an unknown member; pins that differ or are malformed);
- and, in ``test_proofs_boot_generated.py``, documents signed under a generated chain for the
  checks a real document cannot reach without its signer.

The counts go to the closing summary; every refusal names its expected code, so a case cannot
pass by failing for another reason.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import _qos
import pytest
from conftest import load_upstream_json, report_counts
from embedded_wallet_crypto.proofs import ProofError, _nitro, verify_boot_proof
from hypothesis import given, settings
from hypothesis import strategies as st

VECTORS = "turnkey-sdk/app_proofs.json"
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def code_of(call: Callable[..., object], *args: Any, **kwargs: Any) -> str:
    try:
        call(*args, **kwargs)
    except ProofError as error:
        return error.code
    return "accepted"


@pytest.fixture(scope="module")
def upstream() -> dict[str, Any]:
    document: dict[str, Any] = load_upstream_json(VECTORS)
    return document


def _at(upstream: dict[str, Any], name: str) -> datetime:
    return EPOCH + timedelta(
        milliseconds=upstream["derived"][f"{name}_attestation"]["timestamp_ms"]
    )


def _b64(proof: dict[str, Any], name: str) -> bytes:
    return base64.b64decode(proof[name])


def _with(proof: dict[str, Any], **members: bytes | str) -> dict[str, Any]:
    changed = copy.deepcopy(proof)
    for name, value in members.items():
        changed[name] = base64.b64encode(value).decode() if isinstance(value, bytes) else value
    return changed


def _approvals(proof: dict[str, Any]) -> tuple[bytes, list[bytes]]:
    """The manifest and the manifest-set approvals of a real envelope (read here, not by the
    library): each approval is u32 length + signature, u32 length + alias, u32 length + key."""
    manifest, envelope = _b64(proof, "qosManifestB64"), _b64(proof, "qosManifestEnvelopeB64")
    tail, at, found = envelope[len(manifest) :], 4, []
    for _ in range(int.from_bytes(tail[:4], "little")):
        start = at
        for _part in range(3):
            at += 4 + int.from_bytes(tail[at : at + 4], "little")
        found.append(tail[start:at])
    assert tail[at:] == _qos.u32(0)  # no share-set approvals
    return manifest, found


# ---------------------------------------------------------------- the real boot proofs


def _real_cases(upstream: dict[str, Any], name: str) -> list[tuple[str, Any, Any, str]]:
    proof = {k: upstream[name][k] for k in _REAL_MEMBERS}
    other = upstream["boot_proof_2" if name == "boot_proof_1" else "boot_proof_1"]
    attested = verify_boot_proof(proof["awsAttestationDocB64"], now=_at(upstream, name))
    pins = {f"pcr{i}": attested.pcrs[i].hex() for i in range(4)}
    pins["manifest_hash"] = (attested.user_data or b"").hex().upper()
    manifest, approvals = _approvals(proof)
    envelope = _b64(proof, "qosManifestEnvelopeB64")
    flipped_signature = bytes([approvals[0][4] ^ 1])
    forged = approvals[0][:4] + flipped_signature + approvals[0][5:]
    alias_at = 4 + 64 + 4  # the alias "1" or "2" follows the 64-byte signature
    stranger = approvals[0][:alias_at] + b"9" + approvals[0][alias_at + 1 :]
    inside = len(manifest) - 600  # a byte of the envelope's copy of the manifest (a PCR)
    changed_envelope = envelope[:inside] + bytes([envelope[inside] ^ 1]) + envelope[inside + 1 :]
    return [
        ("accepted: whole, dict", proof, None, "accepted"),
        ("accepted: whole, JSON text", json.dumps(proof), None, "accepted"),
        (
            "accepted: pinned to its own values",
            proof,
            {**pins, "approval_threshold": 2},
            "accepted",
        ),
        (
            "the other proof's ephemeral key",
            _with(proof, ephemeralPublicKeyHex=other["ephemeralPublicKeyHex"]),
            None,
            "PROOF_KEY_MISMATCH",
        ),
        (
            "a manifest byte changed",
            _with(proof, qosManifestB64=manifest[:-1] + b"\x01"),
            None,
            "BOOT_PROOF_MANIFEST_MISMATCH",
        ),
        (
            "the envelope cut short",
            _with(proof, qosManifestEnvelopeB64=envelope[:-1]),
            None,
            "BOOT_PROOF_MANIFEST_MALFORMED",
        ),
        (
            "a byte after the envelope",
            _with(proof, qosManifestEnvelopeB64=envelope + b"\x00"),
            None,
            "BOOT_PROOF_MANIFEST_MALFORMED",
        ),
        (
            "the envelope's manifest changed",
            _with(proof, qosManifestEnvelopeB64=changed_envelope),
            None,
            "BOOT_PROOF_ENVELOPE_MISMATCH",
        ),
        (
            "an approval's signature changed",
            _with(proof, qosManifestEnvelopeB64=_qos.envelope(manifest, [forged, approvals[1]])),
            None,
            "BOOT_PROOF_APPROVAL_INVALID",
        ),
        (
            "an approval by a member outside the set",
            _with(proof, qosManifestEnvelopeB64=_qos.envelope(manifest, [stranger, approvals[1]])),
            None,
            "BOOT_PROOF_APPROVER_UNKNOWN",
        ),
        (
            "one member's approval twice",
            _with(
                proof, qosManifestEnvelopeB64=_qos.envelope(manifest, [approvals[0], approvals[0]])
            ),
            None,
            "BOOT_PROOF_APPROVAL_DUPLICATE",
        ),
        (
            "one approval of the two needed",
            _with(proof, qosManifestEnvelopeB64=_qos.envelope(manifest, approvals[1:])),
            None,
            "BOOT_PROOF_APPROVALS_INSUFFICIENT",
        ),
        (
            "no approvals",
            _with(proof, qosManifestEnvelopeB64=_qos.envelope(manifest, [])),
            None,
            "BOOT_PROOF_APPROVALS_INSUFFICIENT",
        ),
        (
            "the envelope missing",
            {k: v for k, v in proof.items() if k != "qosManifestEnvelopeB64"},
            None,
            "BOOT_PROOF_MALFORMED",
        ),
        ("the manifest not base64", _with(proof, qosManifestB64="*"), None, "BOOT_PROOF_MALFORMED"),
        ("pin: another PCR0", proof, {**pins, "pcr0": "00" * 48}, "BOOT_PROOF_PIN_PCR_MISMATCH"),
        ("pin: another PCR3", proof, {"pcr3": "11" * 48}, "BOOT_PROOF_PIN_PCR_MISMATCH"),
        (
            "pin: another manifest hash",
            proof,
            {"manifest_hash": "00" * 32},
            "BOOT_PROOF_PIN_MANIFEST_MISMATCH",
        ),
        (
            "pin: a higher approval threshold",
            proof,
            {"approval_threshold": 3},
            "BOOT_PROOF_PIN_THRESHOLD_MISMATCH",
        ),
        ("pins: an unknown name", proof, {"pcr4": "00" * 48}, "BOOT_PROOF_PINS_INVALID"),
        ("pins: not hex", proof, {"pcr0": "zz" * 48}, "BOOT_PROOF_PINS_INVALID"),
        ("pins: a PCR of 47 bytes", proof, {"pcr0": "00" * 47}, "BOOT_PROOF_PINS_INVALID"),
        ("pins: a threshold of 0", proof, {"approval_threshold": 0}, "BOOT_PROOF_PINS_INVALID"),
        (
            "pins: a threshold of true",
            proof,
            {"approval_threshold": True},
            "BOOT_PROOF_PINS_INVALID",
        ),
        (
            "pins: a threshold as text",
            proof,
            {"approval_threshold": "2"},
            "BOOT_PROOF_PINS_INVALID",
        ),
        (
            "pins: a threshold for the document alone",
            proof["awsAttestationDocB64"],
            {"approval_threshold": 1},
            "BOOT_PROOF_PINS_INVALID",
        ),
        (
            "pin: another PCR1 on the document alone",
            proof["awsAttestationDocB64"],
            {"pcr1": "00" * 48},
            "BOOT_PROOF_PIN_PCR_MISMATCH",
        ),
        ("accepted: the document alone, pinned", proof["awsAttestationDocB64"], pins, "accepted"),
    ]


_REAL_MEMBERS = (
    "awsAttestationDocB64",
    "ephemeralPublicKeyHex",
    "qosManifestB64",
    "qosManifestEnvelopeB64",
)


def _manifest_facts(upstream: dict[str, Any], name: str) -> None:
    proof = {k: upstream[name][k] for k in _REAL_MEMBERS}
    attested = verify_boot_proof(proof, now=_at(upstream, name))
    manifest = attested.manifest
    assert manifest is not None
    assert (
        manifest.hash
        == attested.user_data
        == bytes.fromhex(upstream["derived"][f"{name}_attestation"]["sha256_of_qosManifest"])
    )
    assert (manifest.namespace, manifest.nonce) == ("preprod/signer", 20250902)
    assert manifest.pivot_restart == "Always" and len(manifest.pivot_hash) == 32
    assert manifest.manifest_set.threshold == 2
    assert [m.alias for m in manifest.manifest_set.members] == ["1", "2"]
    assert all(len(m.public_key) == 130 for m in manifest.manifest_set.members)
    assert sorted(m.alias for m in attested.manifest_approvals) == ["1", "2"]
    for index, value in enumerate((manifest.pcr0, manifest.pcr1, manifest.pcr2, manifest.pcr3)):
        assert attested.pcrs[index] == value and len(value) == 48
    assert manifest.aws_root_certificate == _nitro.root_der()
    assert attested.public_key == bytes.fromhex(proof["ephemeralPublicKeyHex"])


@pytest.mark.upstream
def test_real_boot_proofs_and_their_tampered_copies(upstream: dict[str, Any]) -> None:
    counts = {"real_accepted": 0, "real_tampered_refused": 0}
    codes: set[str] = set()
    failures = []
    for name in ("boot_proof_1", "boot_proof_2"):
        _manifest_facts(upstream, name)
        at = _at(upstream, name)
        for case, proof, pins, expected in _real_cases(upstream, name):
            got = code_of(verify_boot_proof, proof, now=at, pins=pins)
            if got != expected:
                failures.append(f"{name}: {case}: {got}, expected {expected}")
            key = "real_accepted" if expected == "accepted" else "real_tampered_refused"
            counts[key] += 1
            codes.add(expected)
    report_counts("boot-proof vectors (real documents)", **counts, codes=len(codes) - 1)
    assert not failures, "\n".join(failures)


@pytest.mark.upstream
@settings(max_examples=40, derandomize=True, database=None)
@given(data=st.data())
def test_any_changed_byte_of_manifest_or_envelope_is_refused(
    upstream: dict[str, Any], data: st.DataObject
) -> None:
    proof = {k: upstream["boot_proof_1"][k] for k in _REAL_MEMBERS}
    member = data.draw(st.sampled_from(["qosManifestB64", "qosManifestEnvelopeB64"]))
    raw = _b64(proof, member)
    index = data.draw(st.integers(0, len(raw) - 1), label="index")
    changed = raw[:index] + bytes([raw[index] ^ data.draw(st.integers(1, 255))]) + raw[index + 1 :]
    got = code_of(
        lambda: verify_boot_proof(
            _with(proof, **{member: changed}), now=_at(upstream, "boot_proof_1")
        )
    )
    assert got.startswith("BOOT_PROOF_"), got
