"""base58 and base58check, Bitcoin alphabet (API reference: base58; formats.md section 3)."""

from __future__ import annotations

import hashlib

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import _native

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

# (bytes, base58) known answers (Bitcoin Core's base58_encode_decode.json).
PLAIN = [
    (b"", ""),
    (bytes.fromhex("61"), "2g"),
    (bytes.fromhex("626262"), "a3gV"),
    (bytes.fromhex("636363"), "aPEr"),
    (b"simply a long string", "2cFupjhnEsSn59qHXstmK2ffpLv2"),
    (
        bytes.fromhex("00eb15231dfceb60925886b67d065299925915aeb172c06647"),
        "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L",
    ),
    (bytes.fromhex("516b6fcd0f"), "ABnLTmg"),
    (bytes.fromhex("bf4f89001e670274dd"), "3SEo3LWLoPntC"),
    (bytes.fromhex("572e4794"), "3EFU7m"),
    (bytes.fromhex("ecac89cad93923c02321"), "EJDM8drfXA6uyA"),
    (bytes.fromhex("10c8511e"), "Rt5zm"),
    (bytes.fromhex("00000000000000000000"), "1111111111"),
    (b"hello world", "StV1DL6CwTryKyV"),
    (bytes.fromhex("0000287fb4cd"), "11233QC4"),
    (
        bytes.fromhex(
            "000111d38e5fc9071ffcd20b4a763cc9ae4f252bb4e48fd66a835e252ada93ff480d6dd43dc62a641155a5"
        ),
        ALPHABET,
    ),
]

GENESIS_ADDRESS = "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"
GENESIS_PAYLOAD = bytes.fromhex("0062e907b15cbf27d5425399ebf6f0fb50ebb88f18")


def _checksum(payload: bytes) -> bytes:
    return hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]


def _decode_error(code: str, func, text: str) -> ewc.DecodeError:
    with pytest.raises(ewc.DecodeError) as info:
        func(text)
    assert type(info.value) is ewc.DecodeError
    assert info.value.code == code, info.value.reason
    assert info.value.status == 400
    return info.value


@pytest.mark.parametrize(("data", "text"), PLAIN, ids=[t or "empty" for _, t in PLAIN])
def test_plain_known_answers(data: bytes, text: str) -> None:
    assert ewc.b58encode(data) == text
    assert ewc.b58decode(text) == data
    assert isinstance(ewc.b58encode(data), str)
    assert isinstance(ewc.b58decode(text), bytes)


def test_plain_accepts_byte_likes() -> None:
    assert ewc.b58encode(bytearray(b"hello world")) == "StV1DL6CwTryKyV"
    assert ewc.b58encode(memoryview(b"hello world")) == "StV1DL6CwTryKyV"


@pytest.mark.parametrize("zeros", range(6))
def test_leading_zeros(zeros: int) -> None:
    for tail in (b"", b"\x01", b"\xff\x00", b"\x00\x01"):
        data = b"\x00" * zeros + tail
        text = ewc.b58encode(data)
        lead = zeros + (1 if tail[:1] == b"\x00" else 0)
        assert text.startswith("1" * lead)
        assert not text[lead:].startswith("1")
        assert ewc.b58decode(text) == data
        checked = ewc.b58check_encode(data)
        assert ewc.b58check_decode(checked) == data
        assert checked.startswith("1" * lead)


def test_only_ones_decode_to_zeros() -> None:
    for n in range(10):
        assert ewc.b58decode("1" * n) == b"\x00" * n


def test_round_trip_lengths() -> None:
    for length in range(0, 100):
        data = bytes((i * 37 + length) & 0xFF for i in range(length))
        text = ewc.b58encode(data)
        assert set(text) <= set(ALPHABET)
        assert ewc.b58decode(text) == data
        checked = ewc.b58check_encode(data)
        assert set(checked) <= set(ALPHABET)
        assert ewc.b58check_decode(checked) == data
        assert ewc.b58decode(checked) == data + _checksum(data)


def test_check_known_answers() -> None:
    assert ewc.b58check_decode(GENESIS_ADDRESS) == GENESIS_PAYLOAD
    assert ewc.b58check_encode(GENESIS_PAYLOAD) == GENESIS_ADDRESS
    assert ewc.b58check_encode(b"") == "3QJmnh"
    assert ewc.b58check_decode("3QJmnh") == b""
    assert ewc.b58check_encode(bytearray(GENESIS_PAYLOAD)) == GENESIS_ADDRESS


def test_check_is_plain_plus_double_sha256() -> None:
    payload = b"\x02" + b"\x11" * 32 + b"\x22" * 48  # 81 bytes, the session-key layout
    text = ewc.b58check_encode(payload)
    assert text == ewc.b58encode(payload + _checksum(payload))
    assert len(ewc.b58decode(text)) == 85
    assert ewc.b58check_decode(text) == payload


def test_native_matches_public() -> None:
    assert _native.b58encode(b"abc") == ewc.b58encode(b"abc")
    assert _native.b58check_decode(GENESIS_ADDRESS) == GENESIS_PAYLOAD


# ---------------------------------------------------------------------------------------------
# Strictness

BAD_TEXTS = {
    "zero": "0",
    "capital_o": "O",
    "capital_i": "I",
    "lower_l": "l",
    "plus": "+",
    "slash": "/",
    "equals": "=",
    "dash": "-",
    "underscore": "_",
    "space": " ",
    "tab": "\t",
    "newline": "\n",
    "cr": "\r",
    "nbsp": "\u00a0",
    "nul": "\x00",
    "e_acute": "é",
    "fullwidth_one": "\uff11",
    "arabic_indic_one": "\u0661",
    "emoji": "\U0001f600",
    "zero_width_space": "\u200b",
}


@pytest.mark.parametrize("bad", list(BAD_TEXTS.values()), ids=list(BAD_TEXTS))
@pytest.mark.parametrize("where", ["alone", "start", "middle", "end"])
def test_bad_characters(bad: str, where: str) -> None:
    good = GENESIS_ADDRESS
    text = {
        "alone": bad,
        "start": bad + good,
        "middle": good[:10] + bad + good[10:],
        "end": good + bad,
    }[where]
    _decode_error("INVALID_BASE58", ewc.b58decode, text)
    _decode_error("INVALID_BASE58", ewc.b58check_decode, text)


def test_whitespace_everywhere() -> None:
    good = GENESIS_ADDRESS
    for ws in (" ", "\t", "\n", "\r\n", "\v", "\f"):
        for i in range(len(good) + 1):
            text = good[:i] + ws + good[i:]
            _decode_error("INVALID_BASE58", ewc.b58check_decode, text)
            _decode_error("INVALID_BASE58", ewc.b58decode, text)


def test_checksum_change() -> None:
    good = GENESIS_ADDRESS
    for i, char in enumerate(good):
        for replacement in ("1", "2", "z", "Z"):
            if replacement == char:
                continue
            text = good[:i] + replacement + good[i + 1 :]
            try:
                decoded = ewc.b58decode(text)
            except ewc.DecodeError:  # pragma: no cover - every char here is in the alphabet
                pytest.fail("plain decode rejected an in-alphabet string")
            if len(decoded) >= 4 and _checksum(decoded[:-4]) == decoded[-4:]:
                continue  # astronomically unlikely collision
            _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, text)


def test_checksum_byte_flips() -> None:
    raw = GENESIS_PAYLOAD + _checksum(GENESIS_PAYLOAD)
    for i in range(len(raw)):
        for bit in (0x01, 0x80):
            bad = raw[:i] + bytes([raw[i] ^ bit]) + raw[i + 1 :]
            _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, ewc.b58encode(bad))


def test_dropped_or_added_character() -> None:
    good = GENESIS_ADDRESS
    _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, good[:-1])
    _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, good[1:])
    _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, good + "1")
    _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, "1" + good)


@pytest.mark.parametrize("length", range(4))
def test_short_input(length: int) -> None:
    for fill in (b"\x00", b"\x01", b"\xff"):
        text = ewc.b58encode(fill * length)
        _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, text)
    _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, "")


def test_four_zero_bytes_is_a_bad_checksum() -> None:
    # "1111" decodes to four zero bytes: a 0-byte payload with checksum 00000000 (wrong).
    _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, "1111")


def test_decode_rejects_bytes_input() -> None:
    with pytest.raises(TypeError):
        ewc.b58decode(b"abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.b58encode("abc")  # type: ignore[arg-type]


def test_error_message_has_no_secret() -> None:
    secret = "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"
    err = _decode_error("INVALID_BASE58", ewc.b58decode, secret + "0")
    assert secret not in err.reason
    err = _decode_error("INVALID_CHECKSUM", ewc.b58check_decode, secret[:-1] + "2")
    assert secret[:-1] not in err.reason
