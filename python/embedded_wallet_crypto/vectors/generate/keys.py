"""keys.json: SEC1 public-key parsing with full validation, and private-scalar loading."""

from __future__ import annotations

from typing import Any

from . import _reference as ref
from ._common import Case, case, key, stream, vector_file

DESCRIPTION = (
    "P-256 keys: public_key_parse (SEC1 hex in any case, compressed or uncompressed, validated: "
    "length, prefix, coordinates < p, on the curve) and private_key_load (32-byte scalars, "
    "1 <= d < n)."
)


def _parse_valid(case_id: str, text: str, comment: str) -> Case:
    point = ref.parse_public_key(bytes.fromhex(text))
    expected = {"uncompressed": point.hex(), "compressed": ref.compress(point).hex()}
    return case(
        case_id, "public_key_parse", {"public_key": text}, expected=expected, comment=comment
    )


def _parse_invalid(case_id: str, text: str, error: str, comment: str) -> Case:
    return case(case_id, "public_key_parse", {"public_key": text}, error=error, comment=comment)


def _keys_by_parity() -> tuple[bytes, bytes]:
    """The first derived public keys (labels parse-0, parse-1, ...) with even and odd y."""
    found: dict[int, bytes] = {}
    index = 0
    while len(found) < 2:
        public = key(f"parse-{index}")[1]
        found.setdefault(public[-1] & 1, public)
        index += 1
    return found[0], found[1]


def _public_key_cases() -> list[Case]:
    even, odd = _keys_by_parity()
    _, recipient = key("recipient")
    x, y = ref.coordinates(recipient)
    generator = ref.uncompressed(ref.GX, ref.GY)
    small_y_x, small_y = ref.POINT_WITH_SMALL_Y
    bad_x = ref.first_x_without_point(x)
    zero_x, zero_x_y = ref.first_x_with_point(0)
    hybrid = bytes([6 + (y & 1)]) + recipient[1:]
    valid = [
        _parse_valid("pk-parse-uncompressed", recipient.hex(), "uncompressed, lower case"),
        _parse_valid("pk-parse-compressed-02", ref.compress(even).hex(), "compressed, even y"),
        _parse_valid("pk-parse-compressed-03", ref.compress(odd).hex(), "compressed, odd y"),
        _parse_valid(
            "pk-parse-uncompressed-upper-case",
            recipient.hex().upper(),
            "upper-case hex is accepted",
        ),
        _parse_valid(
            "pk-parse-compressed-upper-case",
            ref.compress(odd).hex().upper(),
            "upper-case compressed hex",
        ),
        _parse_valid(
            "pk-parse-mixed-case",
            recipient.hex()[:66] + recipient.hex()[66:].upper(),
            "mixed-case hex",
        ),
        _parse_valid("pk-parse-generator", generator.hex(), "the base point G"),
        _parse_valid(
            "pk-parse-small-y", ref.uncompressed(small_y_x, small_y).hex(), "a point whose y is 5"
        ),
        _parse_valid(
            "pk-parse-compressed-x-zero",
            (b"\x02" + ref.int32(zero_x)).hex(),
            "x = 0 is on the curve: 02 || 00*32 is a valid key",
        ),
    ]
    length = "INVALID_KEY_LENGTH"
    prefix = "INVALID_KEY_PREFIX"
    point = "INVALID_POINT"
    encoding = "INVALID_KEY_ENCODING"
    invalid = [
        _parse_invalid("pk-parse-empty", "", length, "no bytes"),
        _parse_invalid("pk-parse-infinity-byte", "00", length, "the 1-byte SEC1 infinity"),
        _parse_invalid("pk-parse-32-bytes", recipient[1:33].hex(), length, "x only"),
        _parse_invalid("pk-parse-64-bytes", recipient[1:].hex(), length, "x || y, no prefix"),
        _parse_invalid(
            "pk-parse-66-bytes", (recipient + b"\x00").hex(), length, "one trailing byte"
        ),
        _parse_invalid(
            "pk-parse-34-bytes",
            (ref.compress(recipient) + b"\x00").hex(),
            length,
            "compressed plus one trailing byte",
        ),
        _parse_invalid(
            "pk-parse-prefix-05", ("05" + recipient[1:].hex()), prefix, "65 bytes with prefix 05"
        ),
        _parse_invalid(
            "pk-parse-hybrid-06-07",
            hybrid.hex(),
            prefix,
            "the X9.62 hybrid encoding (06/07) of a valid point",
        ),
        _parse_invalid(
            "pk-parse-hybrid-wrong-parity",
            bytes([hybrid[0] ^ 1]).hex() + recipient[1:].hex(),
            prefix,
            "hybrid prefix with the other parity",
        ),
        _parse_invalid(
            "pk-parse-04-on-33-bytes",
            ("04" + recipient[1:33].hex()),
            prefix,
            "prefix 04 on a 33-byte key",
        ),
        _parse_invalid(
            "pk-parse-00-on-33-bytes",
            ("00" + recipient[1:33].hex()),
            prefix,
            "prefix 00 on a 33-byte key",
        ),
        _parse_invalid(
            "pk-parse-02-on-65-bytes",
            ("02" + recipient[1:].hex()),
            prefix,
            "prefix 02 on a 65-byte key",
        ),
        _parse_invalid(
            "pk-parse-off-curve-y",
            ref.uncompressed(x, (y + 1) % ref.P).hex(),
            point,
            "04 || x || y+1",
        ),
        _parse_invalid(
            "pk-parse-x-not-on-curve", ref.uncompressed(bad_x, y).hex(), point, "an x with no point"
        ),
        _parse_invalid(
            "pk-parse-x-at-least-p",
            ref.uncompressed(zero_x + ref.P, zero_x_y).hex(),
            point,
            "x = p, which reduces to the valid x = 0",
        ),
        _parse_invalid(
            "pk-parse-y-at-least-p",
            ref.uncompressed(small_y_x, small_y + ref.P).hex(),
            point,
            "y = p + 5, which reduces to a valid point",
        ),
        _parse_invalid(
            "pk-parse-compressed-no-sqrt",
            ("02" + ref.int32(bad_x).hex()),
            point,
            "compressed x for which x^3 - 3x + b has no square root",
        ),
        _parse_invalid(
            "pk-parse-compressed-x-at-least-p",
            ("03" + ref.int32(ref.P).hex()),
            point,
            "compressed x = p",
        ),
        _parse_invalid(
            "pk-parse-all-zero-04",
            ("04" + "00" * 64),
            point,
            "04 || 0^64: not on the curve (and not the identity encoding)",
        ),
        _parse_invalid("pk-parse-non-hex", "zz" * 65, encoding, "not hex"),
        _parse_invalid(
            "pk-parse-0x-prefix", "0x" + recipient.hex(), encoding, "a 0x prefix is not hex"
        ),
        _parse_invalid(
            "pk-parse-odd-length-hex",
            recipient.hex()[:-1],
            encoding,
            "129 hex digits: not a whole number of bytes",
        ),
        _parse_invalid(
            "pk-parse-inner-space",
            recipient.hex()[:64] + " " + recipient.hex()[64:],
            encoding,
            "a space inside the hex",
        ),
        _parse_invalid(
            "pk-parse-non-ascii", "04" + "\u00e9" * 128, encoding, "non-ASCII characters"
        ),
    ]
    return valid + invalid


def _load_valid(case_id: str, scalar: bytes, comment: str) -> Case:
    expected = {
        "public_key": ref.public_key_bytes(scalar).hex(),
        "public_key_compressed": ref.public_key_bytes(scalar, compressed=True).hex(),
    }
    return case(
        case_id,
        "private_key_load",
        {"private_key": scalar.hex()},
        expected=expected,
        comment=comment,
    )


def _load_invalid(case_id: str, scalar: bytes, error: str, comment: str) -> Case:
    return case(
        case_id, "private_key_load", {"private_key": scalar.hex()}, error=error, comment=comment
    )


def _private_key_cases() -> list[Case]:
    n = ref.N
    recipient, _ = key("recipient")
    leading_zero = b"\x00" + stream("scalar-leading-zero", 31)
    return [
        _load_valid("sk-load-one", ref.int32(1), "d = 1: the public key is G"),
        _load_valid("sk-load-two", ref.int32(2), "d = 2"),
        _load_valid("sk-load-n-minus-one", ref.int32(n - 1), "d = n - 1: the public key is -G"),
        _load_valid("sk-load-derived-recipient", recipient, "the HPKE vectors' recipient key"),
        _load_valid(
            "sk-load-derived-session-key", key("session-key")[0], "the session-key-like scalar"
        ),
        _load_valid("sk-load-leading-zero-byte", leading_zero, "a scalar below 2^248"),
        _load_invalid("sk-load-zero", ref.int32(0), "INVALID_PRIVATE_KEY", "d = 0"),
        _load_invalid("sk-load-n", ref.int32(n), "INVALID_PRIVATE_KEY", "d = n"),
        _load_invalid(
            "sk-load-n-plus-one",
            ref.int32(n + 1),
            "INVALID_PRIVATE_KEY",
            "d = n + 1 (would reduce to 1)",
        ),
        _load_invalid("sk-load-all-ones", b"\xff" * 32, "INVALID_PRIVATE_KEY", "d = 2^256 - 1"),
        _load_invalid("sk-load-31-bytes", recipient[1:], "INVALID_KEY_LENGTH", "31 bytes"),
        _load_invalid(
            "sk-load-33-bytes",
            b"\x00" + recipient,
            "INVALID_KEY_LENGTH",
            "33 bytes, even with a leading zero",
        ),
        _load_invalid("sk-load-empty", b"", "INVALID_KEY_LENGTH", "no bytes"),
    ]


def build() -> dict[str, Any]:
    return vector_file(DESCRIPTION, _public_key_cases() + _private_key_cases())
