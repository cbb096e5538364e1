"""RFC 9180 and RFC 5869 known answers (shared/upstream-vectors/hpke, see SOURCES.md).

RFC 9180: every mode_base suite of DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 with AES-128-GCM
(aead_id 1) and AES-256-GCM (aead_id 2) runs through the public ``ewc.hpke`` API: DeriveKeyPair
for both key pairs, SetupBaseS with the vector's ephemeral key, every encryption sealed in
sequence order on one sender context and opened in order on one receiver context, and every
export on both contexts. The other modes (psk, auth, auth_psk) are not part of the profile and
are counted as skipped.

RFC 5869: the three HKDF-SHA256 cases through the core's ``hkdf_extract`` / ``hkdf_expand``.
"""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts, upstream_file
from embedded_wallet_crypto import testing
from embedded_wallet_crypto._native import test_support

pytestmark = pytest.mark.upstream

RFC9180_FILE = "hpke/rfc9180-test-vectors-p256-sha256-aesgcm.json"
RFC5869_FILE = "hpke/rfc5869_hkdf_sha256.txt"

MODE_BASE = 0
KEM_DHKEM_P256 = 16
KDF_HKDF_SHA256 = 1


def _profile_suites(aead_id: int) -> tuple[dict[str, Any], int]:
    """The one mode_base suite for ``aead_id``, and the case count of the other modes skipped."""
    suites = [
        suite
        for suite in load_upstream_json(RFC9180_FILE)
        if suite["kem_id"] == KEM_DHKEM_P256
        and suite["kdf_id"] == KDF_HKDF_SHA256
        and suite["aead_id"] == aead_id
    ]
    base = [suite for suite in suites if suite["mode"] == MODE_BASE]
    assert len(base) == 1, f"expected one mode_base suite for aead_id {aead_id}, got {len(base)}"
    skipped = sum(_case_count(suite) for suite in suites if suite["mode"] != MODE_BASE)
    return base[0], skipped


def _case_count(suite: dict[str, Any]) -> int:
    # One case for the key schedule (both DeriveKeyPair calls and enc), one per encryption,
    # one per export.
    return 1 + len(suite["encryptions"]) + len(suite["exports"])


def _check(failures: list[str], case_id: str, got: bytes, expected_hex: str) -> None:
    if got != bytes.fromhex(expected_hex):
        failures.append(f"{case_id}: got {got.hex()}, expected {expected_hex.lower()}")


def _check_derive_key_pair(failures: list[str], suite: dict[str, Any], who: str) -> None:
    key_pair = ewc.hpke.derive_key_pair(bytes.fromhex(suite[f"ikm{who}"]))
    _check(
        failures, f"DeriveKeyPair(ikm{who}) sk", key_pair.private_key_bytes(), suite[f"sk{who}m"]
    )
    _check(failures, f"DeriveKeyPair(ikm{who}) pk", key_pair.public_key_bytes(), suite[f"pk{who}m"])


@pytest.mark.parametrize("aead_id", [1, 2], ids=["aes128gcm", "aes256gcm"])
def test_rfc9180_base_mode(aead_id: int) -> None:
    suite, skipped = _profile_suites(aead_id)
    info = bytes.fromhex(suite["info"])
    failures: list[str] = []

    _check_derive_key_pair(failures, suite, "E")
    _check_derive_key_pair(failures, suite, "R")

    enc, sender = testing.setup_sender_deterministic_for_tests(
        bytes.fromhex(suite["pkRm"]),
        ephemeral_key=ewc.KeyPair.from_private_bytes(bytes.fromhex(suite["skEm"])),
        info=info,
        aead=aead_id,
    )
    _check(failures, "SetupBaseS enc", enc, suite["enc"])
    receiver = ewc.hpke.setup_receiver(
        bytes.fromhex(suite["skRm"]), bytes.fromhex(suite["enc"]), info=info, aead=aead_id
    )

    for sequence, encryption in enumerate(suite["encryptions"]):
        aad = bytes.fromhex(encryption["aad"])
        sealed = sender.seal(aad, bytes.fromhex(encryption["pt"]))
        _check(failures, f"encryptions[{sequence}] seal", sealed, encryption["ct"])
        try:
            opened = receiver.open(aad, bytes.fromhex(encryption["ct"]))
        except ewc.WalletCryptoError as error:
            failures.append(f"encryptions[{sequence}] open raised {error!r}")
            continue
        _check(failures, f"encryptions[{sequence}] open", opened, encryption["pt"])

    for index, export in enumerate(suite["exports"]):
        exporter_context = bytes.fromhex(export["exporter_context"])
        for role, context in (("sender", sender), ("receiver", receiver)):
            exported = context.export(exporter_context, export["L"])
            _check(failures, f"exports[{index}] {role}", exported, export["exported_value"])

    ran = _case_count(suite)
    report_counts(
        f"{RFC9180_FILE} mode_base aead_id={aead_id}",
        ran=ran,
        valid=ran,
        invalid=0,
        skipped=skipped,
    )
    assert not failures, f"{len(failures)} RFC 9180 mismatches:\n" + "\n".join(failures)


def _rfc5869_cases() -> list[dict[str, str]]:
    """The ``KEY = value`` blocks of the CAVP-style text file, one per ``COUNT``."""
    cases: list[dict[str, str]] = []
    for line in upstream_file(RFC5869_FILE).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "[")):
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key == "COUNT":
            cases.append({})
        cases[-1][key] = value
    return cases


def test_rfc5869_hkdf_sha256() -> None:
    cases = _rfc5869_cases()
    assert len(cases) == 3, f"expected the 3 cases of RFC 5869 Appendix A.1-A.3, got {len(cases)}"
    failures: list[str] = []
    for case in cases:
        case_id = f"COUNT {case['COUNT']}"
        assert case["Hash"] == "SHA-256", f"{case_id}: unexpected hash {case['Hash']}"
        prk = test_support.hkdf_extract(bytes.fromhex(case["salt"]), bytes.fromhex(case["IKM"]))
        _check(failures, f"{case_id} PRK", prk, case["PRK"])
        okm = test_support.hkdf_expand(prk, bytes.fromhex(case["info"]), int(case["L"]))
        _check(failures, f"{case_id} OKM", okm, case["OKM"])
    report_counts(RFC5869_FILE, ran=len(cases), valid=len(cases), invalid=0, skipped=0)
    assert not failures, "RFC 5869 mismatches:\n" + "\n".join(failures)
