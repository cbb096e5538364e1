"""Boot-proof vectors on attestation documents signed here, under the generated chain of
``test_proofs_chain.py`` (the pinned root swapped for it inside each test only): the manifest
checks a real document cannot reach without its signer. A PCR of the document that is not the
manifest's (PCR0, 1, 2, and PCR3 when the manifest names one), a PCR the manifest leaves empty
or the document lacks, a manifest naming another AWS root, a malformed manifest the document
binds, an approval by an off-curve key, a pinned threshold above the manifest's; and the
accepted variants (no PCR3, no AWS root, a threshold of 1). The real documents are in
``test_proofs_boot.py``."""

from __future__ import annotations

import hashlib
from typing import Any

import _qos
import pytest
from conftest import report_counts
from embedded_wallet_crypto.proofs import ProofError, _manifest, _nitro, verify_boot_proof
from hypothesis import given, settings
from hypothesis import strategies as st
from test_proofs_boot import code_of
from test_proofs_chain import ROOT


@pytest.fixture
def generated_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_nitro, "_root", lambda: ROOT)


def _generated_cases() -> list[tuple[str, dict[str, Any], Any, str]]:
    spec = _qos.Manifest()
    good = _qos.boot_proof(spec)
    pcrs = {index: value or b"\x03" * 48 for index, value in enumerate(spec.pcrs)}
    with_pcr3 = _qos.Manifest(pcrs=(*spec.pcrs[:3], b"\x03" * 48))
    bad_key = _qos.Manifest(members=[("1", "m1")], threshold=1)
    bad_key_manifest = bad_key.encode()
    alias, key, signer = bad_key.member_keys()[0]
    off_curve = key[:-1] + bytes([key[-1] ^ 1])
    cases: list[tuple[str, dict[str, Any], Any, str]] = [
        ("accepted: a manifest without PCR3", good, None, "accepted"),
        ("accepted: with PCR3", _qos.boot_proof(with_pcr3), None, "accepted"),
        (
            "accepted: a manifest naming no AWS root",
            _qos.boot_proof(_qos.Manifest(root=b"")),
            None,
            "accepted",
        ),
        (
            "accepted: threshold 1 of 2, one approval",
            _qos.boot_proof(
                _qos.Manifest(threshold=1),
                approvals=_qos.approvals_of(spec, _qos.Manifest(threshold=1).encode())[:1],
            ),
            None,
            "accepted",
        ),
        (
            "the document's PCR3 is not the manifest's",
            _qos.boot_proof(with_pcr3, pcrs={**pcrs, 3: b"\x04" * 48}),
            None,
            "BOOT_PROOF_PCR_MISMATCH",
        ),
        (
            "the manifest names an empty PCR0",
            _qos.boot_proof(_qos.Manifest(pcrs=(b"", *spec.pcrs[1:]))),
            None,
            "BOOT_PROOF_PCR_MISMATCH",
        ),
        (
            "the document has no PCR2",
            _qos.boot_proof(spec, pcrs={0: pcrs[0], 1: pcrs[1]}),
            None,
            "BOOT_PROOF_PCR_MISMATCH",
        ),
        (
            "the manifest names another AWS root",
            _qos.boot_proof(_qos.Manifest(root=b"another root")),
            None,
            "BOOT_PROOF_MANIFEST_ROOT_MISMATCH",
        ),
        (
            "a bound manifest with a byte after its end",
            _qos.boot_proof(_qos.Manifest(tail=b"\x00")),
            None,
            "BOOT_PROOF_MANIFEST_MALFORMED",
        ),
        (
            "a bound manifest with restart policy 2",
            _qos.boot_proof(_qos.Manifest(restart=2)),
            None,
            "BOOT_PROOF_MANIFEST_MALFORMED",
        ),
        (
            "a bound manifest whose namespace is not UTF-8",
            _qos.boot_proof(spec, manifest=_qos.text("x")[:4] + b"\xff" + spec.encode()[5:]),
            None,
            "BOOT_PROOF_MANIFEST_MALFORMED",
        ),
        (
            "an approval by an off-curve key",
            _qos.boot_proof(
                bad_key,
                manifest=bad_key_manifest,
                approvals=[_qos.approval(bad_key_manifest, alias, off_curve, signer)],
            ),
            None,
            "BOOT_PROOF_APPROVAL_INVALID",
        ),
        (
            "pin: threshold 2 for a manifest of threshold 1",
            _qos.boot_proof(_qos.Manifest(threshold=1)),
            {"approval_threshold": 2},
            "BOOT_PROOF_PIN_THRESHOLD_MISMATCH",
        ),
    ]
    for index in range(3):
        cases.append(
            (
                f"the document's PCR{index} is not the manifest's",
                _qos.boot_proof(spec, pcrs={**pcrs, index: b"\x09" * 48}),
                None,
                "BOOT_PROOF_PCR_MISMATCH",
            )
        )
    return cases


@pytest.mark.usefixtures("generated_root")
def test_generated_boot_proofs_reach_every_manifest_check() -> None:
    counts = {"generated_accepted": 0, "generated_refused": 0}
    failures = []
    for case, proof, pins, expected in _generated_cases():
        got = code_of(verify_boot_proof, proof, now=_qos.NOW, pins=pins)
        if got != expected:
            failures.append(f"{case}: {got}, expected {expected}")
        counts["generated_accepted" if expected == "accepted" else "generated_refused"] += 1
    report_counts("boot-proof vectors (documents signed here)", **counts)
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------- the Borsh reader on any bytes

SPEC_BYTES = _qos.Manifest().encode()


@settings(max_examples=200)
@given(
    data=st.one_of(
        st.binary(max_size=3000),
        st.builds(
            lambda index, value, cut: (
                SPEC_BYTES[:index] + bytes([value]) + SPEC_BYTES[index + 1 :]
            )[:cut],
            st.integers(0, len(SPEC_BYTES) - 1),
            st.integers(0, 255),
            st.integers(0, len(SPEC_BYTES)),
        ),
    )
)
def test_the_manifest_reader_refuses_with_its_code_only(data: bytes) -> None:
    """Any bytes: a manifest, or BOOT_PROOF_MANIFEST_MALFORMED; never another exception, and
    the envelope reader likewise (or BOOT_PROOF_ENVELOPE_MISMATCH)."""
    try:
        manifest = _manifest.parse_manifest(data)
    except ProofError as error:
        assert error.code == "BOOT_PROOF_MANIFEST_MALFORMED"
    else:
        assert manifest.hash == hashlib.sha256(data).digest()
    try:
        _manifest.parse_envelope(data + _qos.u32(0) * 2, SPEC_BYTES)
    except ProofError as error:
        assert error.code in {"BOOT_PROOF_MANIFEST_MALFORMED", "BOOT_PROOF_ENVELOPE_MISMATCH"}


def test_declared_lengths_past_the_limits_are_refused_before_reading() -> None:
    for data in (
        _qos.u32(2**32 - 1),  # a namespace of 4 GiB
        _qos.text("ns") + _qos.u32(1) + _qos.u32(2**31),  # a quorum key of 2 GiB
    ):
        with pytest.raises(ProofError, match="over the limit") as caught:
            _manifest.parse_manifest(data)
        assert caught.value.code == "BOOT_PROOF_MANIFEST_MALFORMED"
