"""The malformed stamps of stamp.json: every way a stamp's base64url, JSON, scheme, key or DER
can be wrong (formats.md section 4), each WALLET_SIGNATURE_MALFORMED (MISSING when empty)."""

from __future__ import annotations

import json
import string

from . import _reference as ref
from ._common import Case
from ._stamp_writer import (
    MALFORMED,
    SCHEME,
    Fields,
    compact_json,
    encode_stamp,
    export_payload,
    payload_for_json_length,
    stamp_case,
    stamp_fields,
)


def _der_cases(fields: Fields) -> list[tuple[str, Fields, str]]:
    der = bytes.fromhex(fields["signature"])
    body = der[2:]
    r_len = body[1]
    r_tlv, s_tlv = body[: 2 + r_len], body[2 + r_len :]
    padded_r = bytes([0x02, r_len + 1, 0x00]) + r_tlv[2:]
    signatures = [
        (
            "der-ber-long-form-length",
            b"\x30\x81" + bytes([len(body)]) + body,
            "SEQUENCE length in BER long form (30 81 ..)",
        ),
        (
            "der-non-minimal-integer",
            b"\x30" + bytes([len(body) + 1]) + padded_r + s_tlv,
            "r with a superfluous leading 00",
        ),
        ("der-trailing-byte", der + b"\x00", "one byte after the SEQUENCE"),
        ("der-p1363", bytes(64), "64 raw bytes (P1363 shape), not DER"),
        ("der-empty", b"", "an empty signature"),
    ]
    shapes = [(f"signature-{n}", {**fields, "signature": d.hex()}, c) for n, d, c in signatures]
    shapes += [
        ("signature-not-hex", {**fields, "signature": "zz" + fields["signature"][2:]}, "not hex"),
        (
            "signature-odd-length-hex",
            {**fields, "signature": fields["signature"][:-1]},
            "an odd number of hex digits",
        ),
    ]
    return shapes


def build_cases() -> list[Case]:
    fields = stamp_fields("stamp-session", export_payload())
    compact = compact_json(fields)
    stamp = encode_stamp(compact)
    pk, sig = fields["publicKey"], fields["signature"]
    point = ref.parse_public_key(bytes.fromhex(pk))
    no_point_x = ref.first_x_without_point(0)
    shapes: list[tuple[str, Fields, str]] = [
        (
            "scheme-unknown",
            {**fields, "scheme": "SIGNATURE_SCHEME_TK_API_ED25519"},
            "another scheme",
        ),
        ("scheme-lower-case", {**fields, "scheme": SCHEME.lower()}, "the scheme in lower case"),
        ("scheme-empty", {**fields, "scheme": ""}, "an empty scheme"),
        (
            "public-key-uncompressed",
            {**fields, "publicKey": point.hex()},
            "the session key uncompressed (65 bytes): the stamp carries the compressed key",
        ),
        (
            "public-key-not-a-point",
            {**fields, "publicKey": "02" + ref.int32(no_point_x).hex()},
            "a compressed x with no point on the curve",
        ),
        (
            "public-key-x-at-least-p",
            {**fields, "publicKey": "02" + ref.int32(ref.first_x_with_point(0)[0] + ref.P).hex()},
            "a compressed x >= p",
        ),
        ("public-key-prefix-04", {**fields, "publicKey": "04" + pk[2:]}, "33 bytes with prefix 04"),
        ("public-key-not-hex", {**fields, "publicKey": "zz" + pk[2:]}, "not hex"),
        ("public-key-empty", {**fields, "publicKey": ""}, "an empty key"),
        *_der_cases(fields),
    ]
    cases = [
        stamp_case(f"stamp-{name}", encode_stamp(compact_json(f)), comment, error=MALFORMED)
        for name, f, comment in shapes
    ]
    json_texts = [
        (
            "duplicate-field-same-value",
            compact[:-1] + f',"publicKey":"{pk}"}}',
            "publicKey twice with the same value",
        ),
        (
            "duplicate-field-other-value",
            f'{{"signature":"{"00" * 8}",' + compact[1:],
            "signature twice, the valid one last",
        ),
        ("unknown-field", compact[:-1] + ',"timestamp":"1700000000000"}', "an extra field"),
        ("missing-scheme", compact_json(fields, ("publicKey", "signature")), "no scheme"),
        ("missing-signature", compact_json(fields, ("publicKey", "scheme")), "no signature"),
        ("null-scheme", compact.replace(f'"{SCHEME}"', "null"), "scheme null"),
        ("number-value", compact.replace(f'"{sig}"', "1"), "a number as the signature"),
        ("array", json.dumps([pk, SCHEME, sig]), "a JSON array"),
        ("string", json.dumps(compact), "the JSON object as one JSON string"),
        ("not-json", "publicKey=" + pk, "not JSON"),
        ("trailing-garbage", compact + "x", "a character after the object"),
        ("two-objects", compact + compact, "two objects back to back"),
        ("empty-object", "{}", "an empty object"),
    ]
    cases += [
        stamp_case(f"stamp-json-{name}", encode_stamp(text), comment, error=MALFORMED)
        for name, text, comment in json_texts
    ]
    cases.append(
        stamp_case(
            "stamp-json-invalid-utf8",
            encode_stamp(compact.encode().replace(b"SIGNATURE", b"SIGNATUR\xff")),
            "a byte that is not UTF-8 inside the scheme",
            error=MALFORMED,
        )
    )
    cases += _base64_cases(stamp)
    return cases


def _base64_cases(stamp: str) -> list[Case]:
    middle = len(stamp) // 2
    # 3k + 1 JSON bytes give 4k + 2 characters, the last of which carries 4 unused bits.
    probe = payload_for_json_length(1)
    short = encode_stamp(compact_json(stamp_fields("stamp-session", probe)))
    alphabet = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"
    trailing_bits = short[:-1] + alphabet[alphabet.index(short[-1]) | 1]
    texts = [
        # Base64 of ASCII JSON never uses '-' or '_': '+' and '/' only appear when inserted.
        ("plus", stamp[:middle] + "+" + stamp[middle + 1 :], "a '+' (standard base64) inside"),
        ("slash", stamp[:middle] + "/" + stamp[middle + 1 :], "a '/' (standard base64) inside"),
        ("invalid-character", stamp[:middle] + "!" + stamp[middle + 1 :], "a '!' inside"),
        ("newline-inside", stamp[:middle] + "\n" + stamp[middle:], "a newline inside"),
        ("trailing-newline", stamp + "\n", "a trailing newline"),
        ("leading-space", " " + stamp, "a leading space"),
        ("excess-padding", stamp + "====", "more '=' than padding needs"),
        ("truncated", stamp[:-1], "the last character cut off"),
        ("only-padding", "====", "padding alone"),
    ]
    cases = [
        stamp_case(f"stamp-base64-{name}", text, comment, error=MALFORMED)
        for name, text, comment in texts
    ]
    # Over the probe's own payload: if one of these were accepted, it would verify.
    cases += [
        stamp_case(f"stamp-base64-{name}", text, comment, payload=probe, error=MALFORMED)
        for name, text, comment in [
            ("non-canonical-trailing-bits", trailing_bits, "non-zero unused bits at the end"),
            ("partial-padding", short + "=", "one '=' where the padded form has two"),
        ]
    ]
    cases.append(stamp_case("stamp-empty", "", "an empty header", error="WALLET_SIGNATURE_MISSING"))
    return cases
