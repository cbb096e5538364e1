"""turnkey_webhook.json: the key infrastructure's webhooks, Ed25519 with key ids and a replay
window (formats.md section 17). Signatures by pyca/cryptography's Ed25519 (deterministic), the
signed input written out here, never by the library under test."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ._common import Case, case, stream, vector_file

DESCRIPTION = (
    "Webhooks of the key infrastructure (formats.md section 17): Ed25519 over "
    "'v1.ed25519.<keyId>.<timestampMs>.<eventId>.' followed by the raw body, six x-turnkey-* "
    "headers, the key picked by key id, and a replay window in both directions. Valid "
    "deliveries (header names in any case, headers as pairs, empty and binary bodies, both "
    "edges of the window, a second configured key) and every refusal with its code: missing, "
    "empty or repeated headers, malformed timestamps, ids and signatures, stale and future "
    "timestamps, another version or algorithm, an unknown key id, tampered fields, a signature "
    "by another key or with S + L, and an unusable verification key. turnkey_webhook_sign "
    "cases give the exact headers of a signed delivery."
)

NOW_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
MAX_AGE = 300
KEY_ID = "whk_primary"
OTHER_KEY_ID = "whk_rotated"
EVENT_ID = "evt_01JGZ0Q4B6M3W8X2V9K7T5R1NA"
BODY = b'{"type":"ACTIVITY_COMPLETED","data":{"activityId":"act_1","organizationId":"org_1"}}'
# The Ed25519 group order.
L = 2**252 + 27742317777372353535851937790883648493


def _seed(label: str) -> bytes:
    return stream(f"turnkey-webhook/{label}", 32)


def _public(label: str) -> str:
    public = Ed25519PrivateKey.from_private_bytes(_seed(label)).public_key()
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def _sign(label: str, key_id: str, timestamp_ms: int, event_id: str, body: bytes) -> str:
    message = f"v1.ed25519.{key_id}.{timestamp_ms}.{event_id}.".encode("ascii") + body
    return Ed25519PrivateKey.from_private_bytes(_seed(label)).sign(message).hex()


def _headers(
    *,
    label: str = "primary",
    key_id: str = KEY_ID,
    timestamp_ms: int = NOW_MS - 1000,
    event_id: str = EVENT_ID,
    body: bytes = BODY,
) -> dict[str, str]:
    return {
        "x-turnkey-timestamp": str(timestamp_ms),
        "x-turnkey-event-id": event_id,
        "x-turnkey-signature-key-id": key_id,
        "x-turnkey-signature-algorithm": "ed25519",
        "x-turnkey-signature-version": "v1",
        "x-turnkey-signature": _sign(label, key_id, timestamp_ms, event_id, body),
    }


def _keys() -> dict[str, str]:
    return {KEY_ID: _public("primary"), OTHER_KEY_ID: _public("rotated")}


def _verify(
    case_id: str,
    headers: dict[str, str] | list[list[str]],
    comment: str,
    *,
    body: bytes = BODY,
    keys: dict[str, str] | None = None,
    now_ms: int = NOW_MS,
    max_age_seconds: int = MAX_AGE,
    error: str | None = None,
    expected_timestamp_ms: int = NOW_MS - 1000,
    expected_key_id: str = KEY_ID,
    expected_event_id: str = EVENT_ID,
) -> Case:
    inputs: dict[str, Any] = {
        "headers": headers,
        "body": body.hex(),
        "verification_keys": _keys() if keys is None else keys,
        "max_age_seconds": max_age_seconds,
        "now_ms": now_ms,
    }
    expected = None
    if error is None:
        expected = {
            "event_id": expected_event_id,
            "key_id": expected_key_id,
            "timestamp_ms": expected_timestamp_ms,
        }
    return case(
        f"twh-verify-{case_id}",
        "turnkey_webhook_verify",
        inputs,
        expected=expected,
        error=error,
        comment=comment,
    )


def _with(headers: dict[str, str], **changes: str | None) -> dict[str, str]:
    """``headers`` with some values replaced (keys with '_' for '-'); None removes one."""
    result = dict(headers)
    for name, value in changes.items():
        header = "x-turnkey-" + name.replace("_", "-")
        if value is None:
            del result[header]
        else:
            result[header] = value
    return result


def _valid_cases() -> list[Case]:
    headers = _headers()
    mixed = {name.title(): value for name, value in headers.items()}
    empty = b""
    binary = stream("turnkey-webhook/binary-body", 48) + b"\x00\xff"
    oldest = NOW_MS - MAX_AGE * 1000
    newest = NOW_MS + MAX_AGE * 1000
    return [
        _verify("basic", headers, "a delivery signed one second ago"),
        _verify("mixed-case-names", mixed, "header names are matched without regard to case"),
        _verify(
            "pairs",
            [
                [name, value]
                for name, value in [("content-type", "application/json"), *headers.items()]
            ],
            "headers as (name, value) pairs, with another header among them",
        ),
        _verify("empty-body", _headers(body=empty), "an empty body", body=empty),
        _verify(
            "binary-body",
            _headers(body=binary),
            "a body that is not UTF-8: the raw bytes are signed",
            body=binary,
        ),
        _verify(
            "oldest-in-window",
            _headers(timestamp_ms=oldest),
            "exactly max_age_seconds old: still inside the window",
            expected_timestamp_ms=oldest,
        ),
        _verify(
            "newest-in-window",
            _headers(timestamp_ms=newest),
            "exactly max_age_seconds ahead: still inside the window",
            expected_timestamp_ms=newest,
        ),
        _verify(
            "zero-window",
            _headers(timestamp_ms=NOW_MS),
            "max_age_seconds 0 accepts only the current millisecond",
            max_age_seconds=0,
            expected_timestamp_ms=NOW_MS,
        ),
        _verify(
            "rotated-key",
            _headers(label="rotated", key_id=OTHER_KEY_ID),
            "the second configured key, picked by its id",
            expected_key_id=OTHER_KEY_ID,
        ),
        _verify(
            "only-signing-key-configured",
            headers,
            "a configuration with just the signing key",
            keys={KEY_ID: _public("primary")},
        ),
    ]


def _header_cases() -> list[Case]:
    headers = _headers()
    missing = "TURNKEY_WEBHOOK_HEADER_MISSING"
    cases = [
        _verify(
            f"missing-{name.removeprefix('x-turnkey-')}",
            {k: v for k, v in headers.items() if k != name},
            f"no {name} header",
            error=missing,
        )
        for name in headers
    ]
    cases.append(
        _verify("empty-event-id", _with(headers, event_id=""), "an empty header", error=missing)
    )
    pairs = [[name, value] for name, value in headers.items()]
    cases += [
        _verify(
            "duplicate-event-id-pairs",
            [*pairs, ["x-turnkey-event-id", "evt_other"]],
            "the event id given twice as pairs",
            error="TURNKEY_WEBHOOK_HEADER_DUPLICATE",
        ),
        _verify(
            "duplicate-signature-case",
            {**headers, "X-Turnkey-Signature": headers["x-turnkey-signature"]},
            "the signature under two spellings of its name",
            error="TURNKEY_WEBHOOK_HEADER_DUPLICATE",
        ),
    ]
    return cases


def _timestamp_cases() -> list[Case]:
    malformed = "TURNKEY_WEBHOOK_TIMESTAMP_MALFORMED"
    cases = [
        _verify(
            f"timestamp-{name}",
            _with(_headers(), timestamp=text),
            comment,
            error=malformed,
        )
        for name, text, comment in [
            ("seconds-fraction", f"{(NOW_MS - 1000) / 1000}", "seconds with a fraction"),
            ("negative", "-1", "a sign"),
            ("plus", f"+{NOW_MS - 1000}", "a plus sign"),
            ("exponent", "1.767e12", "an exponent"),
            ("hex", "0x19b5d2e8a00", "hexadecimal"),
            ("space", f" {NOW_MS - 1000}", "a leading space"),
            ("beyond-safe-integer", str(2**53), "beyond 2**53 - 1"),
            ("arabic-indic-digits", "\u0661\u0662", "digits outside ASCII"),
        ]
    ]
    oldest = NOW_MS - MAX_AGE * 1000
    newest = NOW_MS + MAX_AGE * 1000
    cases += [
        _verify(
            "stale",
            _headers(timestamp_ms=oldest - 1),
            "one millisecond older than the window",
            error="TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD",
        ),
        _verify(
            "far-future",
            _headers(timestamp_ms=newest + 1),
            "one millisecond further ahead than the window",
            error="TURNKEY_WEBHOOK_TIMESTAMP_IN_FUTURE",
        ),
        _verify(
            "stale-with-zero-window",
            _headers(timestamp_ms=NOW_MS - 1),
            "one millisecond old with max_age_seconds 0",
            max_age_seconds=0,
            error="TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD",
        ),
    ]
    return cases


def _scheme_cases() -> list[Case]:
    headers = _headers()
    signature = headers["x-turnkey-signature"]
    r, s = bytes.fromhex(signature[:64]), int.from_bytes(bytes.fromhex(signature[64:]), "little")
    s_plus_l = (r + (s + L).to_bytes(32, "little")).hex()
    invalid = "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
    sig_malformed = "TURNKEY_WEBHOOK_SIGNATURE_MALFORMED"
    return [
        _verify(
            "version-v2",
            _with(headers, signature_version="v2"),
            "another version",
            error="TURNKEY_WEBHOOK_VERSION_UNSUPPORTED",
        ),
        _verify(
            "version-upper-case",
            _with(headers, signature_version="V1"),
            "the version is compared exactly",
            error="TURNKEY_WEBHOOK_VERSION_UNSUPPORTED",
        ),
        _verify(
            "algorithm-ecdsa",
            _with(headers, signature_algorithm="ecdsa"),
            "another algorithm",
            error="TURNKEY_WEBHOOK_ALGORITHM_UNSUPPORTED",
        ),
        _verify(
            "algorithm-upper-case",
            _with(headers, signature_algorithm="Ed25519"),
            "the algorithm is compared exactly",
            error="TURNKEY_WEBHOOK_ALGORITHM_UNSUPPORTED",
        ),
        _verify(
            "unknown-key-id",
            _headers(key_id="whk_unknown"),
            "a key id that is not configured",
            error="TURNKEY_WEBHOOK_KEY_UNKNOWN",
        ),
        _verify(
            "no-keys",
            headers,
            "no key configured at all",
            keys={},
            error="TURNKEY_WEBHOOK_KEY_UNKNOWN",
        ),
        _verify(
            "event-id-with-dot",
            _headers(event_id="evt.1"),
            "'.' separates the signed input's fields: refused in ids",
            error="TURNKEY_WEBHOOK_HEADER_MALFORMED",
        ),
        _verify(
            "signature-short",
            _with(headers, signature=signature[2:]),
            "63 bytes",
            error=sig_malformed,
        ),
        _verify(
            "signature-long",
            _with(headers, signature=signature + "00"),
            "65 bytes",
            error=sig_malformed,
        ),
        _verify(
            "signature-not-hex",
            _with(headers, signature="zz" + signature[2:]),
            "not hex",
            error=sig_malformed,
        ),
        _verify(
            "signature-upper-case-hex",
            _with(headers, signature=signature.upper()),
            "hex digits in either case",
        ),
        _verify(
            "signature-s-plus-l",
            _with(headers, signature=s_plus_l),
            "S + L: the same point equation, refused as non-canonical (RFC 8032 5.1.7)",
            error=invalid,
        ),
        _verify(
            "signature-flipped-bit",
            _with(headers, signature=("01" if signature[:2] == "00" else "00") + signature[2:]),
            "the first signature byte changed",
            error=invalid,
        ),
        _verify("tampered-body", headers, "one byte more", body=BODY + b" ", error=invalid),
        _verify(
            "tampered-event-id",
            _with(headers, event_id="evt_other"),
            "another event id",
            error=invalid,
        ),
        _verify(
            "tampered-timestamp",
            _with(headers, timestamp=str(NOW_MS - 999)),
            "the timestamp moved by one millisecond inside the window",
            error=invalid,
        ),
        _verify(
            "other-key-same-id",
            _headers(label="rotated"),
            "signed by the rotated key but naming the primary key id",
            error=invalid,
        ),
        _verify(
            "key-id-swapped",
            _with(headers, signature_key_id=OTHER_KEY_ID),
            "the key id changed to another configured key",
            error=invalid,
        ),
        _verify(
            "event-id-moved-into-body",
            _with(_headers(event_id="evt_1", body=b"x." + BODY), event_id="evt_1.x"),
            "a delivery of (evt_1, 'x.' + body) presented as (evt_1.x, body): the same signed "
            "bytes, refused because ids may not hold '.'",
            error="TURNKEY_WEBHOOK_HEADER_MALFORMED",
        ),
        _verify(
            "short-verification-key",
            headers,
            "a configured key of 31 bytes",
            keys={KEY_ID: _public("primary")[2:]},
            error="TURNKEY_WEBHOOK_CONFIG_INVALID",
        ),
    ]


def _sign_cases() -> list[Case]:
    cases = []
    for name, label, key_id, timestamp_ms, event_id, body in [
        ("basic", "primary", KEY_ID, NOW_MS, EVENT_ID, BODY),
        ("empty-body", "primary", KEY_ID, NOW_MS, "evt_2", b""),
        ("rotated-key", "rotated", OTHER_KEY_ID, NOW_MS + 5, "evt_3", b"{}"),
    ]:
        cases.append(
            case(
                f"twh-sign-{name}",
                "turnkey_webhook_sign",
                {
                    "private_key": _seed(label).hex(),
                    "key_id": key_id,
                    "event_id": event_id,
                    "timestamp_ms": timestamp_ms,
                    "body": body.hex(),
                    "public_key": _public(label),
                },
                expected={
                    "headers": _headers(
                        label=label,
                        key_id=key_id,
                        timestamp_ms=timestamp_ms,
                        event_id=event_id,
                        body=body,
                    ),
                },
                comment="the six headers of a signed delivery; they verify with public_key",
            )
        )
    return cases


def build() -> dict[str, Any]:
    return vector_file(
        DESCRIPTION,
        _valid_cases() + _header_cases() + _timestamp_cases() + _scheme_cases() + _sign_cases(),
    )
