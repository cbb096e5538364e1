"""stamp_schemes.json: stamps in the schemes beyond P-256 (formats.md section 15).

secp256k1 stamps carry a DER ECDSA / SHA-256 signature (RFC 6979, pyca/cryptography) and the
compressed key; Ed25519 stamps the 64-byte signature over the raw payload (pyca/cryptography)
and the 32-byte key, written by ``_scheme_stamp_writer`` (which also holds the point checks
that pick the malformed keys) through the same independent stamp writer as stamp.json. Nothing
here calls the library under test.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

from . import _reference as ref
from ._common import Case, case, ikm, key, stream, vector_file
from ._scheme_stamp_writer import (
    ED25519,
    ED_L,
    ED_P,
    P256,
    SECP256K1,
    ed_public,
    ed_stamp,
    ed_y_without_point,
    k1_public,
    k1_signature,
    k1_stamp,
    k1_x_without_point,
    p256_has_x,
    stamp_of,
)
from ._stamp_writer import export_payload

ALL = [P256, SECP256K1, ED25519]
MALFORMED = "WALLET_SIGNATURE_MALFORMED"
INVALID = "WALLET_SIGNATURE_INVALID"
UNSUPPORTED = "WALLET_SIGNATURE_SCHEME_UNSUPPORTED"
MISMATCH = "WALLET_SIGNATURE_KEY_MISMATCH"

DESCRIPTION = (
    "Stamps in the schemes beyond P-256 (formats.md section 15): SIGNATURE_SCHEME_TK_API_SECP256K1 "
    "(compressed secp256k1 key, DER ECDSA over SHA-256 of the payload, low-S and high-S) and "
    "SIGNATURE_SCHEME_TK_API_ED25519 (32-byte key, 64-byte Ed25519 signature over the raw "
    "payload), verified with an accepted-schemes set: a well-formed stamp of a scheme outside "
    "it is SCHEME_UNSUPPORTED; a key or signature not of its scheme's form is MALFORMED; a key "
    "of one curve under another scheme's name never verifies. stamp_create_ed25519 checks stamp "
    "creation, deterministic for Ed25519."
)


def verify_case(
    case_id: str,
    stamp: str,
    comment: str,
    *,
    payload: bytes | None = None,
    schemes: list[str] = ALL,
    expected_public_key: str | None = None,
    result: tuple[str, bytes, bytes] | None = None,
    error: str | None = None,
) -> Case:
    inputs = {
        "stamp": stamp,
        "payload": (export_payload() if payload is None else payload).hex(),
        "expected_public_key": expected_public_key,
        "schemes": schemes,
    }
    expected = None
    if result is not None:
        scheme, public, signature = result
        expected = {"scheme": scheme, "public_key": public.hex(), "signature": signature.hex()}
    return case(
        f"stamp-schemes-{case_id}",
        "stamp_verify_schemes",
        inputs,
        expected=expected,
        error=error,
        comment=comment,
    )


def _p256_x(index: int) -> bool:
    return p256_has_x(int.from_bytes(k1_public(f"stamp-k1-p256-x-{index}")[1:], "big"))


def _secp256k1_cases() -> list[Case]:
    payload = export_payload()
    stamp, public, signature = k1_stamp("stamp-k1", payload)
    good = (SECP256K1, public, signature)
    cases = [
        verify_case("secp256k1-canonical", stamp, "the canonical stamp", result=good),
        verify_case(
            "secp256k1-only-its-scheme",
            stamp,
            "accepted with its scheme alone",
            schemes=[SECP256K1],
            result=good,
        ),
        verify_case(
            "secp256k1-default-schemes",
            stamp,
            "refused by a P-256-only verifier (the default)",
            schemes=[P256],
            error=UNSUPPORTED,
        ),
        verify_case(
            "secp256k1-no-schemes", stamp, "an empty accepted set", schemes=[], error=UNSUPPORTED
        ),
        verify_case(
            "secp256k1-payload-changed",
            stamp,
            "the payload with one byte more",
            payload=payload + b" ",
            error=INVALID,
        ),
        verify_case(
            "secp256k1-expected-compressed",
            stamp,
            "the expected key given compressed",
            expected_public_key=public.hex(),
            result=good,
        ),
        verify_case(
            "secp256k1-expected-uncompressed",
            stamp,
            "the expected key given uncompressed",
            expected_public_key=k1_public("stamp-k1", compressed=False).hex(),
            result=good,
        ),
        verify_case(
            "secp256k1-expected-other-key",
            stamp,
            "a valid stamp by another secp256k1 key than the expected one",
            expected_public_key=k1_public("stamp-k1-other").hex(),
            error=MISMATCH,
        ),
    ]
    high_stamp, _, high_signature = k1_stamp("stamp-k1", payload, high_s=True)
    cases.append(
        verify_case(
            "secp256k1-high-s",
            high_stamp,
            "the same signature in its high-S form (both forms verify)",
            result=(SECP256K1, public, high_signature),
        )
    )
    for name, data, comment in (
        ("empty-payload", b"", "an empty payload"),
        ("utf8-payload", '{"memo":"café ☕"}'.encode(), "non-ASCII UTF-8 bytes"),
        ("binary-payload", stream("stamp-k1-binary", 48), "bytes that are not UTF-8"),
    ):
        other, other_public, other_signature = k1_stamp("stamp-k1", data)
        cases.append(
            verify_case(
                f"secp256k1-{name}",
                other,
                comment,
                payload=data,
                result=(SECP256K1, other_public, other_signature),
            )
        )
    # One key whose x is no P-256 x (MALFORMED) and one whose x is also a P-256 x (INVALID).
    for label in ("stamp-k1", next(f"stamp-k1-p256-x-{i}" for i in range(64) if _p256_x(i))):
        other_public, other_signature = k1_public(label), k1_signature(label, payload)
        on_p256 = p256_has_x(int.from_bytes(other_public[1:], "big"))
        cases.append(
            verify_case(
                f"secp256k1-key-under-p256-name-{'p256-x' if on_p256 else 'no-p256-x'}",
                stamp_of(other_public, P256, other_signature),
                "a secp256k1 key and signature under the P-256 scheme's name: "
                + (
                    "its x is also a P-256 x, and the signature does not verify"
                    if on_p256
                    else "its x is no P-256 x"
                ),
                error=INVALID if on_p256 else MALFORMED,
            )
        )
    no_point = bytes([0x02]) + ref.int32(k1_x_without_point(int.from_bytes(public[1:], "big")))
    long_form = bytes([0x30, 0x81, signature[1]]) + signature[2:]
    r, s = decode_dss_signature(signature)
    malformed = [
        (
            "secp256k1-uncompressed-key",
            k1_public("stamp-k1", compressed=False),
            signature,
            "the key uncompressed (65 bytes): the stamp carries it compressed",
        ),
        ("secp256k1-x-without-point", no_point, signature, "an x with no secp256k1 point"),
        ("secp256k1-ed25519-sized-key", ed_public("stamp-ed"), signature, "a 32-byte key"),
        ("secp256k1-ber-long-form", public, long_form, "DER with a long-form length (BER)"),
        (
            "secp256k1-p1363-signature",
            public,
            ref.int32(r) + ref.int32(s),
            "the signature as raw r || s (64 bytes), not DER",
        ),
        ("secp256k1-trailing-byte", public, signature + b"\x00", "DER with a trailing byte"),
    ]
    for case_id, key_bytes, sig, comment in malformed:
        cases.append(
            verify_case(case_id, stamp_of(key_bytes, SECP256K1, sig), comment, error=MALFORMED)
        )
    cases.append(
        verify_case(
            "secp256k1-r-zero",
            stamp_of(public, SECP256K1, encode_dss_signature(0, s)),
            "r = 0: well-formed DER that never verifies",
            error=INVALID,
        )
    )
    return cases


def _ed25519_cases() -> list[Case]:
    payload = export_payload()
    stamp, public, signature = ed_stamp("stamp-ed", payload)
    good = (ED25519, public, signature)
    cases = [
        verify_case("ed25519-canonical", stamp, "the canonical stamp", result=good),
        verify_case(
            "ed25519-only-its-scheme",
            stamp,
            "accepted with its scheme alone",
            schemes=[ED25519],
            result=good,
        ),
        verify_case(
            "ed25519-default-schemes",
            stamp,
            "refused by a P-256-only verifier (the default)",
            schemes=[P256],
            error=UNSUPPORTED,
        ),
        verify_case(
            "ed25519-other-schemes",
            stamp,
            "refused when only the two ECDSA schemes are accepted",
            schemes=[P256, SECP256K1],
            error=UNSUPPORTED,
        ),
        verify_case(
            "ed25519-payload-changed",
            stamp,
            "the payload with one byte more",
            payload=payload + b" ",
            error=INVALID,
        ),
        verify_case(
            "ed25519-expected-key",
            stamp,
            "the expected key given as its 32 bytes",
            expected_public_key=public.hex(),
            result=good,
        ),
        verify_case(
            "ed25519-expected-other-key",
            stamp,
            "a valid stamp by another Ed25519 key than the expected one",
            expected_public_key=ed_public("stamp-ed-other").hex(),
            error=MISMATCH,
        ),
    ]
    for name, data, comment in (
        ("empty-payload", b"", "an empty payload"),
        ("utf8-payload", '{"memo":"café ☕"}'.encode(), "non-ASCII UTF-8 bytes"),
        ("binary-payload", stream("stamp-ed-binary", 48), "bytes that are not UTF-8"),
    ):
        other, other_public, other_signature = ed_stamp("stamp-ed", data)
        cases.append(
            verify_case(
                f"ed25519-{name}",
                other,
                comment,
                payload=data,
                result=(ED25519, other_public, other_signature),
            )
        )
    s_value = int.from_bytes(signature[32:], "little")
    unreduced = signature[:32] + (s_value + ED_L).to_bytes(32, "little")
    bad_y = ed_y_without_point(
        int.from_bytes(hashlib.sha256(b"stamp-ed-bad-y").digest(), "big") % ED_P
    )
    ecdsa_der = k1_signature("stamp-k1", payload)
    cases += [
        verify_case(
            "ed25519-s-not-reduced",
            stamp_of(public, ED25519, unreduced),
            "S + L in place of S (a malleated signature, S >= L): refused",
            error=INVALID,
        ),
        verify_case(
            "ed25519-key-not-a-point",
            stamp_of(bad_y.to_bytes(32, "little"), ED25519, signature),
            "32 bytes whose y decodes to no point: nothing verifies under it",
            error=INVALID,
        ),
    ]
    malformed = [
        ("ed25519-signature-63-bytes", public, ED25519, signature[:63], "a 63-byte signature"),
        ("ed25519-signature-65-bytes", public, ED25519, signature + b"\x00", "a 65-byte signature"),
        ("ed25519-der-signature", public, ED25519, ecdsa_der, "a DER ECDSA signature"),
        ("ed25519-33-byte-key", b"\x00" + public, ED25519, signature, "a 33-byte key"),
        (
            "ed25519-key-under-secp256k1-name",
            public,
            SECP256K1,
            signature,
            "an Ed25519 key and signature under the secp256k1 scheme's name",
        ),
        (
            "ed25519-key-under-p256-name",
            public,
            P256,
            signature,
            "an Ed25519 key and signature under the P-256 scheme's name",
        ),
        (
            "eip191-scheme",
            k1_public("stamp-k1"),
            "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191",
            k1_signature("stamp-k1", payload),
            "the EIP-191 wallet scheme, not a stamp scheme here",
        ),
    ]
    for case_id, key_bytes, scheme, sig, comment in malformed:
        cases.append(
            verify_case(case_id, stamp_of(key_bytes, scheme, sig), comment, error=MALFORMED)
        )
    return cases


def _p256_cases() -> list[Case]:
    payload = export_payload()
    scalar, _ = key("stamp-session")
    public = ref.public_key_bytes(scalar, compressed=True)
    r, s = ref.sign_deterministic(scalar, payload)
    signature = ref.der_signature(r, min(s, ref.N - s))
    stamp = stamp_of(public, P256, signature)
    return [
        verify_case(
            "p256-with-all-schemes",
            stamp,
            "a P-256 stamp verifies when all three schemes are accepted",
            result=(P256, public, signature),
        ),
        verify_case(
            "p256-refused",
            stamp,
            "a P-256 stamp refused when only Ed25519 is accepted",
            schemes=[ED25519],
            error=UNSUPPORTED,
        ),
    ]


def _create_cases() -> list[Case]:
    cases = []
    for name, data in (
        ("export-payload", export_payload()),
        ("empty-payload", b""),
        ("binary-payload", stream("stamp-ed-binary", 48)),
    ):
        stamp, _, _ = ed_stamp("stamp-ed", data)
        cases.append(
            case(
                f"stamp-schemes-ed25519-create-{name}",
                "stamp_create_ed25519",
                {"private_key": ikm("stamp-ed").hex(), "payload": data.hex()},
                expected={"stamp": stamp},
                comment="Ed25519 stamps are deterministic: creation gives exactly these bytes",
            )
        )
    return cases


def build() -> dict[str, object]:
    cases = _secp256k1_cases() + _ed25519_cases() + _p256_cases() + _create_cases()
    return vector_file(DESCRIPTION, cases)
