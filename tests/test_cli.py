"""The ``ewc`` command line: output shapes and exit statuses (0 ok, 1 failed check, 2 usage) of
keygen, vectors and demo (the session-key and stamp commands are in test_cli_session.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest
from _cli_support import (
    _run,
)
from conftest import REPO, VECTORS_DIR
from embedded_wallet_crypto.cli import demo


def test_keygen_prints_a_valid_uncompressed_key_pair(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "keygen")
    assert status == 0
    output = json.loads(out)
    assert set(output) == {"private_key", "public_key"}
    assert len(output["private_key"]) == 64
    assert len(output["public_key"]) == 130 and output["public_key"].startswith("04")
    key = ewc.KeyPair.from_private_hex(output["private_key"])
    assert key.public_key_hex() == output["public_key"]


def test_keygen_compressed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "keygen", "--compressed")
    assert status == 0
    output = json.loads(out)
    assert len(output["public_key"]) == 66 and output["public_key"][:2] in ("02", "03")
    key = ewc.KeyPair.from_private_hex(output["private_key"])
    assert key.public_key_hex(compressed=True) == output["public_key"]


def test_keygen_gives_a_fresh_key_each_time(capsys: pytest.CaptureFixture[str]) -> None:
    keys = {json.loads(_run(capsys, "keygen")[1])["private_key"] for _ in range(3)}
    assert len(keys) == 3


def test_vectors_verify_committed_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "vectors", "verify", str(VECTORS_DIR))
    assert status == 0, out
    assert out.splitlines()[0].split() == ["file", "cases", "passed", "failed"]
    assert "hpke.json" in out and "OK:" in out


def test_vectors_verify_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "vectors", "verify", str(VECTORS_DIR), "--json")
    report = json.loads(out)
    assert status == (0 if report["ok"] else 1)
    assert {f["file"] for f in report["files"]} >= {"hpke.json", "keys.json"}
    assert report["totals"]["cases"] == sum(f["cases"] for f in report["files"]) > 0


def test_vectors_verify_defaults_to_the_checkout(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    status, out, _ = _run(capsys, "vectors", "verify", "--json")
    assert json.loads(out)["directory"] == "vectors"
    assert status in (0, 1)


def test_vectors_verify_a_corrupted_copy_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for path in VECTORS_DIR.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    document = json.loads((tmp_path / "base58check.json").read_text())
    document["cases"][0]["expected"]["text"] = "1111"
    (tmp_path / "base58check.json").write_text(json.dumps(document))
    status, out, _ = _run(capsys, "vectors", "verify", str(tmp_path))
    assert status == 1
    assert document["cases"][0]["id"] in out and "FAILED" in out


def test_vectors_generate_writes_the_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = _run(capsys, "vectors", "generate", str(tmp_path / "new"))
    assert status == 0
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == sorted(
        Path(line).name for line in out.splitlines()
    )


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["vectors"],
        ["vectors", "generate"],
        ["keygen", "--bogus"],
    ],
)
def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, _, err = _run(capsys, *argv)
    assert status == 2
    assert "usage:" in err


def test_unusable_directories_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    occupied = tmp_path / "file"
    occupied.write_text("")
    for argv in (
        ["vectors", "verify", str(tmp_path / "missing")],
        ["vectors", "verify", str(tmp_path / "file")],
        ["vectors", "verify", str(tmp_path)],
        ["vectors", "generate", str(occupied)],
    ):
        status, _, err = _run(capsys, *argv)
        assert status == 2, argv
        assert err.startswith("ewc: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "--help")
    assert status == 0
    for command in ("keygen", "vectors", "demo"):
        assert command in out


def test_demo_runs_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "demo")
    assert status == 0, out
    lines = [line for line in out.splitlines() if line.startswith(("OK", "FAILED"))]
    assert len(lines) == len(demo.default_steps()) >= 11
    assert all(line.startswith("OK") for line in lines)
    assert out.rstrip().endswith(f"{len(lines)} of {len(lines)} steps OK")


def test_demo_shows_what_crosses_the_wire(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "demo")
    for shown in (
        "clientPublicKey",
        "encryptedSessionSigningKey",
        "payloadToSign",
        "ACTIVITY_TYPE_EXPORT_WALLET",
        "Service-Wallet-Signature",
        "Request-Id Request:",
        "PAYLOAD_KEY_MISMATCH",
        "REQUEST_ID_USED",
        "WALLET_SIGNATURE_INVALID",
        "WALLET_SIGNATURE_KEY_MISMATCH",
        "CLIENT_PUBLIC_KEY_MISMATCH",
    ):
        assert shown in out, shown
    assert max(len(line) for line in out.splitlines()) < 320, "long values are shortened"


def test_demo_reports_a_failing_step(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(show: demo.Show) -> None:
        show("what it sent")
        raise ewc.DecryptionError("deliberately broken step")

    steps = demo.default_steps()
    monkeypatch.setattr(demo, "default_steps", lambda: [*steps, ("broken", broken)])
    status, out, _ = _run(capsys, "demo")
    assert status == 1
    assert (
        "FAILED  broken: DecryptionError: deliberately broken step\n          what it sent" in out
    )


def test_a_failed_step_fails_the_steps_that_need_it(capsys: pytest.CaptureFixture[str]) -> None:
    steps = demo.default_steps()
    names = [name for name, _ in steps]
    opened = names.index("2 server seals a session key, client opens it")

    def broken(show: demo.Show) -> None:
        raise ewc.DecryptionError("no session key today")

    steps[opened] = (names[opened], broken)
    assert demo.run(steps) == 1
    out = capsys.readouterr().out
    assert "earlier step did not produce the session key" in out
    assert f"{len(steps) - 4} of {len(steps)} steps OK" in out


def test_python_dash_m_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "embedded_wallet_crypto", "keygen", "--compressed"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["public_key"]) == 66
    usage = subprocess.run(
        [sys.executable, "-m", "embedded_wallet_crypto", "vectors", "verify", "--nope"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert usage.returncode == 2
