"""``ewc report`` (the main job's report), ``ewc keygen --out``, and the scripts' ``--help`` and
parts: what a first-time user runs."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest
from _cli_support import _run
from conftest import REPO, VECTORS_DIR
from embedded_wallet_crypto.cli import demo
from embedded_wallet_crypto.cli._report import render_html


def test_report_prints_and_writes_json_and_html(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "report"
    status, printed, _ = _run(capsys, "report", "--vectors", str(VECTORS_DIR), "--out", str(out))
    assert status == 0
    document = json.loads((out / "report.json").read_text())
    assert document["ok"] is True
    assert document["vectors"]["totals"]["failed"] == 0
    assert document["vectors"]["totals"]["cases"] == document["vectors"]["totals"]["passed"] > 0
    steps = document["demo"]["steps"]
    assert len(steps) == len(demo.default_steps()) == document["demo"]["passed"]
    assert all(step["ok"] and step["error"] == "" for step in steps)
    page = (out / "report.html").read_text()
    assert "<script" not in page and "http" not in page.split("<body>")[1]
    for step in steps:
        assert step["name"] in page
    assert "OK: " in printed and f"{len(steps)} of {len(steps)} steps OK" in printed
    assert str(out / "report.html") in printed


def test_report_fails_when_a_step_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_show: demo.Show) -> None:
        raise RuntimeError("planted <failure>")

    monkeypatch.setattr(demo, "default_steps", lambda: [("a planted failure", broken)])
    out = tmp_path / "report"
    status, printed, _ = _run(capsys, "report", "--vectors", str(VECTORS_DIR), "--out", str(out))
    assert status == 1
    assert "FAILED  a planted failure: RuntimeError: planted <failure>" in printed
    document = json.loads((out / "report.json").read_text())
    assert document["ok"] is False and document["demo"]["passed"] == 0
    page = (out / "report.html").read_text()
    assert "planted &lt;failure&gt;" in page and "planted <failure>" not in page


def test_report_page_escapes_every_value() -> None:
    document = {
        "ok": False,
        "version": "<x-v>",
        "created": "<x-c>",
        "python": "<x-p>",
        "vectors": {
            "directory": "<x-dir>",
            "totals": {"cases": 1, "passed": 0, "failed": 1},
            "files": [{"file": "<x-f>.json", "cases": 1, "passed": 0, "failed": 1}],
            "failures": [{"file": "<x-f>.json", "case": "<x-id>", "message": "<x-m>"}],
        },
        "demo": {
            "passed": 0,
            "steps": [{"name": "<x-n>", "ok": False, "shown": ["<x-s>"], "error": "<x-e>"}],
        },
    }
    page = render_html(document)
    for raw in (
        "<x-v>",
        "<x-c>",
        "<x-p>",
        "<x-dir>",
        "<x-f>",
        "<x-id>",
        "<x-m>",
        "<x-n>",
        "<x-s>",
        "<x-e>",
    ):
        assert raw not in page
        assert raw.replace("<", "&lt;").replace(">", "&gt;") in page


def test_report_out_that_cannot_be_made_is_usage(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    status, _, err = _run(capsys, "report", "--out", str(blocker / "sub"))
    assert status == 2 and err.startswith("ewc: error: cannot create")


def test_keygen_out_writes_plain_hex_that_the_other_commands_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key_file = tmp_path / "client.hex"
    status, out, _ = _run(capsys, "keygen", "--out", str(key_file))
    assert status == 0
    public_key = out.strip()
    assert len(public_key) == 130 and public_key.startswith("04")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    private_hex = key_file.read_text().strip()
    assert private_hex not in out
    assert ewc.KeyPair.from_private_hex(private_hex).public_key_hex() == public_key
    # The file is what `ewc open-session-key --private-key-file` reads.
    sealed = ewc.seal_session_key(public_key, ewc.KeyPair.generate())
    sealed_file = tmp_path / "sealed.txt"
    sealed_file.write_text(sealed + "\n")
    status, opened, _ = _run(
        capsys,
        "open-session-key",
        "--private-key-file",
        str(key_file),
        "--encrypted",
        str(sealed_file),
    )
    assert status == 0 and "sessionPublicKey" in json.loads(opened)


def test_keygen_out_never_overwrites(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    key_file = tmp_path / "client.hex"
    key_file.write_text("keep me\n")
    status, out, err = _run(capsys, "keygen", "--out", str(key_file), "--compressed")
    assert status == 2 and out == "" and "refusing to overwrite" in err
    assert key_file.read_text() == "keep me\n"


@pytest.mark.parametrize("script", ["test.sh", "main.sh", "setup.sh"])
def test_scripts_help_prints_usage_and_runs_nothing(script: str, tmp_path: Path) -> None:
    # --help must answer at once: nothing set up, nothing run (the header comment is the help).
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    (tmp_path / "cargo").write_text("#!/bin/sh\necho cargo-was-run >&2; exit 99\n")
    (tmp_path / "cargo").chmod(0o755)
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / script), "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "cargo-was-run" not in done.stderr and done.stdout.strip()
    assert not any(line.startswith("#") for line in done.stdout.splitlines())


def test_test_sh_refuses_an_unknown_part() -> None:
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "test.sh"), "everything"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown part 'everything'" in done.stderr and "rust lint docs fuzz python sandbox" in (
        done.stderr
    )
