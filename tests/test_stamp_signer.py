"""``Stamp.signer_among``: which of a set of public keys (an account's session keys) made a
verified stamp. The same key matches in every encoding (compressed or uncompressed SEC1, hex in
either case, bytes); a malformed candidate, another key, or the sandbox stamp never matches."""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pytest

PAYLOAD = '{"organizationId":"org","parameters":{},"timestampMs":"1","type":"T"}'
SESSION = ewc.KeyPair.from_private_hex("51" * 32)
OTHER = ewc.KeyPair.from_private_hex("52" * 32)
STAMP = ewc.verify_stamp(ewc.create_stamp(PAYLOAD, SESSION), PAYLOAD)
ALL_SCHEMES = (ewc.STAMP_SCHEME_P256, ewc.STAMP_SCHEME_SECP256K1, ewc.STAMP_SCHEME_ED25519)


def _forms(key: ewc.KeyPair) -> list[Any]:
    compressed = key.public_key_bytes(compressed=True)
    uncompressed = key.public_key_bytes()
    return [
        compressed.hex(),
        compressed.hex().upper(),
        uncompressed.hex(),
        uncompressed.hex().upper(),
        compressed,
        uncompressed,
        bytearray(uncompressed),
        memoryview(compressed),
    ]


@pytest.mark.parametrize("form", range(8))
def test_the_signing_key_matches_in_every_encoding(form: int) -> None:
    candidate = _forms(SESSION)[form]
    others = [OTHER.public_key_hex(), OTHER.public_key_hex(compressed=True)]
    assert STAMP.signer_among([*others, candidate]) is candidate
    if not isinstance(candidate, bytearray):  # a mapping's keys (bytearray is unhashable)
        assert STAMP.signer_among({candidate: "AuthMethod:1"}) is candidate


def test_the_first_matching_candidate_is_returned_as_given() -> None:
    upper, lower = SESSION.public_key_hex().upper(), SESSION.public_key_hex(compressed=True)
    assert STAMP.signer_among(iter([upper, lower])) is upper


@pytest.mark.parametrize(
    "candidates",
    [
        [],
        [OTHER.public_key_hex(), OTHER.public_key_hex(compressed=True)],
        ["", "zz", "02" + "ff" * 32, "\ud800" * 66, "05" + STAMP.public_key[2:]],
        # the same x with the other parity: another point
        [("03" if STAMP.public_key.startswith("02") else "02") + STAMP.public_key[2:]],
        [" " + STAMP.public_key, STAMP.public_key + "00", STAMP.public_key[:-2]],
    ],
    ids=["none", "other-key", "malformed", "other-parity", "not-exactly-the-key"],
)
def test_no_match(candidates: list[Any]) -> None:
    assert STAMP.signer_among(candidates) is None


def test_the_lowercase_text_rule_it_replaces_missed_the_uncompressed_form() -> None:
    # The sandbox compared ``stamp.public_key.lower()`` with the stored keys' text: a session key
    # kept uncompressed never matched its own stamp.
    stored = [SESSION.public_key_hex()]
    assert STAMP.public_key.lower() not in {key.lower() for key in stored}
    assert STAMP.signer_among(stored) == stored[0]


def test_the_sandbox_stamp_names_no_key() -> None:
    sandbox = ewc.verify_stamp("sandbox-valid-signature", PAYLOAD, sandbox=True)
    assert sandbox.scheme == "SANDBOX"
    assert sandbox.signer_among([SESSION.public_key_hex(), ""]) is None


def test_secp256k1_and_ed25519_signers() -> None:
    k1 = ewc.Secp256k1KeyPair.from_private_bytes(bytes([7]) * 32)
    ed = ewc.Ed25519KeyPair.from_private_bytes(bytes([8]) * 32)
    for key in (k1, ed):
        stamp = ewc.verify_stamp(ewc.create_stamp(PAYLOAD, key), PAYLOAD, schemes=ALL_SCHEMES)
        public = key.public_key_hex()
        for form in (public, public.upper(), bytes.fromhex(public)):
            assert stamp.signer_among([SESSION.public_key_hex(), form]) is form
        assert stamp.signer_among([" " + public, public[:-2], "zz", "é" * 66]) is None
    # A P-256 key never answers for a secp256k1 stamp, nor the reverse.
    k1_stamp = ewc.verify_stamp(ewc.create_stamp(PAYLOAD, k1), PAYLOAD, schemes=ALL_SCHEMES)
    assert k1_stamp.signer_among([SESSION.public_key_hex(compressed=True)]) is None
    assert STAMP.signer_among([k1.public_key_hex()]) is None


def released() -> memoryview:
    view = memoryview(b"released")
    view.release()
    return view


@pytest.mark.parametrize(
    "candidates",
    [SESSION.public_key_hex(), SESSION.public_key_bytes(), [1], [None], [released()]],
    ids=["one-key-as-text", "one-key-as-bytes", "an-int", "none", "released-memoryview"],
)
def test_wrong_types_are_type_errors(candidates: Any) -> None:
    with pytest.raises(TypeError):
        STAMP.signer_among(candidates)


def test_released_memoryview_under_the_other_schemes_is_a_type_error() -> None:
    ed = ewc.Ed25519KeyPair.from_private_bytes(bytes([8]) * 32)
    stamp = ewc.verify_stamp(ewc.create_stamp(PAYLOAD, ed), PAYLOAD, schemes=ALL_SCHEMES)
    with pytest.raises(TypeError):
        stamp.signer_among([released()])
