"""The Turnkey clients' DER-signature and P-256 point cases (shared/upstream-vectors/turnkey-sdk,
``der_signature_parsing.json`` and ``p256_point_decoding.json``, see SOURCES.md).

DER signatures go through ``ewc.der_to_p1363``, ``ewc.p1363_to_der`` and the verify paths
``ewc.verify_signature`` and ``ewc.verify_stamp`` (the signature inside a P-256 stamp). The
library reads strict DER only, so its verdict is the file's ``derived.strict_der``: a strict
input converts to ``derived.p1363_hex`` and back to the same bytes, ``verify_signature`` reads
it (False: it is not a signature by the key used here) and the stamp is
``WALLET_SIGNATURE_INVALID``; every other input is ``DecodeError``
``INVALID_SIGNATURE_ENCODING`` and the stamp ``WALLET_SIGNATURE_MALFORMED``. Where upstream
is lenient (it accepts one non-strict input, a SEQUENCE with trailing zero bytes), the case is
counted as a deliberate divergence.

Points go through ``ewc.parse_public_key``, ``ewc.compress_public_key``, ``ewc.verify_signature``
(the key argument) and ``ewc.hpke.seal`` (the recipient key): the valid keys give the expected
coordinates and both SEC1 forms; the off-curve keys and the bad prefix are ``InvalidKey``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts

pytestmark = pytest.mark.upstream

DER_FILE = "turnkey-sdk/der_signature_parsing.json"
POINT_FILE = "turnkey-sdk/p256_point_decoding.json"
KEY = ewc.KeyPair.from_private_bytes(bytes([28]) * 32)
MESSAGE = b"turnkey-sdk DER case"

# The point refusals, by case id: the code each invalid key must raise.
POINT_CODES = {
    "uncompressed-off-curve": "INVALID_POINT",
    "uncompressed-off-curve-2": "INVALID_POINT",
    "uncompress-invalid-prefix": "INVALID_KEY_PREFIX",
}


def _stamp(der: bytes) -> str:
    """A P-256 stamp by KEY's public key carrying ``der`` as its signature."""
    body = {
        "publicKey": KEY.public_key_hex(compressed=True),
        "scheme": ewc.STAMP_SCHEME_P256,
        "signature": der.hex(),
    }
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


def _code(call: Any, *args: Any) -> str:
    try:
        call(*args)
    except ewc.WalletCryptoError as error:
        return f"{type(error).__name__}:{error.code}"
    return "accepted"


def test_der_signature_parsing() -> None:
    cases = load_upstream_json(DER_FILE)["cases"]
    assert len(cases) == 18, f"expected the 18 DER cases, got {len(cases)}"
    failures: list[str] = []
    counts = {"accepted": 0, "refused": 0, "upstream_lenient_refused_here": 0}
    for case in cases:
        case_id, der = case["id"], bytes.fromhex(case["input"]["der_hex"])
        upstream_ok = bool(case["expected"].get("ok"))
        if case["derived"]["strict_der"]:
            assert upstream_ok, f"{case_id}: a strict input that upstream refuses"
            p1363 = ewc.der_to_p1363(der)
            if p1363.hex() != case["derived"]["p1363_hex"]:
                failures.append(f"{case_id}: der_to_p1363 gave {p1363.hex()}")
            if ewc.p1363_to_der(p1363) != der:
                failures.append(f"{case_id}: p1363_to_der does not give the input back")
            if ewc.verify_signature(KEY.public_key_bytes(), MESSAGE, der) is not False:
                failures.append(f"{case_id}: verify_signature did not answer False")
            got = _code(ewc.verify_stamp, _stamp(der), MESSAGE)
            if got != "StampError:WALLET_SIGNATURE_INVALID":
                failures.append(f"{case_id}: verify_stamp gave {got}")
            counts["accepted"] += 1
            continue
        for name, call, args in (
            ("der_to_p1363", ewc.der_to_p1363, (der,)),
            ("verify_signature", ewc.verify_signature, (KEY.public_key_bytes(), MESSAGE, der)),
        ):
            got = _code(call, *args)
            if got != "DecodeError:INVALID_SIGNATURE_ENCODING":
                failures.append(f"{case_id}: {name} gave {got}")
        got = _code(ewc.verify_stamp, _stamp(der), MESSAGE)
        if got != "StampError:WALLET_SIGNATURE_MALFORMED":
            failures.append(f"{case_id}: verify_stamp gave {got}")
        if upstream_ok:
            counts["upstream_lenient_refused_here"] += 1
        else:
            counts["refused"] += 1
    report_counts(DER_FILE, **counts)
    assert not failures, "\n".join(failures)


def test_p256_point_decoding() -> None:
    cases = load_upstream_json(POINT_FILE)["cases"]
    assert len(cases) == 9, f"expected the 9 point cases, got {len(cases)}"
    failures: list[str] = []
    counts = {"valid": 0, "invalid": 0}
    for case in cases:
        case_id, key_hex = case["id"], case["input"]["public_key_hex"]
        expected = case["expected"]
        if "error" in expected:
            code = f"InvalidKey:{POINT_CODES[case_id]}"
            for name, call, args in (
                ("parse_public_key", ewc.parse_public_key, (key_hex,)),
                ("parse_public_key (bytes)", ewc.parse_public_key, (bytes.fromhex(key_hex),)),
                ("compress_public_key", ewc.compress_public_key, (key_hex,)),
                ("verify_signature", ewc.verify_signature, (key_hex, b"m", KEY.sign(b"m"))),
                ("hpke.seal", ewc.hpke.seal, (key_hex, b"m")),
            ):
                got = _code(call, *args)
                if got != code:
                    failures.append(f"{case_id}: {name} gave {got}, expected {code}")
            counts["invalid"] += 1
            continue
        uncompressed = ewc.parse_public_key(key_hex)
        compressed = ewc.compress_public_key(key_hex)
        for got, want, what in (
            (uncompressed[1:33].hex(), expected.get("x_hex"), "x"),
            (uncompressed[33:].hex(), expected.get("y_hex"), "y"),
            (uncompressed.hex(), expected.get("uncompressed_hex"), "uncompressed"),
            (compressed.hex(), expected.get("compressed_hex"), "compressed"),
        ):
            if want is not None and got != want:
                failures.append(f"{case_id}: {what} {got}, expected {want}")
        # Both forms name the same key, in any hex case.
        if ewc.parse_public_key(compressed) != uncompressed:
            failures.append(f"{case_id}: the compressed form parses to another point")
        if ewc.parse_public_key(key_hex.upper()) != uncompressed:
            failures.append(f"{case_id}: upper-case hex parses to another point")
        if compressed[0] not in (2, 3) or compressed[1:] != uncompressed[1:33]:
            failures.append(f"{case_id}: compressed form {compressed.hex()}")
        if compressed[0] != 2 + (uncompressed[-1] & 1):
            failures.append(f"{case_id}: compressed prefix does not carry y's parity")
        counts["valid"] += 1
    report_counts(POINT_FILE, **counts)
    assert not failures, "\n".join(failures)
