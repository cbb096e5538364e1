"""Wycheproof (C2SP/wycheproof testvectors_v1, shared/upstream-vectors/wycheproof/SOURCES.md).

One test per file; each runs every case, collects the mismatches with their ``tcId`` and fails
listing them all. Result rules:

* ``valid``: the operation succeeds with exactly the expected output.
* ``invalid``: the operation is rejected in the documented way (a False verdict or the documented
  exception class); any other exception is a failure, because bad input must never raise
  anything but a ``WalletCryptoError`` subclass of the documented kind.
* ``acceptable``: either outcome passes (both are counted), but a success must still give the
  expected output, and an undocumented exception is still a failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
    load_der_public_key,
)
from embedded_wallet_crypto import _native
from embedded_wallet_crypto._native import test_support

pytestmark = pytest.mark.upstream

HKDF_SHA256_MAX_OUTPUT = 255 * 32


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = load_upstream_json(f"wycheproof/{name}")
    total = sum(len(group["tests"]) for group in data["testGroups"])
    assert total == data["numberOfTests"], (
        f"{name}: {total} cases, header says {data['numberOfTests']}"
    )
    return data


def _cases(data: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for group in data["testGroups"]:
        for test in group["tests"]:
            yield group, test


def _case_id(test: dict[str, Any]) -> str:
    flags = ",".join(test["flags"])
    return f"tcId {test['tcId']} ({test['result']}; {flags}; {test['comment']!r})"


def _private_key(hex_scalar: str) -> bytes:
    """Wycheproof scalars are minimal big-endian integers (a leading 00, or fewer than 32
    bytes); the library takes exactly 32 bytes."""
    return int(hex_scalar, 16).to_bytes(32, "big")


def _summary(name: str, failures: list[str]) -> str:
    return f"{name}: {len(failures)} failing cases:\n" + "\n".join(failures)


# --- ECDSA ------------------------------------------------------------------------------------


def _verify_outcome(verify: Callable[[], bool]) -> str:
    """``verified``, ``rejected`` (False), ``DecodeError:<code>``, or a description of anything
    else (a non-bool result or an undocumented exception), which is always a failure."""
    try:
        verdict = verify()
    except ewc.DecodeError as error:
        return f"DecodeError:{error.code}"
    except Exception as error:
        return f"unexpected {error!r}"
    if verdict is True:
        return "verified"
    if verdict is False:
        return "rejected"
    return f"unexpected return value {verdict!r}"


def _run_ecdsa(name: str, verify: Callable[[bytes, bytes, bytes], bool]) -> None:
    data = _load(name)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    for group, test in _cases(data):
        assert group["publicKey"]["curve"] == "secp256r1" and group["sha"] == "SHA-256"
        public_key = bytes.fromhex(group["publicKey"]["uncompressed"])
        message, signature = bytes.fromhex(test["msg"]), bytes.fromhex(test["sig"])
        outcome = _verify_outcome(lambda: verify(public_key, message, signature))  # noqa: B023
        result = test["result"]
        counts[result] += 1
        if outcome.startswith("unexpected"):
            failures.append(f"{_case_id(test)}: {outcome}")
        elif result == "valid" and outcome != "verified":
            failures.append(f"{_case_id(test)}: a valid signature gave {outcome}")
        elif result == "invalid" and outcome == "verified":
            failures.append(f"{_case_id(test)}: an invalid signature verified")
        elif result == "acceptable" and outcome == "verified":
            counts["acceptable_verified"] += 1
    report_counts(
        f"wycheproof/{name}",
        ran=sum(counts[result] for result in ("valid", "invalid", "acceptable")),
        valid=counts["valid"],
        invalid=counts["invalid"],
        acceptable=counts["acceptable"],
        acceptable_verified=counts["acceptable_verified"],
        skipped=0,
    )
    assert not failures, _summary(name, failures)


def test_ecdsa_secp256r1_sha256_der() -> None:
    _run_ecdsa("ecdsa_secp256r1_sha256_test.json", ewc.verify_signature)


def test_ecdsa_secp256r1_sha256_p1363() -> None:
    _run_ecdsa("ecdsa_secp256r1_sha256_p1363_test.json", _native.verify_signature_p1363)


# --- ECDH -------------------------------------------------------------------------------------


def _ecdh_outcome(private_key: bytes, point: bytes) -> tuple[str, bytes | None]:
    """Parse and validate ``point`` with the public API, then run the core's ECDH on it."""
    try:
        shared = test_support.ecdh_for_tests(private_key, ewc.parse_public_key(point))
    except ewc.InvalidKey as error:
        return f"InvalidKey:{error.code}", None
    except Exception as error:
        return f"unexpected {error!r}", None
    return "agreed", shared


def _ecdh_direct(private_key: bytes, point: bytes) -> str:
    """The core's ECDH on an unvalidated point: ``rejected`` (InvalidKey) or what happened."""
    try:
        shared = test_support.ecdh_for_tests(private_key, point)
    except ewc.InvalidKey:
        return "rejected"
    except Exception as error:
        return f"unexpected {error!r}"
    return f"agreed on {shared.hex()}"


def _check_ecdh(
    test: dict[str, Any], point: bytes, counts: Counter[str], failures: list[str]
) -> None:
    """The result rules for one ECDH case whose public key reaches the library as ``point``."""
    private_key = _private_key(test["private"])
    outcome, shared = _ecdh_outcome(private_key, point)
    result = test["result"]
    # tcId 2 (CompressedPublic) is "acceptable" upstream; the library accepts compressed
    # points everywhere (the API reference), so here it must work like a valid case.
    must_agree = result == "valid" or "CompressedPublic" in test["flags"]
    if outcome.startswith("unexpected"):
        failures.append(f"{_case_id(test)}: {outcome}")
    elif outcome == "agreed":
        if result == "invalid":
            failures.append(f"{_case_id(test)}: an invalid public key was accepted")
        elif shared != bytes.fromhex(test["shared"]):
            assert shared is not None
            failures.append(f"{_case_id(test)}: shared {shared.hex()}, expected {test['shared']}")
        elif result == "acceptable":
            counts["acceptable_agreed"] += 1
    elif must_agree:
        failures.append(f"{_case_id(test)}: {outcome}")
    if result == "invalid":
        # The core's ECDH must not rely on the caller having validated the point.
        direct = _ecdh_direct(private_key, point)
        if direct != "rejected":
            failures.append(f"{_case_id(test)}: ecdh_for_tests on the raw point gave {direct}")


def test_ecdh_secp256r1_ecpoint() -> None:
    name = "ecdh_secp256r1_ecpoint_test.json"
    data = _load(name)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    for group, test in _cases(data):
        assert group["curve"] == "secp256r1" and group["encoding"] == "ecpoint"
        counts[test["result"]] += 1
        _check_ecdh(test, bytes.fromhex(test["public"]), counts, failures)
    report_counts(
        f"wycheproof/{name}",
        ran=counts["valid"] + counts["invalid"] + counts["acceptable"],
        valid=counts["valid"],
        invalid=counts["invalid"],
        acceptable=counts["acceptable"],
        acceptable_agreed=counts["acceptable_agreed"],
        skipped=0,
    )
    assert not failures, _summary(name, failures)


def _spki_point(spki_der: bytes) -> bytes | None:
    """The uncompressed P-256 point of an X.509 SubjectPublicKeyInfo, or None when
    ``cryptography`` rejects the structure or it is not a P-256 key. The library takes points,
    not SPKI, so ``cryptography`` is only the ASN.1 front end here."""
    try:
        key = load_der_public_key(spki_der)
    except (ValueError, UnsupportedAlgorithm):
        return None
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        return None
    return key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def test_ecdh_secp256r1_spki() -> None:
    """ECDH with the peer key as SPKI DER.

    A case whose SPKI ``cryptography`` rejects, or which is not P-256 (wrong curve, explicit or
    modified curve parameters, broken ASN.1), never reaches the library: it must be ``invalid``
    or ``acceptable`` upstream (a ``valid`` one is a failure) and is counted as
    ``spki_rejected``. Every other case goes through the library as its uncompressed point with
    the rules of the module docstring. An ``invalid`` case whose SPKI ``cryptography`` accepts
    therefore must be rejected by the library (``InvalidKey``); if the library accepts its
    point, the test fails naming the tcId, since that point is then valid and the defect
    Wycheproof planted is in the SPKI wrapper, which ``cryptography`` let through. With
    cryptography 50.0.2 there are no such cases: every invalid SPKI in this file is refused by
    ``cryptography`` (the same points run through the library in the ecpoint test).
    """
    name = "ecdh_secp256r1_test.json"
    data = _load(name)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    for group, test in _cases(data):
        assert group["curve"] == "secp256r1" and group["encoding"] == "asn"
        counts[test["result"]] += 1
        point = _spki_point(bytes.fromhex(test["public"]))
        if point is None:
            counts[f"spki_rejected_{test['result']}"] += 1
            if test["result"] == "valid":
                failures.append(f"{_case_id(test)}: cryptography rejected a valid SPKI")
            continue
        counts["to_library"] += 1
        _check_ecdh(test, point, counts, failures)
    report_counts(
        f"wycheproof/{name}",
        ran=counts["valid"] + counts["invalid"] + counts["acceptable"],
        valid=counts["valid"],
        invalid=counts["invalid"],
        acceptable=counts["acceptable"],
        acceptable_agreed=counts["acceptable_agreed"],
        to_library=counts["to_library"],
        spki_rejected_invalid=counts["spki_rejected_invalid"],
        spki_rejected_acceptable=counts["spki_rejected_acceptable"],
        skipped=0,
    )
    assert not failures, _summary(name, failures)


# --- AES-GCM ----------------------------------------------------------------------------------


def test_aes_gcm() -> None:
    """AES-128-GCM and AES-256-GCM with 96-bit nonces and 128-bit tags, the sizes HPKE uses;
    the groups of other key, nonce or tag sizes are skipped and counted."""
    name = "aes_gcm_test.json"
    data = _load(name)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    for group in data["testGroups"]:
        if not (
            group["keySize"] in (128, 256) and group["ivSize"] == 96 and group["tagSize"] == 128
        ):
            counts["skipped_groups"] += 1
            counts["skipped"] += len(group["tests"])
            continue
        for test in group["tests"]:
            counts[test["result"]] += 1
            key, nonce = bytes.fromhex(test["key"]), bytes.fromhex(test["iv"])
            aad, msg = bytes.fromhex(test["aad"]), bytes.fromhex(test["msg"])
            sealed = bytes.fromhex(test["ct"] + test["tag"])
            try:
                opened: bytes | str = test_support.aes_gcm_open(key, nonce, aad, sealed)
            except ewc.DecryptionError:
                opened = "DecryptionError"
            except Exception as error:
                opened = f"unexpected {error!r}"
            if test["result"] == "valid":
                if opened != msg:
                    failures.append(f"{_case_id(test)}: open gave {opened!r}")
                ours = test_support.aes_gcm_seal(key, nonce, aad, msg)
                if ours != sealed:
                    failures.append(f"{_case_id(test)}: seal gave {ours.hex()}")
            elif opened != "DecryptionError":
                failures.append(f"{_case_id(test)}: open of an invalid case gave {opened!r}")
    report_counts(
        f"wycheproof/{name}",
        ran=counts["valid"] + counts["invalid"],
        valid=counts["valid"],
        invalid=counts["invalid"],
        skipped=counts["skipped"],
        skipped_groups=counts["skipped_groups"],
    )
    assert not failures, _summary(name, failures)


# --- HKDF -------------------------------------------------------------------------------------


def test_hkdf_sha256() -> None:
    """HKDF-SHA256 through the core's extract and expand; the invalid cases ask for more than
    255 * HashLen bytes, which must be ``DecodeError`` with code ``INVALID_LENGTH``."""
    name = "hkdf_sha256_test.json"
    data = _load(name)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    for _group, test in _cases(data):
        counts[test["result"]] += 1
        prk = test_support.hkdf_extract(bytes.fromhex(test["salt"]), bytes.fromhex(test["ikm"]))
        info, size = bytes.fromhex(test["info"]), test["size"]
        if test["result"] == "valid":
            okm = test_support.hkdf_expand(prk, info, size)
            if okm != bytes.fromhex(test["okm"]):
                failures.append(f"{_case_id(test)}: okm {okm.hex()}")
            continue
        assert size > HKDF_SHA256_MAX_OUTPUT, f"{_case_id(test)}: unexpected kind of invalid case"
        try:
            test_support.hkdf_expand(prk, info, size)
        except ewc.DecodeError as error:
            if error.code != "INVALID_LENGTH":
                failures.append(f"{_case_id(test)}: DecodeError with code {error.code}")
        except Exception as error:
            failures.append(f"{_case_id(test)}: unexpected {error!r}")
        else:
            failures.append(f"{_case_id(test)}: size {size} was accepted")
    report_counts(
        f"wycheproof/{name}",
        ran=counts["valid"] + counts["invalid"],
        valid=counts["valid"],
        invalid=counts["invalid"],
        skipped=0,
    )
    assert not failures, _summary(name, failures)
