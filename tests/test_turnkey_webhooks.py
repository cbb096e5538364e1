"""Webhooks of the key infrastructure (formats.md section 17): the upstream SDK's cases, the
header forms web frameworks give, every refusal with its code, the configuration checks, and
properties over the signed input. Keys are fixed seeds; Ed25519 is deterministic, so no verdict
depends on a random key or nonce."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
SEED = bytes(range(32))
SIGNER = Ed25519PrivateKey.from_private_bytes(SEED)
PUBLIC = SIGNER.public_key().public_bytes(
    serialization.Encoding.Raw, serialization.PublicFormat.Raw
)
OTHER_SEED = bytes(range(1, 33))
OTHER_PUBLIC = (
    Ed25519PrivateKey.from_private_bytes(OTHER_SEED)
    .public_key()
    .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
)
KEY_ID = "whk-1"
EVENT_ID = "evt_42"
TS = 1_767_225_600_000
NOW = EPOCH + timedelta(milliseconds=TS + 1500)
BODY = b'{"type":"ACTIVITY_COMPLETED"}'
KEYS = {KEY_ID: PUBLIC}


def _ms(ms: int) -> datetime:
    return EPOCH + timedelta(milliseconds=ms)


def sign(body: bytes = BODY, **changes: Any) -> dict[str, str]:
    arguments: dict[str, Any] = {
        "private_key": SEED,
        "key_id": KEY_ID,
        "event_id": EVENT_ID,
        "timestamp_ms": TS,
    }
    arguments.update(changes)
    return ewc.sign_turnkey_webhook(body, **arguments)


def verify(headers: Any, body: Any = BODY, **options: Any) -> ewc.TurnkeyWebhook:
    arguments: dict[str, Any] = {"verification_keys": KEYS, "max_age_seconds": 300, "now": NOW}
    arguments.update(options)
    return ewc.verify_turnkey_webhook(headers, body, **arguments)


def code(headers: Any, body: Any = BODY, **options: Any) -> str:
    with pytest.raises(ewc.WebhookError) as raised:
        verify(headers, body, **options)
    assert raised.value.status == (500 if raised.value.code.endswith("CONFIG_INVALID") else 401)
    return raised.value.code


# --- the upstream SDK's cases -----------------------------------------------------------------

UPSTREAM_REASON = {
    "invalid_signature": {
        "TURNKEY_WEBHOOK_SIGNATURE_INVALID",
        "TURNKEY_WEBHOOK_SIGNATURE_MALFORMED",
    },
    "missing_header": {"TURNKEY_WEBHOOK_HEADER_MISSING"},
    "missing_key": {"TURNKEY_WEBHOOK_KEY_UNKNOWN"},
    "invalid_verification_key": {"TURNKEY_WEBHOOK_CONFIG_INVALID"},
    "stale_timestamp": {"TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD", "TURNKEY_WEBHOOK_TIMESTAMP_IN_FUTURE"},
    "unsupported_signature_algorithm": {"TURNKEY_WEBHOOK_ALGORITHM_UNSUPPORTED"},
    "unsupported_signature_version": {"TURNKEY_WEBHOOK_VERSION_UNSUPPORTED"},
}


@pytest.mark.upstream
def test_upstream_sdk_cases() -> None:
    document = load_upstream_json("turnkey-sdk/webhook_ed25519.json")
    fixture = document["fixture"]
    # The derived fixture is what the signer gives for the upstream seed and fields.
    headers = ewc.sign_turnkey_webhook(
        fixture["body"],
        private_key=bytes.fromhex(fixture["private_key_seed_hex"]),
        key_id=fixture["key_id"],
        event_id=fixture["event_id"],
        timestamp_ms=fixture["timestamp_ms"],
    )
    assert headers["x-turnkey-signature"] == fixture["derived"]["signature_hex"]
    seed_key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(fixture["private_key_seed_hex"]))
    raw = seed_key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    assert raw.hex() == fixture["derived"]["public_key_hex"]
    accepted = refused = 0
    for case in document["cases"]:
        given_input, expected = case["input"], case["expected"]
        keys = {k["keyId"]: k["publicKey"] for k in given_input["verification_keys"]}
        arguments = {
            "verification_keys": keys,
            "max_age_seconds": given_input["max_timestamp_age_ms"] / 1000,
            "now": _ms(given_input["now_ms"]),
        }
        body = given_input["body"]
        if expected["ok"]:
            for form in (body, body.encode()):
                result = ewc.verify_turnkey_webhook(given_input["headers"], form, **arguments)
                assert result.event_id == expected.get("eventId", fixture["event_id"])
                assert result.key_id == expected.get("keyId", fixture["key_id"])
                assert result.timestamp_ms == expected.get("timestampMs", fixture["timestamp_ms"])
                assert result.timestamp == _ms(result.timestamp_ms)
            accepted += 1
        else:
            with pytest.raises(ewc.WebhookError) as raised:
                ewc.verify_turnkey_webhook(given_input["headers"], body, **arguments)
            assert raised.value.code in UPSTREAM_REASON[expected["reason"]], case["id"]
            if "headerName" in expected:
                assert expected["headerName"] in str(raised.value)
            refused += 1
    assert (accepted, refused) == (3, 10)
    report_counts("turnkey-sdk/webhook_ed25519.json", accepted=accepted, refused=refused)


# --- header forms ---------------------------------------------------------------------------


class Headers(Mapping[str, str]):
    """A read-only case-insensitive mapping like Starlette's or Django's headers."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self._pairs = pairs

    def __getitem__(self, name: str) -> str:
        for key, value in self._pairs:
            if key.lower() == name.lower():
                return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(k for k, _ in self._pairs)

    def __len__(self) -> int:
        return len(self._pairs)


def test_header_forms() -> None:
    headers = sign()
    pairs = [("Content-Type", "application/json"), *headers.items()]
    asgi = [(k.lower().encode(), v.encode()) for k, v in pairs]
    forms: list[Any] = [
        headers,
        {k.upper(): v for k, v in headers.items()},
        Headers(pairs),
        pairs,
        tuple(pairs),
        asgi,
        iter(pairs),
        {k: [v] for k, v in headers.items()},
    ]
    for form in forms:
        assert verify(form) == ewc.TurnkeyWebhook(EVENT_ID, KEY_ID, _ms(TS), TS)


def test_bodies() -> None:
    for body in (b"", b"\x00\xff binary", "caf\u00e9 text".encode(), b"x" * 100_000):
        headers = sign(body)
        assert verify(headers, body).event_id == EVENT_ID
        assert verify(headers, bytearray(body)).event_id == EVENT_ID
        assert verify(headers, memoryview(body)).event_id == EVENT_ID
    text = "caf\u00e9"
    assert verify(sign(text.encode()), text).key_id == KEY_ID


@pytest.mark.parametrize(
    "form",
    [
        lambda h: [*h.items(), ("X-Turnkey-Event-Id", "evt_other")],
        lambda h: [*h.items(), ("x-turnkey-signature", h["x-turnkey-signature"])],
        lambda h: {**h, "X-TURNKEY-TIMESTAMP": h["x-turnkey-timestamp"]},
        lambda h: {**h, "x-turnkey-event-id": [EVENT_ID, EVENT_ID]},
    ],
)
def test_duplicate_headers_are_refused(form: Any) -> None:
    assert code(form(sign())) == "TURNKEY_WEBHOOK_HEADER_DUPLICATE"


@pytest.mark.parametrize("name", list(sign()))
def test_each_header_is_required(name: str) -> None:
    headers = sign()
    assert code({k: v for k, v in headers.items() if k != name}) == (
        "TURNKEY_WEBHOOK_HEADER_MISSING"
    )
    assert code({**headers, name: ""}) == "TURNKEY_WEBHOOK_HEADER_MISSING"
    assert code({**headers, name: []}) == "TURNKEY_WEBHOOK_HEADER_MISSING"


@pytest.mark.parametrize(
    ("changes", "wanted"),
    [
        ({"x-turnkey-timestamp": "1767225600000.0"}, "TURNKEY_WEBHOOK_TIMESTAMP_MALFORMED"),
        ({"x-turnkey-timestamp": "-1"}, "TURNKEY_WEBHOOK_TIMESTAMP_MALFORMED"),
        ({"x-turnkey-timestamp": "\u0661\u0662\u0663"}, "TURNKEY_WEBHOOK_TIMESTAMP_MALFORMED"),
        ({"x-turnkey-timestamp": "9" * 17}, "TURNKEY_WEBHOOK_TIMESTAMP_MALFORMED"),
        ({"x-turnkey-timestamp": str(2**53)}, "TURNKEY_WEBHOOK_TIMESTAMP_MALFORMED"),
        ({"x-turnkey-timestamp": "0"}, "TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD"),
        ({"x-turnkey-timestamp": str(2**53 - 1)}, "TURNKEY_WEBHOOK_TIMESTAMP_IN_FUTURE"),
        ({"x-turnkey-signature-version": "v1 "}, "TURNKEY_WEBHOOK_VERSION_UNSUPPORTED"),
        ({"x-turnkey-signature-algorithm": "ED25519"}, "TURNKEY_WEBHOOK_ALGORITHM_UNSUPPORTED"),
        ({"x-turnkey-signature-key-id": "whk-2"}, "TURNKEY_WEBHOOK_KEY_UNKNOWN"),
        ({"x-turnkey-signature-key-id": "whk-1\n"}, "TURNKEY_WEBHOOK_HEADER_MALFORMED"),
        ({"x-turnkey-event-id": "evt.42"}, "TURNKEY_WEBHOOK_HEADER_MALFORMED"),
        ({"x-turnkey-event-id": "\ud800"}, "TURNKEY_WEBHOOK_HEADER_MALFORMED"),
        ({"x-turnkey-event-id": "e" * 257}, "TURNKEY_WEBHOOK_HEADER_MALFORMED"),
        ({"x-turnkey-event-id": "e" * 5000}, "TURNKEY_WEBHOOK_HEADER_MALFORMED"),
        ({"x-turnkey-event-id": b"evt_\xff"}, "TURNKEY_WEBHOOK_HEADER_MALFORMED"),
        ({"x-turnkey-signature": "00" * 63}, "TURNKEY_WEBHOOK_SIGNATURE_MALFORMED"),
        ({"x-turnkey-signature": "0x" + "00" * 63}, "TURNKEY_WEBHOOK_SIGNATURE_MALFORMED"),
        ({"x-turnkey-signature": "00" * 64}, "TURNKEY_WEBHOOK_SIGNATURE_INVALID"),
        ({"x-turnkey-event-id": "evt_43"}, "TURNKEY_WEBHOOK_SIGNATURE_INVALID"),
        ({"x-turnkey-timestamp": str(TS + 1)}, "TURNKEY_WEBHOOK_SIGNATURE_INVALID"),
    ],
)
def test_refusals(changes: dict[str, Any], wanted: str) -> None:
    assert code({**sign(), **changes}) == wanted


def test_signature_by_another_key_or_body() -> None:
    assert code(sign(private_key=OTHER_SEED)) == "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
    assert code(sign(), BODY + b"\n") == "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
    rotated = {KEY_ID: PUBLIC, "whk-2": OTHER_PUBLIC}
    headers = sign(private_key=OTHER_SEED, key_id="whk-2")
    assert verify(headers, verification_keys=rotated).key_id == "whk-2"
    assert code({**headers, "x-turnkey-signature-key-id": KEY_ID}, verification_keys=rotated) == (
        "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
    )


def test_replay_window_both_sides() -> None:
    headers = sign()
    assert verify(headers, now=_ms(TS + 300_000)).timestamp_ms == TS
    assert verify(headers, now=_ms(TS - 300_000)).timestamp_ms == TS
    assert code(headers, now=_ms(TS + 300_001)) == "TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD"
    assert code(headers, now=_ms(TS - 300_001)) == "TURNKEY_WEBHOOK_TIMESTAMP_IN_FUTURE"
    assert verify(headers, now=_ms(TS), max_age_seconds=0).key_id == KEY_ID
    assert verify(headers, now=_ms(TS + 500), max_age_seconds=0.5).key_id == KEY_ID
    assert code(headers, now=_ms(TS + 501), max_age_seconds=0.5) == (
        "TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD"
    )
    other_zone = _ms(TS).astimezone(timezone(timedelta(hours=-7)))
    assert verify(headers, now=other_zone, max_age_seconds=0).key_id == KEY_ID


def test_default_now_is_the_clock() -> None:
    now_ms = (datetime.now(timezone.utc) - EPOCH) // timedelta(milliseconds=1)
    headers = sign(timestamp_ms=now_ms)
    assert (
        ewc.verify_turnkey_webhook(
            headers, BODY, verification_keys=KEYS, max_age_seconds=86400
        ).event_id
        == EVENT_ID
    )
    assert code(sign(timestamp_ms=TS - 10**9), now=None) == "TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD"


@pytest.mark.parametrize(
    "max_age", [math.nan, math.inf, -math.inf, -1, -0.5, 86401, 10**400, True, False]
)
def test_max_age_is_validated(max_age: Any) -> None:
    assert code(sign(), max_age_seconds=max_age) == "TURNKEY_WEBHOOK_CONFIG_INVALID"


@pytest.mark.parametrize("max_age", ["300", None, b"3", [300]])
def test_max_age_of_another_type(max_age: Any) -> None:
    with pytest.raises(TypeError):
        verify(sign(), max_age_seconds=max_age)


def test_configuration_errors() -> None:
    headers = sign()
    config = "TURNKEY_WEBHOOK_CONFIG_INVALID"
    assert code(headers, now=datetime(2026, 1, 1)) == config
    for key in (PUBLIC[:31], PUBLIC + b"\x00", PUBLIC.hex()[:-2], "zz" * 32, ""):
        assert code(headers, verification_keys={KEY_ID: key}) == config
    assert code(headers, verification_keys={KEY_ID: PUBLIC, "bad.id": PUBLIC}) == config
    assert verify(headers, verification_keys={KEY_ID: PUBLIC.hex().upper()}).key_id == KEY_ID
    for wrong in ({KEY_ID: 5}, {5: PUBLIC}, [(KEY_ID, PUBLIC)], None):
        with pytest.raises(TypeError):
            verify(headers, verification_keys=wrong)
    for wrong_now in (1_767_225_600, "2026-01-01T00:00:00Z"):
        with pytest.raises(TypeError):
            verify(headers, now=wrong_now)
    for wrong_headers in ("x-turnkey-timestamp: 1", b"raw", 5, None, [("only-name",)]):
        with pytest.raises(TypeError):
            verify(wrong_headers)
    with pytest.raises(TypeError):
        verify(headers, 5)


def test_signer_checks() -> None:
    assert sign(private_key=SIGNER) == sign()
    assert sign() == sign(private_key=bytearray(SEED))
    config = "TURNKEY_WEBHOOK_CONFIG_INVALID"
    for changes in (
        {"private_key": SEED[:31]},
        {"key_id": "a.b"},
        {"event_id": ""},
        {"event_id": "caf\u00e9"},
        {"timestamp_ms": -1},
        {"timestamp_ms": 2**53},
    ):
        with pytest.raises(ewc.WebhookError) as raised:
            sign(**changes)
        assert raised.value.code == config
    for changes in (
        {"private_key": "00" * 32},
        {"private_key": 32},
        {"key_id": 1},
        {"timestamp_ms": 1.5},
        {"timestamp_ms": True},
    ):
        with pytest.raises(TypeError):
            sign(**changes)
    with pytest.raises(ewc.WebhookError):
        ewc.sign_turnkey_webhook(
            "\ud800", private_key=SEED, key_id=KEY_ID, event_id=EVENT_ID, timestamp_ms=TS
        )


def test_signer_headers_and_signed_input() -> None:
    headers = sign()
    assert list(headers) == [
        "x-turnkey-timestamp",
        "x-turnkey-event-id",
        "x-turnkey-signature-key-id",
        "x-turnkey-signature-algorithm",
        "x-turnkey-signature-version",
        "x-turnkey-signature",
    ]
    message = f"v1.ed25519.{KEY_ID}.{TS}.{EVENT_ID}.".encode() + BODY
    assert headers["x-turnkey-signature"] == SIGNER.sign(message).hex()
    SIGNER.public_key().verify(bytes.fromhex(headers["x-turnkey-signature"]), message)


def test_errors_carry_no_body_or_signature() -> None:
    secret_body = b'{"secret":"hunter2-do-not-log"}'
    headers = sign(secret_body)
    with pytest.raises(ewc.WebhookError) as raised:
        verify(headers, secret_body + b" ")
    assert "hunter2" not in str(raised.value) and headers["x-turnkey-signature"] not in repr(
        raised.value
    )


# --- properties -----------------------------------------------------------------------------

ids = st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="."),
    min_size=1,
    max_size=40,
)


@given(
    body=st.binary(max_size=200), event_id=ids, key_id=ids, offset=st.integers(-300_000, 300_000)
)
def test_property_signed_deliveries_verify(
    body: bytes, event_id: str, key_id: str, offset: int
) -> None:
    headers = sign(body, event_id=event_id, key_id=key_id)
    result = verify(headers, body, verification_keys={key_id: PUBLIC}, now=_ms(TS + offset))
    assert (result.event_id, result.key_id, result.timestamp_ms) == (event_id, key_id, TS)


@given(body=st.binary(max_size=100), index=st.integers(0, 63), bit=st.integers(0, 7))
def test_property_any_flipped_signature_bit_is_refused(body: bytes, index: int, bit: int) -> None:
    headers = sign(body)
    signature = bytearray(bytes.fromhex(headers["x-turnkey-signature"]))
    signature[index] ^= 1 << bit
    assert code({**headers, "x-turnkey-signature": signature.hex()}, body) == (
        "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
    )


@given(body=st.binary(max_size=100), other=st.binary(max_size=100))
def test_property_another_body_is_refused(body: bytes, other: bytes) -> None:
    if body != other:
        assert code(sign(body), other) == "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
