"""``ewc proofs verify``: a real boot proof (whole, or its document alone as base64 or COSE
bytes), with pins and with its app proof; exit 1 for a failed check with its code, 2 for an
unusable input."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import load_upstream_json
from embedded_wallet_crypto.cli import main

pytestmark = pytest.mark.upstream

PCR3 = (  # boot_proof_1's PCR3, as its manifest names it
    "864e9095a9947ab14698122370c13baf23183f4e9911953cf5b909a49db00f43"
    "f446707314674d9309974f3cc4b24728"
)
AT = "2025-09-16T21:30:00Z"  # inside boot_proof_1's leaf validity (21:25:45 to 00:25:48)
MEMBERS = (
    "awsAttestationDocB64",
    "ephemeralPublicKeyHex",
    "qosManifestB64",
    "qosManifestEnvelopeB64",
)


@pytest.fixture(scope="module")
def upstream() -> dict[str, Any]:
    document: dict[str, Any] = load_upstream_json("turnkey-sdk/app_proofs.json")
    return document


@pytest.fixture
def files(tmp_path: Path, upstream: dict[str, Any]) -> dict[str, str]:
    boot = upstream["boot_proof_1"]
    paths = {
        "boot": json.dumps({name: boot[name] for name in MEMBERS}),
        "document": boot["awsAttestationDocB64"] + "\n",
        "app": json.dumps(
            {
                k: upstream["app_proof_1"][k]
                for k in ("scheme", "publicKey", "proofPayload", "signature")
            }
        ),
        "other_app": json.dumps(
            {
                k: upstream["app_proof_2"][k]
                for k in ("scheme", "publicKey", "proofPayload", "signature")
            }
        ),
        "pins": json.dumps(
            {
                "pcr3": PCR3,
                "approval_threshold": 2,
            }
        ),
        "wrong_pins": json.dumps({"pcr0": "00" * 48}),
        "bad_pins": json.dumps({"pcr9": "00" * 48}),
        "not_json": "{",
    }
    written = {}
    for name, content in paths.items():
        path = tmp_path / f"{name}.json"
        path.write_text(content)
        written[name] = str(path)
    cose = tmp_path / "document.cose"
    cose.write_bytes(base64.b64decode(boot["awsAttestationDocB64"]))
    written["cose"] = str(cose)
    return written


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["proofs", "verify", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_whole_boot_proof_pinned(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    status, out, err = _run(capsys, files["boot"], "--now", AT, "--pin", files["pins"])
    assert (status, err) == (0, "")
    report = json.loads(out)
    assert report["valid"] is True
    assert report["manifest"]["namespace"] == "preprod/signer"
    assert report["manifest"]["hash"] == report["userData"]
    assert report["manifest"]["pcrs"]["0"] == report["pcrs"]["0"]
    assert sorted(report["approvedBy"]) == ["1", "2"]


@pytest.mark.parametrize("form", ["document", "cose"])
def test_document_alone(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], form: str
) -> None:
    status, out, _ = _run(capsys, files[form], "--now", AT)
    report = json.loads(out)
    assert status == 0 and report["manifest"] is None and report["approvedBy"] == []


def test_with_its_app_proof(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    status, out, _ = _run(capsys, files["boot"], "--now", AT, "--app-proof", files["app"])
    assert status == 0
    assert json.loads(out)["appProof"]["type"] == "APP_PROOF_TYPE_ADDRESS_DERIVATION"
    status, out, _ = _run(capsys, files["boot"], "--now", AT, "--app-proof", files["other_app"])
    assert status == 1 and json.loads(out)["code"] == "PROOF_KEY_MISMATCH"


def test_failed_checks_exit_1_with_the_code(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    status, out, _ = _run(capsys, files["boot"], "--now", AT, "--pin", files["wrong_pins"])
    assert status == 1
    assert json.loads(out) == {
        "valid": False,
        "code": "BOOT_PROOF_PIN_PCR_MISMATCH",
        "reason": "PCR0 is not the pinned value",
    }
    status, out, _ = _run(capsys, files["boot"])  # now: the leaf expired in 2025
    assert status == 1 and json.loads(out)["code"] == "BOOT_PROOF_CHAIN_INVALID"


def test_unusable_inputs_exit_2(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    for argv in (
        [files["boot"], "--now", AT, "--pin", files["bad_pins"]],
        [files["boot"], "--now", AT, "--pin", files["not_json"]],
        [files["boot"], "--now", AT, "--pin", files["document"]],
        [files["document"], "--now", AT, "--app-proof", files["app"]],
        [files["boot"], "--now", "yesterday"],
        [files["boot"] + ".missing"],
        ["-", "--pin", "-"],
    ):
        status, out, err = _run(capsys, *argv)
        assert (status, out) == (2, ""), argv
        assert err.startswith("ewc: error:") and "Traceback" not in err, argv


def test_reads_standard_input(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    content = Path(files["boot"]).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(content)))
    status, out, _ = _run(capsys, "-", "--now", AT)
    assert status == 0 and json.loads(out)["manifest"]["nonce"] == 20250902
