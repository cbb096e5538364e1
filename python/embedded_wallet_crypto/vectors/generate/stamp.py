"""stamp.json: the ``Service-Wallet-Signature`` stamp (formats.md section 4).

Every stamp is written by ``_stamp_writer`` (independent of the library), in every shape a real
client may send; the malformed ones are in ``_stamp_malformed``.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from . import _reference as ref
from . import _stamp_malformed
from ._common import Case, key, stream, vector_file
from ._stamp_writer import (
    FIELD_ORDER,
    INVALID,
    MALFORMED,
    SANDBOX_STAMP,
    compact_json,
    encode_stamp,
    export_payload,
    payload_for_json_length,
    result,
    stamp_case,
    stamp_fields,
)

DESCRIPTION = (
    "Service-Wallet-Signature stamps (formats.md section 4): base64url(JSON {publicKey, "
    "scheme, signature}) with a DER ECDSA P-256 / SHA-256 signature over the payload bytes. "
    "Accepted: any key order, JSON whitespace, padded or unpadded base64url, high-S and low-S, "
    "and the sandbox value with sandbox on. Rejected: a payload changed by one byte or by "
    "whitespace (INVALID), another expected key (KEY_MISMATCH), an empty stamp (MISSING), and "
    "bad base64url, JSON, scheme, key or DER (MALFORMED)."
)


def _payload_cases() -> list[Case]:
    payloads = [
        ("export-payload", export_payload(), "an export payloadToSign (formats.md section 5)"),
        ("empty-payload", b"", "an empty payload"),
        ("utf8-payload", '{"memo":"café ☕ 東京"}'.encode(), "non-ASCII UTF-8 bytes"),
        ("binary-payload", stream("stamp-binary", 64), "bytes that are not UTF-8"),
    ]
    cases = []
    for name, payload, comment in payloads:
        fields = stamp_fields("stamp-session", payload)
        cases.append(
            stamp_case(
                f"stamp-canonical-{name}",
                encode_stamp(compact_json(fields)),
                f"the canonical form (creation order, no whitespace, unpadded): {comment}",
                payload=payload,
                result=result(fields),
            )
        )
    return cases


def _shape_cases() -> list[Case]:
    fields = stamp_fields("stamp-session", export_payload())
    public_key = fields["publicKey"]
    cases = []
    for remainder, padding in ((2, "one"), (1, "two")):
        payload = payload_for_json_length(remainder)
        probe = stamp_fields("stamp-session", payload)
        for padded in (True, False):
            form = "padded" if padded else "unpadded"
            cases.append(
                stamp_case(
                    f"stamp-base64url-{padding}-pad-char-{form}",
                    encode_stamp(compact_json(probe), padded=padded),
                    f"{form} base64url of JSON needing {padding} '=' (both forms are accepted)",
                    payload=payload,
                    result=result(probe),
                )
            )
    for order in itertools.permutations(FIELD_ORDER):
        cases.append(
            stamp_case(
                "stamp-key-order-" + "-".join(order),
                encode_stamp(compact_json(fields, order)),
                "keys in the order " + ", ".join(order),
                result=result(fields),
            )
        )
    pk, sc, sig = fields["publicKey"], fields["scheme"], fields["signature"]
    whitespace = [
        ("spaces", f'{{ "publicKey" : "{pk}", "scheme" : "{sc}", "signature" : "{sig}" }}'),
        (
            "newlines-tabs",
            f'{{\n\t"publicKey":\t"{pk}",\r\n\t"scheme": "{sc}",\n"signature":"{sig}"\n}}',
        ),
        ("pretty-printed", json.dumps(fields, indent=2)),
        ("surrounding", f" \n{compact_json(fields)}\n "),
    ]
    for name, text in whitespace:
        cases.append(
            stamp_case(
                f"stamp-json-whitespace-{name}",
                encode_stamp(text),
                f"JSON whitespace ({name}) is insignificant",
                result=result(fields),
            )
        )
    escaped = (
        compact_json(fields)
        .replace('"scheme":"S', '"scheme":"\\u0053')
        .replace('"publicKey":"0', '"publicKey":"\\u0030')
    )
    upper = {**fields, "publicKey": pk.upper(), "signature": sig.upper()}
    cases += [
        stamp_case(
            "stamp-json-escaped-characters",
            encode_stamp(escaped),
            "JSON \\u escapes in the scheme and the key: the same strings",
            result=result(fields),
        ),
        stamp_case(
            "stamp-upper-case-hex",
            encode_stamp(compact_json(upper)),
            "publicKey and signature in upper-case hex (hex is case-insensitive on input)",
            result=result(fields),
        ),
        stamp_case(
            "stamp-expected-key-compressed",
            encode_stamp(compact_json(fields)),
            "the expected session key, compressed",
            expected_public_key=public_key,
            result=result(fields),
        ),
        stamp_case(
            "stamp-expected-key-uncompressed",
            encode_stamp(compact_json(fields)),
            "the expected session key, uncompressed",
            expected_public_key=key("stamp-session")[1].hex(),
            result=result(fields),
        ),
    ]
    for form in ("low", "high"):
        signed = stamp_fields("stamp-session", export_payload(), high_s=form == "high")
        cases.append(
            stamp_case(
                f"stamp-{form}-s",
                encode_stamp(compact_json(signed)),
                f"a {form}-S signature (both are accepted: real clients produce both)",
                result=result(signed),
            )
        )
    return cases


def _verification_cases() -> list[Case]:
    fields = stamp_fields("stamp-session", export_payload())
    stamp = encode_stamp(compact_json(fields))
    other = stamp_fields("stamp-other-session", export_payload())
    changed = export_payload().replace(b"1700000000000", b"1700000000001")
    spaced = json.dumps(json.loads(export_payload())).encode()
    r, s = ref.sign_deterministic(key("stamp-session")[0], export_payload())
    payload_errors = [
        ("one-byte-changed", changed, "one digit of timestampMs changed"),
        ("trailing-newline", export_payload() + b"\n", "a trailing newline added"),
        ("whitespace-added", spaced, "the same JSON re-serialised with spaces"),
        ("truncated", export_payload()[:-1], "the last byte cut off"),
        ("empty", b"", "an empty payload"),
    ]
    cases = [
        stamp_case(
            f"stamp-payload-{name}",
            stamp,
            f"signed over the payload, verified over {comment}",
            payload=payload,
            error=INVALID,
        )
        for name, payload, comment in payload_errors
    ]
    mixed = [
        (
            "signature-by-other-key",
            {**fields, "signature": other["signature"]},
            "the session key's publicKey with another key's signature",
        ),
        (
            "public-key-of-other-key",
            {**fields, "publicKey": other["publicKey"]},
            "another valid key as publicKey with the session key's signature",
        ),
        (
            "s-bit-flipped",
            {**fields, "signature": ref.der_signature(r, s ^ 1).hex()},
            "the lowest bit of s flipped",
        ),
        (
            "r-zero",
            {**fields, "signature": ref.der_signature(0, s).hex()},
            "r = 0: well-formed DER, out of range",
        ),
        (
            "s-n",
            {**fields, "signature": ref.der_signature(r, ref.N).hex()},
            "s = n: well-formed DER, out of range",
        ),
    ]
    cases += [
        stamp_case(f"stamp-{name}", encode_stamp(compact_json(f)), comment, error=INVALID)
        for name, f, comment in mixed
    ]
    cases += [
        stamp_case(
            "stamp-expected-key-other",
            stamp,
            "a valid stamp, but the expected session key is another key",
            expected_public_key=other["publicKey"],
            error="WALLET_SIGNATURE_KEY_MISMATCH",
        ),
        stamp_case(
            "stamp-expected-key-other-uncompressed",
            stamp,
            "as above, the expected key given uncompressed",
            expected_public_key=key("stamp-other-session")[1].hex(),
            error="WALLET_SIGNATURE_KEY_MISMATCH",
        ),
        stamp_case(
            "stamp-expected-key-off-curve",
            stamp,
            "the expected key itself is not a valid point: the caller's error",
            expected_public_key="02" + ref.int32(ref.first_x_without_point(0)).hex(),
            error="INVALID_POINT",
        ),
    ]
    return cases


def _sandbox_cases() -> list[Case]:
    fields = stamp_fields("stamp-session", export_payload())
    stamp = encode_stamp(compact_json(fields))
    sandbox_result = {"public_key": "", "signature": ""}
    return [
        stamp_case(
            "stamp-sandbox-value-sandbox-on",
            SANDBOX_STAMP,
            "the interface's sandbox value, accepted with sandbox on (nothing is verified)",
            sandbox=True,
            result=sandbox_result,
        ),
        stamp_case(
            "stamp-sandbox-value-sandbox-off",
            SANDBOX_STAMP,
            "the sandbox value without sandbox mode: not base64url of a stamp",
            error=MALFORMED,
        ),
        stamp_case(
            "stamp-sandbox-on-real-stamp",
            stamp,
            "sandbox on does not relax a real stamp: it is verified as usual",
            sandbox=True,
            result=result(fields),
        ),
        stamp_case(
            "stamp-sandbox-on-wrong-payload",
            stamp,
            "sandbox on, a real stamp over other bytes: still invalid",
            payload=export_payload() + b" ",
            sandbox=True,
            error=INVALID,
        ),
        stamp_case(
            "stamp-sandbox-on-empty",
            "",
            "sandbox on, no stamp: still missing",
            sandbox=True,
            error="WALLET_SIGNATURE_MISSING",
        ),
    ]


def build() -> dict[str, Any]:
    cases = (
        _payload_cases()
        + _shape_cases()
        + _verification_cases()
        + _stamp_malformed.build_cases()
        + _sandbox_cases()
    )
    return vector_file(DESCRIPTION, cases)
