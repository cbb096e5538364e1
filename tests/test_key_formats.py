"""Private-key formats (formats.md section 13): the frames' own known answers, the BIP-173/350
bech32 vectors, every negative as a DecodeError with a stable code, and round trips."""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts
from embedded_wallet_crypto import key_formats
from hypothesis import given
from hypothesis import strategies as st

FORMATS = list(ewc.KeyFormat)
KEY = bytes(range(1, 33))


def _upstream_cases() -> list[dict[str, Any]]:
    return list(load_upstream_json("turnkey-sdk/private_key_formats.json")["cases"])


def test_upstream_frames_known_answers() -> None:
    cases = _upstream_cases()
    for case in cases:
        key_format = case["key_format"] or "HEXADECIMAL"
        expected = case["expected"]
        if case["operation"] == "encode":
            key = bytes.fromhex(case["input"]["private_key_hex"])
            if "error" in expected:
                with pytest.raises(ewc.DecodeError) as raised:
                    ewc.encode_private_key(key, key_format)
                assert raised.value.code == "INVALID_LENGTH"
                continue
            text = ewc.encode_private_key(key, key_format)
            if key_format == "HEXADECIMAL":
                # The frames show hex with a 0x prefix; the library writes the bare digits.
                text = "0x" + text
            assert text == expected["text"], case["id"]
        else:
            text = case["input"]["text"]
            if "error" in expected:
                with pytest.raises(ewc.DecodeError):
                    ewc.decode_private_key(text, key_format)
                continue
            raw = ewc.decode_private_key(text, key_format)
            assert raw.hex() == expected["private_key_hex"], case["id"]
    report_counts("turnkey-sdk private_key_formats", cases=len(cases))


@pytest.mark.parametrize(
    ("case_id", "code"),
    [
        ("wif-mainnet-decode-invalid-char", "INVALID_BASE58"),
        ("wif-mainnet-decode-bad-checksum", "INVALID_CHECKSUM"),
        ("sui-decode-wrong-hrp", "SUI_PREFIX_MISMATCH"),
        ("sui-decode-flag-1", "SUI_FLAG_UNSUPPORTED"),
    ],
)
def test_upstream_negatives_have_stable_codes(case_id: str, code: str) -> None:
    case = next(c for c in _upstream_cases() if c["id"] == case_id)
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.decode_private_key(case["input"]["text"], case["key_format"])
    assert raised.value.code == code


def test_bech32_against_bip173_and_bip350() -> None:
    vectors = load_upstream_json("bech32/bip173_bip350_test_vectors.json")
    valid = vectors["bip173"]["valid_bech32"]
    for entry in valid:
        prefix, _ = key_formats.bech32_decode_words(entry["string"])
        assert prefix == entry["string"].lower()[: entry["string"].rfind("1")]
    refused = vectors["bip173"]["invalid_bech32"] + vectors["bip350"]["valid_bech32m"]
    for entry in refused:
        with pytest.raises(ewc.DecodeError) as raised:
            key_formats.bech32_decode_words(entry["string"])
        assert raised.value.code in {"INVALID_BECH32", "INVALID_CHECKSUM"}
    report_counts("bech32 BIP-173/350", valid=len(valid), refused=len(refused))


def test_bech32_encode_round_trips_the_bip173_payloads() -> None:
    vectors = load_upstream_json("bech32/bip173_bip350_test_vectors.json")
    for entry in vectors["bip173"]["valid_bech32"]:
        text = entry["string"]
        prefix, words = key_formats.bech32_decode_words(text)
        data = key_formats._regroup(words, 5, 8, pad=False)
        if data is None:  # 5-bit payloads that are not whole bytes
            continue
        assert key_formats.bech32_encode(prefix, bytes(data)) == text.lower()


@pytest.mark.parametrize("key_format", FORMATS)
def test_round_trip_every_format(key_format: ewc.KeyFormat) -> None:
    text = ewc.encode_private_key(KEY, key_format)
    assert ewc.decode_private_key(text, key_format) == KEY
    assert ewc.decode_private_key(text, key_format.value) == KEY


@given(key=st.binary(min_size=32, max_size=32), key_format=st.sampled_from(FORMATS))
def test_round_trip_property(key: bytes, key_format: ewc.KeyFormat) -> None:
    assert ewc.decode_private_key(ewc.encode_private_key(key, key_format), key_format) == key


@given(key=st.binary(min_size=32, max_size=32))
def test_hex_accepts_prefix_and_either_case(key: bytes) -> None:
    for text in (key.hex(), "0x" + key.hex(), "0X" + key.hex().upper()):
        assert ewc.decode_private_key(text, ewc.KeyFormat.HEXADECIMAL) == key


def _wif(version: int, body: bytes) -> str:
    return ewc.b58check_encode(bytes([version]) + body)


def _solana_mismatch() -> str:
    other = ewc.b58decode(ewc.encode_private_key(bytes(32), "SOLANA"))[32:]
    return ewc.b58encode(KEY + other)


@pytest.mark.parametrize(
    ("key_format", "text", "code"),
    [
        ("HEXADECIMAL", "zz" * 32, "INVALID_HEX"),
        ("HEXADECIMAL", "", "INVALID_HEX"),
        ("HEXADECIMAL", " " + KEY.hex(), "INVALID_HEX"),
        ("HEXADECIMAL", KEY.hex()[:-2], "INVALID_LENGTH"),
        ("HEXADECIMAL", "0x" + KEY.hex() + "00", "INVALID_LENGTH"),
        ("SOLANA", "0OIl", "INVALID_BASE58"),
        ("SOLANA", ewc.b58encode(KEY), "INVALID_LENGTH"),
        ("SOLANA", _solana_mismatch(), "SOLANA_PUBLIC_KEY_MISMATCH"),
        ("BITCOIN_MAINNET_WIF", _wif(0xEF, KEY + b"\x01"), "WIF_VERSION_MISMATCH"),
        ("BITCOIN_TESTNET_WIF", _wif(0x80, KEY + b"\x01"), "WIF_VERSION_MISMATCH"),
        ("BITCOIN_MAINNET_WIF", _wif(0x80, KEY), "WIF_UNCOMPRESSED"),
        ("BITCOIN_TESTNET_WIF", _wif(0xEF, KEY), "WIF_UNCOMPRESSED"),
        ("BITCOIN_MAINNET_WIF", _wif(0x80, KEY + b"\x02"), "WIF_FLAG_INVALID"),
        ("BITCOIN_MAINNET_WIF", _wif(0x80, KEY[:30] + b"\x01"), "INVALID_LENGTH"),
        ("BITCOIN_MAINNET_WIF", ewc.b58check_encode(b""), "WIF_VERSION_MISMATCH"),
        ("SUI_BECH32", key_formats.bech32_encode("sui", b"\x00" + KEY), "SUI_PREFIX_MISMATCH"),
        (
            "SUI_BECH32",
            key_formats.bech32_encode("suiprivkey", b"\x01" + KEY),
            "SUI_FLAG_UNSUPPORTED",
        ),
        ("SUI_BECH32", key_formats.bech32_encode("suiprivkey", KEY), "INVALID_LENGTH"),
        ("SUI_BECH32", ewc.encode_private_key(KEY, "SUI_BECH32")[:-1] + "q", "INVALID_CHECKSUM"),
        ("SUI_BECH32", "suiprivkey1" + "b" * 58, "INVALID_BECH32"),
        ("SUI_BECH32", "suiprivkey", "INVALID_BECH32"),
    ],
)
def test_negatives_are_decode_errors(key_format: str, text: str, code: str) -> None:
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.decode_private_key(text, key_format)
    assert raised.value.code == code
    assert text not in str(raised.value) or not text


def test_wrong_types_and_formats() -> None:
    with pytest.raises(TypeError):
        ewc.decode_private_key(b"00" * 32, "HEXADECIMAL")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.encode_private_key(KEY.hex(), "HEXADECIMAL")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.decode_private_key(KEY.hex(), 3)  # type: ignore[arg-type]
    with pytest.raises(ewc.WalletCryptoError) as raised:
        ewc.encode_private_key(KEY, "ETHEREUM")
    assert raised.value.code == "KEY_FORMAT_UNSUPPORTED"
    assert ewc.KeyFormat("SOLANA") is ewc.KeyFormat.SOLANA == "SOLANA"
    assert str(ewc.KeyFormat.SUI_BECH32) == "SUI_BECH32"


@given(text=st.text(max_size=120), key_format=st.sampled_from(FORMATS))
def test_any_text_decodes_or_raises_decode_error(text: str, key_format: ewc.KeyFormat) -> None:
    try:
        raw = ewc.decode_private_key(text, key_format)
    except ewc.DecodeError as error:
        assert error.code.isupper()
    else:
        assert len(raw) == 32


@given(
    prefix=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=20),
    data=st.binary(max_size=40),
)
def test_bech32_round_trip_property(prefix: str, data: bytes) -> None:
    text = key_formats.bech32_encode(prefix, data)
    if len(text) > key_formats.BECH32_MAX_LENGTH:
        return
    assert key_formats.bech32_decode(text) == (prefix, data)
    assert key_formats.bech32_decode(text.upper()) == (prefix, data)
