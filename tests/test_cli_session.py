"""The ``ewc`` session-key and stamp commands: seal-session-key, open-session-key, stamp and
verify-stamp through files, stdin and a real process; secrets never as arguments."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest
from _cli_support import (
    _run,
)

# --- seal-session-key, open-session-key, stamp, verify-stamp ---------------------------------


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _key_file(tmp_path: Path, name: str, key: ewc.KeyPair) -> Path:
    path = tmp_path / name
    path.write_text(key.private_key_bytes().hex() + "\n")
    return path


def _usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = _run(capsys, *argv)
    assert status == 2, (argv, out, err)
    assert err.startswith(("ewc: error: ", "usage:")) and "Traceback" not in err
    if err.startswith("ewc: error: "):
        assert err.count("\n") == 1, err
    return err


def test_session_key_round_trip_through_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    client = ewc.KeyPair.generate()
    session_out = tmp_path / "session.key"
    status, out, _ = _run(
        capsys,
        "seal-session-key",
        "--client-public-key",
        client.public_key_hex(),
        "--session-key-out",
        str(session_out),
    )
    assert status == 0
    sealed = json.loads(out)
    assert set(sealed) == {"encryptedSessionSigningKey", "sessionPublicKey"}
    session_hex = session_out.read_text().strip()
    assert session_hex not in out, "the generated private key is never printed"
    assert session_out.stat().st_mode & 0o777 == 0o600
    session = ewc.KeyPair.from_private_hex(session_hex)
    assert sealed["sessionPublicKey"] == session.public_key_hex(compressed=True)
    assert ewc.open_session_key(sealed["encryptedSessionSigningKey"], client) == session

    encrypted = tmp_path / "encrypted.txt"
    encrypted.write_text(sealed["encryptedSessionSigningKey"] + "\n")
    opened_out = tmp_path / "opened.key"
    status, out, _ = _run(
        capsys,
        "open-session-key",
        "--private-key-file",
        str(_key_file(tmp_path, "client.key", client)),
        "--encrypted",
        str(encrypted),
        "--out",
        str(opened_out),
    )
    assert status == 0
    assert json.loads(out) == {"sessionPublicKey": sealed["sessionPublicKey"]}
    assert opened_out.read_text().strip() == session_hex
    assert opened_out.stat().st_mode & 0o777 == 0o600


def test_seal_a_given_session_key_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, session = ewc.KeyPair.generate(), ewc.KeyPair.generate()
    _stdin(monkeypatch, session.private_key_bytes().hex().encode() + b"\n")
    status, out, _ = _run(
        capsys,
        "seal-session-key",
        "--client-public-key",
        client.public_key_hex(),
        "--session-key-file",
        "-",
    )
    assert status == 0
    sealed = json.loads(out)
    assert ewc.open_session_key(sealed["encryptedSessionSigningKey"], client) == session
    assert session.private_key_bytes().hex() not in out


def test_seal_without_output_file_prints_only_public_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _run(
        capsys, "seal-session-key", "--client-public-key", ewc.KeyPair.generate().public_key_hex()
    )
    assert status == 0
    assert set(json.loads(out)) == {"encryptedSessionSigningKey", "sessionPublicKey"}


def test_open_session_key_from_stdin_and_explicit_printing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client, session = ewc.KeyPair.generate(), ewc.KeyPair.generate()
    sealed = ewc.seal_session_key(client.public_key_hex(), session)
    _stdin(monkeypatch, sealed.encode())
    key_file = str(_key_file(tmp_path, "client.key", client))
    argv = ["open-session-key", "--private-key-file", key_file, "--encrypted", "-"]
    status, out, _ = _run(capsys, *argv)
    assert status == 0
    assert json.loads(out) == {"sessionPublicKey": session.public_key_hex(compressed=True)}
    _stdin(monkeypatch, sealed.encode())
    status, out, _ = _run(capsys, *argv, "--print-private-key")
    assert json.loads(out)["sessionPrivateKey"] == session.private_key_bytes().hex()


def test_open_session_key_with_another_key_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sealed = ewc.seal_session_key(ewc.KeyPair.generate().public_key_hex(), ewc.KeyPair.generate())
    encrypted = tmp_path / "encrypted.txt"
    encrypted.write_text(sealed)
    other = _key_file(tmp_path, "other.key", ewc.KeyPair.generate())
    status, out, err = _run(
        capsys, "open-session-key", "--private-key-file", str(other), "--encrypted", str(encrypted)
    )
    assert (status, out) == (1, "")
    assert err.startswith("ewc: error: decryption failed") and err.count("\n") == 1


def test_stamp_signs_the_payload_file_byte_for_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key = ewc.KeyPair.generate()
    payload = b'{"organizationId":"o"}\r\n  \xe2\x98\x95 \n'
    payload_file = tmp_path / "payload"
    payload_file.write_bytes(payload)
    key_file = str(_key_file(tmp_path, "session.key", key))
    status, out, _ = _run(
        capsys, "stamp", "--private-key-file", key_file, "--payload-file", str(payload_file)
    )
    assert status == 0
    stamp = out.rstrip("\n")
    assert ewc.verify_stamp(stamp, payload).public_key == key.public_key_hex(compressed=True)
    for trimmed in (payload.strip(), payload.replace(b"\r\n", b"\n")):
        with pytest.raises(ewc.StampError):
            ewc.verify_stamp(stamp, trimmed)


def test_stamp_payload_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = ewc.KeyPair.generate()
    _stdin(monkeypatch, b"payload\n")
    key_file = str(_key_file(tmp_path, "session.key", key))
    status, out, _ = _run(capsys, "stamp", "--private-key-file", key_file, "--payload-file", "-")
    assert status == 0
    assert ewc.verify_stamp(out.strip(), b"payload\n")


def _verify_stamp(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    status, out, err = _run(capsys, "verify-stamp", *argv)
    assert err == ""
    verdict: dict[str, object] = json.loads(out)
    return status, verdict


def test_verify_stamp_verdicts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    key, other = ewc.KeyPair.generate(), ewc.KeyPair.generate()
    payload_file = tmp_path / "payload"
    payload_file.write_bytes(b"exact bytes\n")
    stamp = ewc.create_stamp(b"exact bytes\n", key)
    stamp_file = tmp_path / "stamp"
    stamp_file.write_text(stamp + "\n")
    payload = ["--payload-file", str(payload_file)]

    status, verdict = _verify_stamp(capsys, "--stamp-file", str(stamp_file), *payload)
    assert status == 0
    assert verdict["valid"] is True and verdict["publicKey"] == key.public_key_hex(compressed=True)
    assert verdict["scheme"] == "SIGNATURE_SCHEME_TK_API_P256"
    expected = ["--expected-public-key", key.public_key_hex()]
    assert _verify_stamp(capsys, "--stamp", stamp, *payload, *expected)[0] == 0

    status, verdict = _verify_stamp(
        capsys, "--stamp", stamp, *payload, "--expected-public-key", other.public_key_hex()
    )
    assert (status, verdict["valid"], verdict["code"]) == (
        1,
        False,
        "WALLET_SIGNATURE_KEY_MISMATCH",
    )
    payload_file.write_bytes(b"exact bytes")
    status, verdict = _verify_stamp(capsys, "--stamp", stamp, *payload)
    assert (status, verdict["code"]) == (1, "WALLET_SIGNATURE_INVALID")
    status, verdict = _verify_stamp(capsys, "--stamp", "!!", *payload)
    assert (status, verdict["code"]) == (1, "WALLET_SIGNATURE_MALFORMED")
    status, verdict = _verify_stamp(capsys, "--stamp", "", *payload)
    assert (status, verdict["code"]) == (1, "WALLET_SIGNATURE_MISSING")


def test_verify_stamp_sandbox(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    payload_file = tmp_path / "payload"
    payload_file.write_bytes(b"{}")
    argv = ["--stamp", "sandbox-valid-signature", "--payload-file", str(payload_file)]
    assert _verify_stamp(capsys, *argv)[0] == 1
    status, verdict = _verify_stamp(capsys, *argv, "--sandbox")
    assert status == 0 and verdict["valid"] is True


def test_verify_stamp_reads_the_stamp_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = ewc.KeyPair.generate()
    payload_file = tmp_path / "payload"
    payload_file.write_bytes(b"p")
    _stdin(monkeypatch, (ewc.create_stamp(b"p", key) + "\n").encode())
    status, verdict = _verify_stamp(
        capsys, "--stamp-file", "-", "--payload-file", str(payload_file)
    )
    assert status == 0 and verdict["valid"] is True


def test_session_commands_bad_usage(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    client = ewc.KeyPair.generate()
    key_file = str(_key_file(tmp_path, "k", client))
    missing = str(tmp_path / "missing")
    payload = tmp_path / "payload"
    payload.write_bytes(b"p")
    existing = tmp_path / "existing.key"
    existing.write_text("keep me")
    not_hex = tmp_path / "not-hex.key"
    not_hex.write_text("secret-looking-garbage-" * 3)
    stamp = ewc.create_stamp(b"p", client)
    cases: list[list[str]] = [
        ["seal-session-key"],
        ["seal-session-key", "--client-public-key", client.public_key_hex(compressed=True)],
        ["seal-session-key", "--client-public-key", "04zz"],
        [
            "seal-session-key",
            "--client-public-key",
            client.public_key_hex(),
            "--session-key-file",
            key_file,
            "--session-key-out",
            str(tmp_path / "new"),
        ],
        [
            "seal-session-key",
            "--client-public-key",
            client.public_key_hex(),
            "--session-key-out",
            str(existing),
        ],
        [
            "seal-session-key",
            "--client-public-key",
            client.public_key_hex(),
            "--session-key-file",
            missing,
        ],
        ["open-session-key", "--private-key-file", key_file],
        ["open-session-key", "--private-key-file", "-", "--encrypted", "-"],
        ["open-session-key", "--private-key-file", key_file, "--encrypted", missing],
        ["open-session-key", "--private-key-file", key_file, "--encrypted", str(payload)],
        ["stamp", "--payload-file", str(payload)],
        ["stamp", "--private-key-file", str(not_hex), "--payload-file", str(payload)],
        ["stamp", "--private-key-file", key_file, "--payload-file", str(tmp_path)],
        ["stamp", "--private-key-file", "-", "--payload-file", "-"],
        ["verify-stamp", "--payload-file", str(payload)],
        ["verify-stamp", "--stamp", stamp, "--stamp-file", missing, "--payload-file", str(payload)],
        ["verify-stamp", "--stamp-file", "-", "--payload-file", "-"],
        ["verify-stamp", "--stamp", stamp, "--payload-file", missing],
        [
            "verify-stamp",
            "--stamp",
            stamp,
            "--payload-file",
            str(payload),
            "--expected-public-key",
            "02ff",
        ],
    ]
    for argv in cases:
        err = _usage_error(capsys, *argv)
        assert "secret-looking-garbage" not in err
    assert existing.read_text() == "keep me", "an existing file is never overwritten"
    assert not (tmp_path / "new").exists()


def test_secrets_are_never_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("seal-session-key", "open-session-key", "stamp", "verify-stamp"):
        status, out, _ = _run(capsys, command, "--help")
        assert status == 0
        assert "--private-key " not in out and "--payload " not in out
        assert "--session-key " not in out


def test_stamp_through_a_real_process_and_pipe(tmp_path: Path) -> None:
    key = ewc.KeyPair.generate()
    key_file = _key_file(tmp_path, "session.key", key)
    payload = b"\x00binary\r\npayload\xff"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "embedded_wallet_crypto",
            "stamp",
            "--private-key-file",
            str(key_file),
            "--payload-file",
            "-",
        ],
        input=payload,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert ewc.verify_stamp(result.stdout.decode().strip(), payload)
