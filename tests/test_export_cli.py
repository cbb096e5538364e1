"""What clients do with an export's plaintext (the BIP-39 check, the raw-key hex), and the
``ewc open-export`` / ``ewc seal-export`` commands (formats.md section 8)."""

from __future__ import annotations

import hashlib
import io
from importlib import resources
from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.cli import main
from test_export import CLIENT, IMPOSTOR, MNEMONIC, ORG, RAW_KEY, SIGNER, opened, sealed

MNEMONIC_24 = " ".join(["zoo"] * 23 + ["vote"])

# --- what clients do with the plaintext ------------------------------------------------------


def test_the_word_list_is_the_bip39_english_list() -> None:
    data = (resources.files("embedded_wallet_crypto") / "data" / "bip39_english.txt").read_bytes()
    digest = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
    assert hashlib.sha256(data).hexdigest() == digest
    assert len(data.split()) == 2048


@pytest.mark.parametrize(
    "mnemonic",
    [
        MNEMONIC,
        MNEMONIC_24,
        "abandon " * 11 + "about",
        "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
        "legal winner thank year wave sausage worth useful legal winner thank year wave sausage "
        "worth useful legal will",
    ],
)
def test_check_mnemonic_accepts_bip39_test_mnemonics(mnemonic: str) -> None:
    assert ewc.export.check_mnemonic(mnemonic) == " ".join(mnemonic.split())
    assert ewc.export.check_mnemonic(mnemonic.encode()) == " ".join(mnemonic.split())
    assert ewc.export.is_valid_mnemonic(f"  {mnemonic}\n")


@pytest.mark.parametrize(
    ("mnemonic", "code"),
    [
        (MNEMONIC.replace("yellow", "year"), "MNEMONIC_CHECKSUM"),
        (MNEMONIC.replace("legal", "legl", 1), "MNEMONIC_UNKNOWN_WORD"),
        (MNEMONIC.replace("legal", "Legal", 1), "MNEMONIC_UNKNOWN_WORD"),
        (MNEMONIC + " legal", "MNEMONIC_WORD_COUNT"),
        (" ".join(MNEMONIC.split()[:11]), "MNEMONIC_WORD_COUNT"),
        ("", "MNEMONIC_WORD_COUNT"),
        (b"\xff" * 60, "MNEMONIC_NOT_TEXT"),
    ],
)
def test_check_mnemonic_flags_a_damaged_mnemonic(mnemonic: str | bytes, code: str) -> None:
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.export.check_mnemonic(mnemonic)
    assert raised.value.code == code
    assert "legl" not in raised.value.reason and "year" not in raised.value.reason
    assert not ewc.export.is_valid_mnemonic(mnemonic)


def test_raw_key_hex() -> None:
    assert ewc.export.raw_key_hex(RAW_KEY) == RAW_KEY.hex()
    assert ewc.export.raw_key_hex(opened(sealed(RAW_KEY))) == RAW_KEY.hex()
    for wrong in (RAW_KEY[:31], RAW_KEY + b"\x00", MNEMONIC.encode()):
        with pytest.raises(ewc.DecodeError) as raised:
            ewc.export.raw_key_hex(wrong)
        assert raised.value.code == "INVALID_LENGTH"


# --- the command line ------------------------------------------------------------------------


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {
        "client": CLIENT.private_key_bytes().hex(),
        "signer": SIGNER.private_key_bytes().hex(),
        "mnemonic": MNEMONIC + "\n",
        "key": RAW_KEY.hex() + "\n",
    }
    for name, text in paths.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in paths}


def test_cli_seal_then_open(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path
) -> None:
    for secret, shown in (("--mnemonic-file", MNEMONIC), ("--key-file", RAW_KEY.hex())):
        status, out, _ = _cli(
            capsys,
            "seal-export",
            "--client-public-key",
            CLIENT.public_key_hex(),
            "--organization-id",
            ORG,
            secret,
            files[secret[2:].split("-")[0]],
            "--signer-key-file",
            files["signer"],
        )
        assert status == 0
        bundle = tmp_path / "bundle.json"
        bundle.write_text(out)
        args = [
            "open-export",
            "--bundle",
            str(bundle),
            "--private-key-file",
            files["client"],
            "--organization-id",
            ORG,
            "--signer",
            SIGNER.public_key_hex(),
        ]
        assert _cli(capsys, *args) == (0, shown + "\n", "")
        status, out, err = _cli(capsys, *args[:-1], "preproduction")
        assert (status, out) == (1, "") and "ENVELOPE_SIGNER_NOT_PINNED" in err
        status, out, err = _cli(capsys, *args[:-2])  # the production signer by default
        assert (status, out) == (1, "") and "ENVELOPE_SIGNER_NOT_PINNED" in err


def test_cli_open_export_sandbox_and_failures(
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bundle = tmp_path / "sandbox.json"
    bundle.write_text(sealed(signer=None))
    args = ["open-export", "--bundle", str(bundle), "--private-key-file", files["client"]]
    status, out, err = _cli(capsys, *args)
    assert (status, out) == (1, "") and "ENVELOPE_UNSIGNED" in err
    assert _cli(capsys, *args, "--sandbox") == (0, MNEMONIC + "\n", "")
    damaged = tmp_path / "damaged.json"
    damaged.write_text(sealed(MNEMONIC.replace("yellow", "year"), signer=None))
    status, out, err = _cli(
        capsys,
        "open-export",
        "--bundle",
        str(damaged),
        "--private-key-file",
        files["client"],
        "--sandbox",
    )
    assert (status, out) == (1, "") and "MNEMONIC_CHECKSUM" in err
    (tmp_path / "broken.json").write_text("{not json")
    status, out, err = _cli(
        capsys,
        "open-export",
        "--bundle",
        str(tmp_path / "broken.json"),
        "--private-key-file",
        files["client"],
    )
    assert (status, out) == (2, "") and "not valid JSON" in err
    status, _, err = _cli(capsys, *args, "--signer", "staging")
    assert status == 2 and "--signer" in err
    wrong_key = tmp_path / "other"
    wrong_key.write_text(IMPOSTOR.private_key_bytes().hex())
    status, out, err = _cli(
        capsys,
        "open-export",
        "--bundle",
        str(bundle),
        "--private-key-file",
        str(wrong_key),
        "--sandbox",
    )
    assert (status, out) == (1, "") and "DECRYPTION_FAILED" in err
    monkeypatch.setattr("sys.stdin", _Stdin(sealed(signer=None).encode()))
    assert _cli(
        capsys, "open-export", "--bundle", "-", "--private-key-file", files["client"], "--sandbox"
    ) == (0, MNEMONIC + "\n", "")


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)
