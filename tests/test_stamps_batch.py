"""Stamps many at once (the batch verifier against the single one, its arguments) and the
client-side payload binding (formats.md section 5)."""

from __future__ import annotations

import json
import random

import embedded_wallet_crypto as ewc
import pytest
from _stamps_support import (
    KEY,
    PAYLOAD,
    _fields,
    _stamp,
)

# --- many at once ----------------------------------------------------------------------------


def _mixed_batch(size: int, rng: random.Random) -> tuple[list[str], list[bytes], list[str | None]]:
    keys = [ewc.KeyPair.generate() for _ in range(4)]
    stamps, payloads, expected = [], [], []
    for index in range(size):
        key = rng.choice(keys)
        payload = f'{{"n":{index}}}'.encode()
        stamp = ewc.create_stamp(payload, key)
        kind = index % 10
        if kind == 1:
            payload += b" "
        elif kind == 2:
            stamp = stamp[: rng.randrange(len(stamp))]
        elif kind == 3:
            stamp = "".join(rng.choice("abc-_=!\n\u00e9") for _ in range(rng.randrange(40)))
        elif kind == 4:
            stamp = ""
        elif kind == 5:
            stamp = "sandbox-valid-signature"
        elif kind == 6:
            stamp = _stamp({**_fields(key, payload), "scheme": "OTHER"})
        stamps.append(stamp)
        payloads.append(payload)
        choice = rng.randrange(3)
        expected.append(
            None
            if choice == 0
            else key.public_key_hex(compressed=choice == 1)
            if rng.random() < 0.7
            else rng.choice(keys).public_key_hex()
        )
    return stamps, payloads, expected


def _single(stamp: str, payload: bytes, expected: str | None) -> bool:
    try:
        ewc.verify_stamp(stamp, payload, expected_public_key=expected)
    except ewc.StampError:
        return False
    return True


def test_verify_stamps_equals_verify_stamp_one_by_one() -> None:
    stamps, payloads, expected = _mixed_batch(500, random.Random(20240517))
    without_keys = ewc.verify_stamps(stamps, payloads)
    assert without_keys == [_single(s, p, None) for s, p in zip(stamps, payloads, strict=True)]
    with_keys = ewc.verify_stamps(stamps, payloads, expected)
    assert with_keys == [
        _single(s, p, e) for s, p, e in zip(stamps, payloads, expected, strict=True)
    ]
    assert 0 < with_keys.count(True) < without_keys.count(True) < len(stamps)


def test_verify_stamps_takes_str_payloads_and_iterables() -> None:
    stamp = ewc.create_stamp("hello", KEY)
    assert ewc.verify_stamps(iter([stamp, stamp]), ("hello", "hellp")) == [True, False]
    assert ewc.verify_stamps([], []) == []


@pytest.mark.parametrize(
    ("stamps", "payloads", "expected"),
    [(2, 1, None), (1, 2, None), (2, 2, 1), (2, 2, 3)],
)
def test_verify_stamps_length_mismatch(stamps: int, payloads: int, expected: int | None) -> None:
    stamp = ewc.create_stamp(PAYLOAD, KEY)
    keys = None if expected is None else [None] * expected
    with pytest.raises(ewc.DecodeError) as raised:
        ewc.verify_stamps([stamp] * stamps, [PAYLOAD] * payloads, keys)
    assert raised.value.code == "INVALID_LENGTH"


def test_verify_stamps_rejects_a_malformed_expected_key() -> None:
    with pytest.raises(ewc.InvalidKey):
        ewc.verify_stamps([ewc.create_stamp(PAYLOAD, KEY)], [PAYLOAD], ["04" + "00" * 64])


# --- the client's binding check (formats.md section 5) ---------------------------------------


def _export_payload(target: str) -> str:
    return json.dumps(
        {
            "organizationId": "org-1",
            "parameters": {"targetPublicKey": target, "walletId": "w"},
            "timestampMs": "1700000000000",
            "type": "ACTIVITY_TYPE_EXPORT_WALLET",
        },
        separators=(",", ":"),
    )


def test_payload_binding_accepts_the_clients_key_in_any_encoding() -> None:
    client = ewc.KeyPair.generate()
    for target in (client.public_key_hex(), client.public_key_hex(compressed=True)):
        for sent in (
            client.public_key_hex(),
            client.public_key_hex().upper(),
            client.public_key_bytes(),
        ):
            ewc.check_payload_binding(_export_payload(target), sent)
            ewc.check_payload_binding(_export_payload(target).encode(), sent)


def _binding_code(payload: str | bytes, client: str) -> str:
    with pytest.raises(ewc.StampError) as raised:
        ewc.check_payload_binding(payload, client)
    return raised.value.code


def test_payload_binding_rejects_a_swapped_or_missing_key() -> None:
    client = ewc.KeyPair.generate().public_key_hex()
    swapped = _export_payload(ewc.KeyPair.generate().public_key_hex())
    assert _binding_code(swapped, client) == "PAYLOAD_KEY_MISMATCH"
    assert _binding_code(_export_payload("04zz"), client) == "PAYLOAD_KEY_MISMATCH"
    assert _binding_code('{"parameters":{"walletId":"w"}}', client) == "PAYLOAD_KEY_MISMATCH"
    assert _binding_code('{"parameters":{"targetPublicKey":5}}', client) == "PAYLOAD_KEY_MISMATCH"
    for malformed in ("not json", "[]", '{"parameters":[]}', b"\xff\xfe", "{}"):
        assert _binding_code(malformed, client) == "PAYLOAD_MALFORMED"


@pytest.mark.parametrize(
    "payload",
    ["[" * 100_000, '{"x":1' + "0" * 5000 + "}"],
    ids=["deeply-nested", "huge-integer"],
)
def test_payload_binding_reports_hostile_json_as_malformed(payload: str) -> None:
    """PYTHON-LAYER BUG (stamps.py, check_payload_binding): json.loads raises RecursionError for
    deep nesting and ValueError (int digit limit) for huge integers; neither is caught, so bad
    input escapes as a non-WalletCryptoError (the error contract (docs/reference/errors.md)."""
    client = ewc.KeyPair.generate().public_key_hex()
    assert _binding_code(payload, client) == "PAYLOAD_MALFORMED"


def test_payload_binding_refuses_a_repeated_target_key() -> None:
    """json.loads keeps the last of two keys; a reader keeping the first sees another target."""
    client = ewc.KeyPair.generate().public_key_hex()
    attacker = ewc.KeyPair.generate().public_key_hex()
    payload = (
        '{"parameters":{"targetPublicKey":"' + attacker + '","targetPublicKey":"' + client + '"}}'
    )
    with pytest.raises(ewc.StampError) as raised:
        ewc.check_payload_binding(payload, client)
    assert raised.value.code == "PAYLOAD_MALFORMED"


def test_verify_stamps_follows_a_sandbox_process_default() -> None:
    """Same verdicts as verify_stamp one by one, whatever the process environment."""
    key = ewc.KeyPair.generate()
    stamps = [ewc.create_stamp(b"p", key), ewc.stamps.SANDBOX_STAMP, "garbage"]
    payloads = [b"p", b"p", b"p"]
    assert ewc.verify_stamps(stamps, payloads) == [True, False, False]
    ewc.set_default_environment(ewc.Environment.SANDBOX)
    try:
        assert ewc.verify_stamps(stamps, payloads) == [True, True, False]
        single = []
        for stamp in stamps:
            try:
                ewc.verify_stamp(stamp, b"p")
                single.append(True)
            except ewc.StampError:
                single.append(False)
        assert single == [True, True, False]
    finally:
        ewc.set_default_environment(ewc.Environment.PRODUCTION)
