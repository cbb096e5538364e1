"""base58 fixtures (shared/upstream-vectors/base58, see SOURCES.md).

Bitcoin Core's encode/decode pairs and base-x's valid fixtures must round trip exactly through
``ewc.b58encode`` / ``ewc.b58decode``; bs58check's valid fixtures through ``ewc.b58check_encode``
/ ``ewc.b58check_decode``. Every invalid fixture must raise ``DecodeError`` with the code of
vectors/README.md: ``INVALID_BASE58`` for a character outside the alphabet (whitespace
included), ``INVALID_CHECKSUM`` for a wrong checksum.
"""

from __future__ import annotations

from collections.abc import Callable

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts

pytestmark = pytest.mark.upstream

BITCOIN_FILE = "base58/bitcoin_base58_encode_decode.json"
BS58CHECK_FILE = "base58/bs58check_fixtures.json"
BASE_X_FILE = "base58/base-x_fixtures_base58only.json"

# The upstream libraries' exception messages, mapped to this library's codes.
BS58CHECK_ERROR_CODES = {
    "Invalid checksum": "INVALID_CHECKSUM",
    "Non-base58 character": "INVALID_BASE58",
}


def _check_round_trip(
    failures: list[str],
    case_id: str,
    data: bytes,
    text: str,
    encode: Callable[[bytes], str],
    decode: Callable[[str], bytes],
) -> None:
    try:
        encoded: object = encode(data)
    except Exception as error:
        encoded = f"unexpected {error!r}"
    if encoded != text:
        failures.append(f"{case_id}: encode({data.hex()}) gave {encoded!r}, expected {text!r}")
    try:
        decoded: object = decode(text)
    except Exception as error:
        decoded = f"unexpected {error!r}"
    if decoded != data:
        failures.append(f"{case_id}: decode({text!r}) gave {decoded!r}, expected {data.hex()}")


def _check_rejected(
    failures: list[str], case_id: str, text: str, decode: Callable[[str], bytes], code: str
) -> None:
    try:
        decoded = decode(text)
    except ewc.DecodeError as error:
        if error.code != code:
            failures.append(
                f"{case_id}: decode({text!r}) raised DecodeError {error.code}, expected {code}"
            )
    except Exception as error:
        failures.append(f"{case_id}: decode({text!r}) raised {error!r}, expected DecodeError")
    else:
        failures.append(f"{case_id}: decode({text!r}) accepted, gave {decoded.hex()}")


def test_bitcoin_encode_decode() -> None:
    pairs = load_upstream_json(BITCOIN_FILE)
    failures: list[str] = []
    for index, (hex_data, text) in enumerate(pairs):
        _check_round_trip(
            failures, f"pair {index}", bytes.fromhex(hex_data), text, ewc.b58encode, ewc.b58decode
        )
    report_counts(BITCOIN_FILE, ran=len(pairs), valid=len(pairs), invalid=0, skipped=0)
    assert not failures, f"{BITCOIN_FILE}:\n" + "\n".join(failures)


def test_bs58check_fixtures() -> None:
    fixtures = load_upstream_json(BS58CHECK_FILE)
    failures: list[str] = []
    for index, case in enumerate(fixtures["valid"]):
        _check_round_trip(
            failures,
            f"valid[{index}]",
            bytes.fromhex(case["payload"]),
            case["string"],
            ewc.b58check_encode,
            ewc.b58check_decode,
        )
    for index, case in enumerate(fixtures["invalid"]):
        code = BS58CHECK_ERROR_CODES[case["exception"]]
        _check_rejected(failures, f"invalid[{index}]", case["string"], ewc.b58check_decode, code)
    valid, invalid = len(fixtures["valid"]), len(fixtures["invalid"])
    report_counts(BS58CHECK_FILE, ran=valid + invalid, valid=valid, invalid=invalid, skipped=0)
    assert not failures, f"{BS58CHECK_FILE}:\n" + "\n".join(failures)


def test_base_x_fixtures() -> None:
    fixtures = load_upstream_json(BASE_X_FILE)
    valid_cases = [case for case in fixtures["valid"] if case["alphabet"] == "base58"]
    invalid_cases = [case for case in fixtures["invalid"] if case["alphabet"] == "base58"]
    skipped = len(fixtures["valid"]) + len(fixtures["invalid"]) - len(valid_cases)
    skipped -= len(invalid_cases)
    failures: list[str] = []
    for index, case in enumerate(valid_cases):
        _check_round_trip(
            failures,
            f"valid[{index}]",
            bytes.fromhex(case["hex"]),
            case["string"],
            ewc.b58encode,
            ewc.b58decode,
        )
    for index, case in enumerate(invalid_cases):
        case_id = f"invalid[{index}] ({case['description']})"
        _check_rejected(failures, case_id, case["string"], ewc.b58decode, "INVALID_BASE58")
    valid, invalid = len(valid_cases), len(invalid_cases)
    report_counts(BASE_X_FILE, ran=valid + invalid, valid=valid, invalid=invalid, skipped=skipped)
    assert not failures, f"{BASE_X_FILE}:\n" + "\n".join(failures)
