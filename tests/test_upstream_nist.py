"""NIST CAVP FIPS 186-3 ECDSA P-256 vectors (shared/upstream-vectors/nist, see SOURCES.md).

SigVer: the message is raw (the library hashes it with SHA-256), R and S are integers that
``cryptography``'s ``encode_dss_signature`` turns into DER; ``Result = P`` must verify and
``Result = F`` must give False (every Q in the file is a valid point, so a changed message, R, S
or Q is a wrong signature, not malformed input).

PKV: ``04 || Qx || Qy`` through ``ewc.parse_public_key``; ``P`` must parse to the same 65
bytes, ``F`` must raise ``InvalidKey``. A coordinate that does not fit in 32 bytes has no 65-byte
encoding: the test passes its minimal big-endian bytes instead, an over-long key, which must be
refused with ``INVALID_KEY_LENGTH``; an in-range coordinate that is >= p or off the curve must
be refused with ``INVALID_POINT``.
"""

from __future__ import annotations

import embedded_wallet_crypto as ewc
import pytest
from conftest import report_counts, upstream_file
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

pytestmark = pytest.mark.upstream

SIGVER_FILE = "nist/ecdsa_fips186-3_SigVer_P-256_SHA-256.rsp"
PKV_FILE = "nist/ecdsa_fips186-3_PKV_P-256.rsp"
COORDINATE_BYTES = 32


def _rsp_records(relative: str) -> list[dict[str, str]]:
    """The ``Key = value`` records of a CAVP response file; each ends with its ``Result``."""
    records: list[dict[str, str]] = []
    record: dict[str, str] = {}
    for line in upstream_file(relative).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "[")):
            continue
        key, _, value = line.partition("=")
        record[key.strip()] = value.strip()
        if key.strip() == "Result":
            records.append(record)
            record = {}
    assert not record, f"{relative}: trailing record without a Result: {record}"
    return records


def _case_id(index: int, record: dict[str, str]) -> str:
    return f"record {index} (Result = {record['Result']})"


def _coordinate_bytes(hex_integer: str) -> bytes:
    """32 big-endian bytes, or the minimal encoding when the integer does not fit."""
    value = int(hex_integer, 16)
    length = max(COORDINATE_BYTES, (value.bit_length() + 7) // 8)
    return value.to_bytes(length, "big")


def _sec1_point(record: dict[str, str]) -> bytes:
    return b"\x04" + _coordinate_bytes(record["Qx"]) + _coordinate_bytes(record["Qy"])


def test_sigver_p256_sha256() -> None:
    records = _rsp_records(SIGVER_FILE)
    failures: list[str] = []
    for index, record in enumerate(records):
        case_id = _case_id(index, record)
        signature = encode_dss_signature(int(record["R"], 16), int(record["S"], 16))
        try:
            verdict: object = ewc.verify_signature(
                _sec1_point(record), bytes.fromhex(record["Msg"]), signature
            )
        except Exception as error:
            verdict = f"unexpected {error!r}"
        expected = record["Result"].startswith("P")
        if verdict is not expected:
            failures.append(f"{case_id}: verify gave {verdict!r}, expected {expected}")
    passed = sum(record["Result"].startswith("P") for record in records)
    report_counts(
        SIGVER_FILE, ran=len(records), valid=passed, invalid=len(records) - passed, skipped=0
    )
    assert len(records) == 15, f"expected 15 SigVer records, got {len(records)}"
    assert not failures, f"{SIGVER_FILE}:\n" + "\n".join(failures)


def test_pkv_p256() -> None:
    records = _rsp_records(PKV_FILE)
    failures: list[str] = []
    over_long = 0
    for index, record in enumerate(records):
        case_id = _case_id(index, record)
        point = _sec1_point(record)
        try:
            parsed: object = ewc.parse_public_key(point)
        except ewc.InvalidKey as error:
            parsed = error
        except Exception as error:
            parsed = f"unexpected {error!r}"
        if record["Result"].startswith("P"):
            if parsed != point:
                failures.append(f"{case_id}: parse gave {parsed!r}")
            continue
        if len(point) != 1 + 2 * COORDINATE_BYTES:
            over_long += 1
            expected_code = "INVALID_KEY_LENGTH"
        else:
            expected_code = "INVALID_POINT"
        if not isinstance(parsed, ewc.InvalidKey):
            failures.append(f"{case_id}: a {len(point)}-byte invalid key gave {parsed!r}")
        elif parsed.code != expected_code:
            failures.append(f"{case_id}: InvalidKey {parsed.code}, expected {expected_code}")
    passed = sum(record["Result"].startswith("P") for record in records)
    report_counts(
        PKV_FILE,
        ran=len(records),
        valid=passed,
        invalid=len(records) - passed,
        invalid_over_long=over_long,
        skipped=0,
    )
    assert len(records) == 12, f"expected 12 PKV records, got {len(records)}"
    assert not failures, f"{PKV_FILE}:\n" + "\n".join(failures)
