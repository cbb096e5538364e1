"""``ewc nonce`` and ``ewc verify-oidc``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli_support import _run
from _oidc_helpers import (
    AUDIENCE,
    CLIENT_PUBLIC_KEY,
    JWKS,
    NOW_TS,
    OTHER_CLIENT_PUBLIC_KEY,
    claims,
    es256,
    rs256,
)

EXAMPLE_KEY = "0394e549c71fa99dd5cf752fba623090be314949b74e4cdf7ca72031dd638e281a"
EXAMPLE_NONCE = "1663bba492a323085b13895634a3618792c4ec6896f3c34ef3c26396df22ef82"


def test_nonce(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "nonce", "--client-public-key", EXAMPLE_KEY)
    assert (status, out) == (0, EXAMPLE_NONCE + "\n")


def test_nonce_of_a_bad_key_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "nonce", "--client-public-key", "04" + "11" * 64)
    assert status == 2 and out == "" and err.startswith("ewc: error:")
    assert _run(capsys, "nonce")[0] == 2


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(JWKS))
    return {"jwks": jwks, "dir": tmp_path}


def _verify(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], token: str, *extra: str
) -> tuple[int, dict[str, Any]]:
    token_file = files["dir"] / "token.txt"
    token_file.write_text(token + "\n")
    argv = ["verify-oidc", "--token-file", str(token_file), "--jwks-file", str(files["jwks"])]
    status, out, _ = _run(capsys, *argv, "--audience", AUDIENCE, "--now", str(NOW_TS), *extra)
    return status, json.loads(out)


@pytest.mark.parametrize("mint", [es256, rs256])
def test_verify_oidc_valid(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], mint: Any
) -> None:
    status, verdict = _verify(capsys, files, mint(), "--client-public-key", CLIENT_PUBLIC_KEY)
    assert status == 0
    assert verdict == {
        "valid": True,
        "issuer": "https://accounts.google.com",
        "subject": "110169484474386276334",
        "audience": AUDIENCE,
        "email": "jane@example.com",
    }


@pytest.mark.parametrize(
    ("token", "extra", "code"),
    [
        (es256(claims(iat=NOW_TS - 61)), [], "OIDC_TOKEN_TOO_OLD"),
        (es256(), ["--client-public-key", OTHER_CLIENT_PUBLIC_KEY], "OIDC_NONCE_MISMATCH"),
        (es256(), ["--issuer", "https://login.example"], "OIDC_ISSUER_NOT_ALLOWED"),
        (es256(), ["--now", "2026-01-01T00:01:00Z"], "OIDC_TOKEN_TOO_OLD"),
        ("sandbox-valid-oidc-token", [], "OIDC_TOKEN_MALFORMED"),
    ],
)
def test_verify_oidc_failures(
    capsys: pytest.CaptureFixture[str],
    files: dict[str, Path],
    token: str,
    extra: list[str],
    code: str,
) -> None:
    status, verdict = _verify(capsys, files, token, *extra)
    assert status == 1
    assert verdict["valid"] is False and verdict["code"] == code
    assert verdict["httpReason"] == "Invalid OIDC token" and verdict["reason"]


def test_verify_oidc_sandbox_flag(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path]
) -> None:
    status, verdict = _verify(capsys, files, "sandbox-valid-oidc-token", "--sandbox")
    assert status == 0 and verdict["sandbox"] is True


@pytest.mark.parametrize(
    ("jwks_text", "extra"),
    [
        ("not json", []),
        ('{"keys": 3}', []),
        (json.dumps(JWKS), ["--client-public-key", "04zz"]),
        (json.dumps(JWKS), ["--now", "2026-01-01T00:00:00"]),
        (json.dumps(JWKS), ["--now", "yesterday"]),
    ],
)
def test_verify_oidc_bad_usage(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], jwks_text: str, extra: list[str]
) -> None:
    files["jwks"].write_text(jwks_text)
    token_file = files["dir"] / "token.txt"
    token_file.write_text(es256())
    argv = ["verify-oidc", "--token-file", str(token_file), "--jwks-file", str(files["jwks"])]
    status, out, err = _run(capsys, *argv, "--audience", AUDIENCE, *extra)
    assert status == 2 and out == "" and err.startswith("ewc: error:")


def test_verify_oidc_missing_file(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path]
) -> None:
    argv = ["verify-oidc", "--token-file", "/nonexistent", "--jwks-file", str(files["jwks"])]
    assert _run(capsys, *argv, "--audience", AUDIENCE)[0] == 2
