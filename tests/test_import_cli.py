"""``ewc import-wallet``, ``ewc import-private-key`` and ``ewc open-export --key-format``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.cli import main

MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"
ORG, USER = "org-cli", "User:cli"
SIGNER = ewc.KeyPair.from_private_bytes(bytes([5]) * 32)
TARGET = ewc.KeyPair.from_private_bytes(bytes([6]) * 32)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _bundle(tmp_path: Path, *, user: str = USER) -> str:
    bundle = ewc.seal_import_bundle(
        TARGET.public_key_hex(), organization_id=ORG, user_id=user, signer=SIGNER
    )
    return _write(tmp_path, "bundle.json", bundle)


def _identity(user: str = USER) -> list[str]:
    return ["--organization-id", ORG, "--user-id", user, "--signer", SIGNER.public_key_hex()]


def test_import_wallet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mnemonic = _write(tmp_path, "mnemonic.txt", MNEMONIC + "\n")
    passphrase = _write(tmp_path, "passphrase.txt", "TREZOR\n")
    args = ["import-wallet", "--bundle", _bundle(tmp_path), "--mnemonic-file", mnemonic]
    assert main([*args, *_identity(), "--passphrase-file", passphrase]) == 0
    sealed = capsys.readouterr().out.strip()
    assert ewc.open_import_bundle(sealed, TARGET) == (MNEMONIC + "\n--PASS--\nTREZOR").encode()
    assert main([*args, "--organization-id", "org-other", "--user-id", USER,
                 "--signer", SIGNER.public_key_hex()]) == 1  # fmt: skip
    assert "ENVELOPE_ORGANIZATION_MISMATCH" in capsys.readouterr().err
    assert main([*args, "--signer", SIGNER.public_key_hex()]) == 2
    assert "--accept-v0" in capsys.readouterr().err


def test_import_wallet_from_stdin_refuses_a_bad_mnemonic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(MNEMONIC.replace("yellow", "year").encode()))
    monkeypatch.setattr("sys.stdin", stdin)
    args = ["import-wallet", "--bundle", _bundle(tmp_path), "--mnemonic-file", "-"]
    assert main([*args, *_identity()]) == 1
    err = capsys.readouterr().err
    assert "MNEMONIC_CHECKSUM" in err and "legal" not in err


@pytest.mark.parametrize("key_format", [member.value for member in ewc.KeyFormat])
def test_import_private_key_and_open_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key_format: str
) -> None:
    key = bytes(range(1, 33))
    text = ewc.encode_private_key(key, key_format)
    key_file = _write(tmp_path, "key.txt", text + "\n")
    args = ["import-private-key", "--bundle", _bundle(tmp_path, user=""), "--key-file", key_file]
    assert main([*args, "--key-format", key_format, *_identity("")]) == 0
    sealed = capsys.readouterr().out.strip()
    assert ewc.open_import_bundle(sealed, TARGET) == key
    # The server exports it back; the client shows it in the same format.
    client = ewc.KeyPair.generate()
    exported = ewc.seal_export_bundle(
        client.public_key_hex(), key, organization_id=ORG, signer=SIGNER
    )
    client_file = _write(tmp_path, "client.txt", client.private_key_bytes().hex())
    export_file = _write(tmp_path, "export.json", exported)
    open_args = ["open-export", "--bundle", export_file, "--private-key-file", client_file]
    code = main([*open_args, "--signer", SIGNER.public_key_hex(), "--key-format", key_format])
    assert code == 0
    assert capsys.readouterr().out.strip() == text


def test_import_private_key_refuses_another_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wif = ewc.encode_private_key(bytes(range(1, 33)), "BITCOIN_TESTNET_WIF")
    key_file = _write(tmp_path, "key.txt", wif)
    args = ["import-private-key", "--bundle", _bundle(tmp_path), "--key-file", key_file]
    assert main([*args, "--key-format", "BITCOIN_MAINNET_WIF", *_identity()]) == 1
    assert "WIF_VERSION_MISMATCH" in capsys.readouterr().err
    assert main([*args, "--key-format", "PEM", *_identity()]) == 2


def test_open_export_key_format_refuses_a_wallet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = ewc.KeyPair.generate()
    exported = ewc.seal_export_bundle(
        client.public_key_hex(), MNEMONIC, organization_id=ORG, signer=SIGNER
    )
    args = [
        "open-export",
        "--bundle", _write(tmp_path, "export.json", exported),
        "--private-key-file", _write(tmp_path, "client.txt", client.private_key_bytes().hex()),
        "--signer", SIGNER.public_key_hex(),
    ]  # fmt: skip
    assert main([*args, "--key-format", "SOLANA"]) == 1
    assert "INVALID_LENGTH" in capsys.readouterr().err
    assert main(args) == 0
    assert capsys.readouterr().out.strip() == MNEMONIC


def test_accept_v0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = TARGET.public_key_bytes()
    v0 = json.dumps({"targetPublic": raw.hex(), "targetPublicSignature": SIGNER.sign(raw).hex()})
    mnemonic = _write(tmp_path, "mnemonic.txt", MNEMONIC)
    args = ["import-wallet", "--bundle", _write(tmp_path, "v0.json", v0)]
    args += ["--mnemonic-file", mnemonic, "--signer", SIGNER.public_key_hex()]
    assert main([*args, "--accept-v0"]) == 0
    assert ewc.open_import_bundle(capsys.readouterr().out.strip(), TARGET) == MNEMONIC.encode()
    assert main([*args, "--accept-v0", "--organization-id", ORG]) == 2
