"""RFC 9180 and RFC 5869 known answers (shared/upstream-vectors/hpke, see SOURCES.md).

RFC 9180: every mode_base suite of DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 with AES-128-GCM
(aead_id 1) and AES-256-GCM (aead_id 2) runs through the public ``ewc.hpke`` API: DeriveKeyPair
for both key pairs, SetupBaseS with the vector's ephemeral key, every encryption sealed in
sequence order on one sender context and opened in order on one receiver context, and every
export on both contexts. The other modes (psk, auth, auth_psk) are not part of the profile and
are counted as skipped.

The same two suites against a second, independent HPKE: pyca/cryptography's
(``cryptography.hazmat.primitives.hpke``, OpenSSL's HPKE, cryptography 47 and later). Its public
API is single-shot and takes no AAD, while every RFC 9180 encryption has one, so: the known
answer of each suite's first encryption (sequence 0, the only one a single-shot API can reach)
goes through cryptography's ``_decrypt_with_aad`` (a private helper of the pinned version,
named here on purpose); and with the public API, both directions on the vectors' recipient key
and ``info``: cryptography seals, ``ewc.hpke`` opens, and the reverse (empty AAD).

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


ORACLE_ROUND_TRIPS = 16  # per suite and direction, on the vectors' plaintexts


@pytest.mark.parametrize("aead_id", [1, 2], ids=["aes128gcm", "aes256gcm"])
def test_rfc9180_base_mode_against_cryptography_hpke(aead_id: int) -> None:
    # cryptography 47+ (requirements-dev.txt pins it): an older one fails here, never skips.
    from cryptography.hazmat.bindings._rust import openssl as rust_openssl
    from cryptography.hazmat.primitives import hpke
    from cryptography.hazmat.primitives.asymmetric import ec

    suite, _ = _profile_suites(aead_id)
    aead = {1: hpke.AEAD.AES_128_GCM, 2: hpke.AEAD.AES_256_GCM}[aead_id]
    oracle = hpke.Suite(hpke.KEM.P256, hpke.KDF.HKDF_SHA256, aead)
    recipient = ec.derive_private_key(int(suite["skRm"], 16), ec.SECP256R1())
    info, enc = bytes.fromhex(suite["info"]), bytes.fromhex(suite["enc"])
    failures: list[str] = []

    # The RFC's known answer at sequence 0, opened by OpenSSL's HPKE.
    first = suite["encryptions"][0]
    opened = rust_openssl.hpke._decrypt_with_aad(
        oracle,
        enc + bytes.fromhex(first["ct"]),
        recipient,
        info=info,
        aad=bytes.fromhex(first["aad"]),
    )
    _check(failures, "cryptography opens encryptions[0]", opened, first["pt"])
    # And the RFC's ephemeral key gives the RFC's enc in both implementations' key schedule:
    # ewc's sequence-0 seal with that key is the vector's ciphertext (opened above by OpenSSL).
    _, sender = testing.setup_sender_deterministic_for_tests(
        bytes.fromhex(suite["pkRm"]),
        ephemeral_key=ewc.KeyPair.from_private_bytes(bytes.fromhex(suite["skEm"])),
        info=info,
        aead=aead_id,
    )
    sealed = sender.seal(bytes.fromhex(first["aad"]), bytes.fromhex(first["pt"]))
    _check(failures, "ewc seals encryptions[0]", sealed, first["ct"])

    round_trips = 0
    for sequence, encryption in enumerate(suite["encryptions"][:ORACLE_ROUND_TRIPS]):
        plaintext = bytes.fromhex(encryption["pt"]) + sequence.to_bytes(2, "big")
        # cryptography seals, ewc opens.
        message = oracle.encrypt(plaintext, recipient.public_key(), info=info)
        their_enc, their_ct = message[:65], message[65:]
        receiver = ewc.hpke.setup_receiver(
            bytes.fromhex(suite["skRm"]), their_enc, info=info, aead=aead_id
        )
        _check(
            failures,
            f"ewc opens cryptography's seal {sequence}",
            receiver.open(b"", their_ct),
            plaintext.hex(),
        )
        if aead_id == 2:  # the profile's AEAD: the single-shot API too
            single = ewc.hpke.open(
                bytes.fromhex(suite["skRm"]), their_enc, their_ct, info=info, aad=b""
            )
            _check(failures, f"hpke.open of their seal {sequence}", single, plaintext.hex())
            our_enc, our_ct = ewc.hpke.seal(
                bytes.fromhex(suite["pkRm"]), plaintext, info=info, aad=b""
            )
            opened = oracle.decrypt(our_enc + our_ct, recipient, info=info)
            _check(failures, f"cryptography opens hpke.seal {sequence}", opened, plaintext.hex())
            round_trips += 2
        # ewc seals, cryptography opens.
        our_enc, context = ewc.hpke.setup_sender(
            bytes.fromhex(suite["pkRm"]), info=info, aead=aead_id
        )
        ours = our_enc + context.seal(b"", plaintext)
        _check(
            failures,
            f"cryptography opens ewc's seal {sequence}",
            oracle.decrypt(ours, recipient, info=info),
            plaintext.hex(),
        )
        round_trips += 2

    report_counts(
        f"{RFC9180_FILE} mode_base aead_id={aead_id} vs cryptography HPKE",
        known_answers=2,
        round_trips=round_trips,
    )
    assert not failures, f"{len(failures)} mismatches with cryptography's HPKE:\n" + "\n".join(
        failures
    )


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
