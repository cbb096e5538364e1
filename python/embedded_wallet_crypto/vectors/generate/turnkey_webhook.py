"""turnkey_webhook.json: the key infrastructure's webhooks, Ed25519 with key ids and a replay
window (formats.md section 17). Signatures by pyca/cryptography's Ed25519 (deterministic), the
signed input and the headers written out by ``_turnkey_webhook_writer``, never by the library
under test."""

from __future__ import annotations

from typing import Any

from ._common import Case, case, stream, vector_file
from ._turnkey_webhook_writer import (
    BODY,
    EVENT_ID,
    KEY_ID,
    MAX_AGE,
    NOW_MS,
    OTHER_KEY_ID,
    L,
    configured_keys,
    delivery_headers,
    public_hex,
    replaced,
    seed,
)

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
        "verification_keys": configured_keys() if keys is None else keys,
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


def _valid_cases() -> list[Case]:
    headers = delivery_headers()
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
        _verify("empty-body", delivery_headers(body=empty), "an empty body", body=empty),
        _verify(
            "binary-body",
            delivery_headers(body=binary),
            "a body that is not UTF-8: the raw bytes are signed",
            body=binary,
        ),
        _verify(
            "oldest-in-window",
            delivery_headers(timestamp_ms=oldest),
            "exactly max_age_seconds old: still inside the window",
            expected_timestamp_ms=oldest,
        ),
        _verify(
            "newest-in-window",
            delivery_headers(timestamp_ms=newest),
            "exactly max_age_seconds ahead: still inside the window",
            expected_timestamp_ms=newest,
        ),
        _verify(
            "zero-window",
            delivery_headers(timestamp_ms=NOW_MS),
            "max_age_seconds 0 accepts only the current millisecond",
            max_age_seconds=0,
            expected_timestamp_ms=NOW_MS,
        ),
        _verify(
            "rotated-key",
            delivery_headers(label="rotated", key_id=OTHER_KEY_ID),
            "the second configured key, picked by its id",
            expected_key_id=OTHER_KEY_ID,
        ),
        _verify(
            "only-signing-key-configured",
            headers,
            "a configuration with just the signing key",
            keys={KEY_ID: public_hex("primary")},
        ),
    ]


def _header_cases() -> list[Case]:
    headers = delivery_headers()
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
        _verify("empty-event-id", replaced(headers, event_id=""), "an empty header", error=missing)
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
            replaced(delivery_headers(), timestamp=text),
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
            delivery_headers(timestamp_ms=oldest - 1),
            "one millisecond older than the window",
            error="TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD",
        ),
        _verify(
            "far-future",
            delivery_headers(timestamp_ms=newest + 1),
            "one millisecond further ahead than the window",
            error="TURNKEY_WEBHOOK_TIMESTAMP_IN_FUTURE",
        ),
        _verify(
            "stale-with-zero-window",
            delivery_headers(timestamp_ms=NOW_MS - 1),
            "one millisecond old with max_age_seconds 0",
            max_age_seconds=0,
            error="TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD",
        ),
    ]
    return cases


def _scheme_cases() -> list[Case]:
    headers = delivery_headers()
    signature = headers["x-turnkey-signature"]
    r, s = bytes.fromhex(signature[:64]), int.from_bytes(bytes.fromhex(signature[64:]), "little")
    s_plus_l = (r + (s + L).to_bytes(32, "little")).hex()
    invalid = "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
    sig_malformed = "TURNKEY_WEBHOOK_SIGNATURE_MALFORMED"
    return [
        _verify(
            "version-v2",
            replaced(headers, signature_version="v2"),
            "another version",
            error="TURNKEY_WEBHOOK_VERSION_UNSUPPORTED",
        ),
        _verify(
            "version-upper-case",
            replaced(headers, signature_version="V1"),
            "the version is compared exactly",
            error="TURNKEY_WEBHOOK_VERSION_UNSUPPORTED",
        ),
        _verify(
            "algorithm-ecdsa",
            replaced(headers, signature_algorithm="ecdsa"),
            "another algorithm",
            error="TURNKEY_WEBHOOK_ALGORITHM_UNSUPPORTED",
        ),
        _verify(
            "algorithm-upper-case",
            replaced(headers, signature_algorithm="Ed25519"),
            "the algorithm is compared exactly",
            error="TURNKEY_WEBHOOK_ALGORITHM_UNSUPPORTED",
        ),
        _verify(
            "unknown-key-id",
            delivery_headers(key_id="whk_unknown"),
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
            delivery_headers(event_id="evt.1"),
            "'.' separates the signed input's fields: refused in ids",
            error="TURNKEY_WEBHOOK_HEADER_MALFORMED",
        ),
        _verify(
            "signature-short",
            replaced(headers, signature=signature[2:]),
            "63 bytes",
            error=sig_malformed,
        ),
        _verify(
            "signature-long",
            replaced(headers, signature=signature + "00"),
            "65 bytes",
            error=sig_malformed,
        ),
        _verify(
            "signature-not-hex",
            replaced(headers, signature="zz" + signature[2:]),
            "not hex",
            error=sig_malformed,
        ),
        _verify(
            "signature-upper-case-hex",
            replaced(headers, signature=signature.upper()),
            "hex digits in either case",
        ),
        _verify(
            "signature-s-plus-l",
            replaced(headers, signature=s_plus_l),
            "S + L: the same point equation, refused as non-canonical (RFC 8032 5.1.7)",
            error=invalid,
        ),
        _verify(
            "signature-flipped-bit",
            replaced(headers, signature=("01" if signature[:2] == "00" else "00") + signature[2:]),
            "the first signature byte changed",
            error=invalid,
        ),
        _verify("tampered-body", headers, "one byte more", body=BODY + b" ", error=invalid),
        _verify(
            "tampered-event-id",
            replaced(headers, event_id="evt_other"),
            "another event id",
            error=invalid,
        ),
        _verify(
            "tampered-timestamp",
            replaced(headers, timestamp=str(NOW_MS - 999)),
            "the timestamp moved by one millisecond inside the window",
            error=invalid,
        ),
        _verify(
            "other-key-same-id",
            delivery_headers(label="rotated"),
            "signed by the rotated key but naming the primary key id",
            error=invalid,
        ),
        _verify(
            "key-id-swapped",
            replaced(headers, signature_key_id=OTHER_KEY_ID),
            "the key id changed to another configured key",
            error=invalid,
        ),
        _verify(
            "event-id-moved-into-body",
            replaced(delivery_headers(event_id="evt_1", body=b"x." + BODY), event_id="evt_1.x"),
            "a delivery of (evt_1, 'x.' + body) presented as (evt_1.x, body): the same signed "
            "bytes, refused because ids may not hold '.'",
            error="TURNKEY_WEBHOOK_HEADER_MALFORMED",
        ),
        _verify(
            "short-verification-key",
            headers,
            "a configured key of 31 bytes",
            keys={KEY_ID: public_hex("primary")[2:]},
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
                    "private_key": seed(label).hex(),
                    "key_id": key_id,
                    "event_id": event_id,
                    "timestamp_ms": timestamp_ms,
                    "body": body.hex(),
                    "public_key": public_hex(label),
                },
                expected={
                    "headers": delivery_headers(
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
