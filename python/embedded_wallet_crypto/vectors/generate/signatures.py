"""signatures.json: strict-DER ECDSA P-256 / SHA-256 verification."""

from __future__ import annotations

from typing import Any

from . import _reference as ref
from ._common import Case, case, key, stream, vector_file

DESCRIPTION = (
    "ECDSA P-256 / SHA-256 verification with DER signatures: RFC 6979 signatures and their "
    "high-S twins (both verify), compressed and uncompressed keys, wrong signatures "
    "(verified: false, including r or s of 0 or n) and encodings that are not strict DER "
    "(INVALID_SIGNATURE_ENCODING)."
)
PAYLOAD_TO_SIGN = (
    b'{"organizationId":"org-1234","parameters":{"targetPublicKey":"04ab"},'
    b'"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
)
MESSAGES = [
    ("empty", b""),
    ("hello", b"hello"),
    ("payload", PAYLOAD_TO_SIGN),
    ("1024-bytes", stream("message-1024", 1024)),
]
ENCODING = "INVALID_SIGNATURE_ENCODING"


def _verify_case(
    case_id: str,
    public_key: bytes,
    message: bytes,
    signature: bytes,
    comment: str,
    *,
    verified: bool | None = None,
    error: str | None = None,
) -> Case:
    inputs = {
        "public_key": public_key.hex(),
        "message": message.hex(),
        "signature": signature.hex(),
    }
    expected = None if verified is None else {"verified": verified}
    return case(case_id, "ecdsa_verify", inputs, expected=expected, error=error, comment=comment)


def _der_length(length: int) -> bytes:
    return bytes([length]) if length < 0x80 else bytes([0x81, length])


def _tlv(tag: int, content: bytes, *, long_form: bool = False) -> bytes:
    length = bytes([0x81, len(content)]) if long_form else _der_length(len(content))
    return bytes([tag]) + length + content


def _int_content(value: int) -> bytes:
    """Minimal two's-complement content octets of a non-negative INTEGER."""
    return value.to_bytes(value.bit_length() // 8 + 1, "big")


def _signature_from_parts(r_content: bytes, s_content: bytes) -> bytes:
    return _tlv(0x30, _tlv(0x02, r_content) + _tlv(0x02, s_content))


def _valid_cases() -> list[Case]:
    signer, public = key("signer")
    compressed = ref.compress(public)
    cases = []
    for name, message in MESSAGES:
        r, s = ref.sign_deterministic(signer, message)
        low = min(s, ref.N - s)
        signed = "low" if s == low else "high"
        for form, s_value in (("low", low), ("high", ref.N - low)):
            origin = "the RFC 6979 signature" if form == signed else "its twin s' = n - s"
            comment = f"{form}-S: {origin} over message '{name}'"
            cases.append(
                _verify_case(
                    f"sig-{name}-{form}-s",
                    public,
                    message,
                    ref.der_signature(r, s_value),
                    comment,
                    verified=True,
                )
            )
            if name in ("hello", "payload"):
                cases.append(
                    _verify_case(
                        f"sig-{name}-{form}-s-compressed-key",
                        compressed,
                        message,
                        ref.der_signature(r, s_value),
                        comment + ", compressed key",
                        verified=True,
                    )
                )
    return cases


def _wrong_cases() -> list[Case]:
    signer, public = key("signer")
    _, other_public = key("other-signer")
    message = b"hello"
    r, s = ref.sign_deterministic(signer, message)
    n = ref.N
    specs = [
        ("sig-wrong-message", public, b"hellp", ref.der_signature(r, s), "another message"),
        ("sig-wrong-key", other_public, message, ref.der_signature(r, s), "another public key"),
        (
            "sig-wrong-key-compressed",
            ref.compress(other_public),
            message,
            ref.der_signature(r, s),
            "another public key, compressed",
        ),
        ("sig-s-bit-flip", public, message, ref.der_signature(r, s ^ 1), "lowest bit of s"),
        ("sig-r-zero", public, message, ref.der_signature(0, s), "r = 0"),
        ("sig-s-zero", public, message, ref.der_signature(r, 0), "s = 0"),
        ("sig-r-n", public, message, ref.der_signature(n, s), "r = n"),
        ("sig-s-n", public, message, ref.der_signature(r, n), "s = n"),
        ("sig-r-s-zero", public, message, ref.der_signature(0, 0), "r = s = 0"),
        (
            "sig-r-plus-n",
            public,
            message,
            ref.der_signature(r + n, s),
            "r + n: the same residue, out of range (33-byte INTEGER)",
        ),
    ]
    return [_verify_case(i, k, m, sig, c, verified=False) for i, k, m, sig, c in specs]


def _signature_with_high_r(signer: bytes) -> tuple[bytes, int, int]:
    """The first message 'high-r-<i>' whose RFC 6979 r has its top bit set (needs a 00 pad)."""
    index = 0
    while True:
        message = f"high-r-{index}".encode()
        r, s = ref.sign_deterministic(signer, message)
        if r >> 255:
            return message, r, s
        index += 1


def _encoding_cases() -> list[Case]:
    signer, public = key("signer")
    message, r, s = _signature_with_high_r(signer)
    good = ref.der_signature(r, s)
    r_content, s_content = _int_content(r), _int_content(s)
    body = _tlv(0x02, r_content) + _tlv(0x02, s_content)
    specs = [
        (
            "sig-der-ber-long-form-length",
            _tlv(0x30, body, long_form=True),
            "SEQUENCE length in long form (30 81 ..)",
        ),
        (
            "sig-der-integer-long-form-length",
            _tlv(0x30, _tlv(0x02, r_content, long_form=True) + _tlv(0x02, s_content)),
            "INTEGER length in long form (02 81 ..)",
        ),
        (
            "sig-der-non-minimal-integer",
            _signature_from_parts(b"\x00" + r_content, s_content),
            "r with an extra leading 00",
        ),
        (
            "sig-der-negative-integer",
            _signature_from_parts(r_content[1:], s_content),
            "r with its top bit set and no 00 pad: a negative INTEGER",
        ),
        (
            "sig-der-empty-integer",
            _signature_from_parts(b"", s_content),
            "a zero-length INTEGER for r",
        ),
        ("sig-der-trailing-byte", good + b"\x00", "one byte after the SEQUENCE"),
        ("sig-der-trailing-sequence", good + good, "two signatures back to back"),
        ("sig-der-wrong-outer-tag", b"\x31" + good[1:], "SET (31) instead of SEQUENCE (30)"),
        (
            "sig-der-wrong-integer-tag",
            _tlv(0x30, _tlv(0x03, r_content) + _tlv(0x02, s_content)),
            "BIT STRING (03) instead of INTEGER for r",
        ),
        (
            "sig-der-sequence-length-too-long",
            good[:1] + bytes([good[1] + 1]) + good[2:],
            "SEQUENCE length one more than the content",
        ),
        (
            "sig-der-sequence-length-too-short",
            good[:1] + bytes([good[1] - 1]) + good[2:],
            "SEQUENCE length one less than the content",
        ),
        (
            "sig-der-extra-integer",
            _tlv(0x30, body + _tlv(0x02, b"\x01")),
            "a third INTEGER inside the SEQUENCE",
        ),
        ("sig-der-missing-s", _tlv(0x30, _tlv(0x02, r_content)), "only r"),
        ("sig-der-indefinite-length", b"\x30\x80" + body + b"\x00\x00", "BER indefinite length"),
        ("sig-der-truncated", good[:-1], "the last byte cut off"),
        ("sig-der-empty", b"", "no bytes"),
        ("sig-der-p1363", ref.int32(r) + ref.int32(s), "raw r || s (P1363), not DER"),
    ]
    cases = [_verify_case(i, public, message, sig, c, error=ENCODING) for i, sig, c in specs]
    cases.append(
        _verify_case(
            "sig-der-reference",
            public,
            message,
            good,
            "the strict-DER signature the malformed cases are built from",
            verified=True,
        )
    )
    return cases


def _bad_key_cases() -> list[Case]:
    signer, public = key("signer")
    r, s = ref.sign_deterministic(signer, b"hello")
    x, y = ref.coordinates(public)
    return [
        _verify_case(
            "sig-key-off-curve",
            ref.uncompressed(x, (y + 1) % ref.P),
            b"hello",
            ref.der_signature(r, s),
            "public key off the curve",
            error="INVALID_POINT",
        ),
        _verify_case(
            "sig-key-bad-length",
            public[:64],
            b"hello",
            ref.der_signature(r, s),
            "64-byte public key",
            error="INVALID_KEY_LENGTH",
        ),
    ]


def build() -> dict[str, Any]:
    cases = _valid_cases() + _wrong_cases() + _encoding_cases() + _bad_key_cases()
    return vector_file(DESCRIPTION, cases)
