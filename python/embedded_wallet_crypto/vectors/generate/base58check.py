"""base58check.json: Bitcoin-alphabet base58check without a version byte (formats.md section 3)."""

from __future__ import annotations

from typing import Any

from . import _reference as ref
from ._common import Case, case, key, stream, vector_file

DESCRIPTION = (
    "base58check (Bitcoin alphabet, no version byte, checksum = first 4 bytes of "
    "SHA-256(SHA-256(payload))): encoding, strict decoding, and rejection of bad checksums "
    "(INVALID_CHECKSUM, also for input shorter than the checksum) and of characters outside "
    "the alphabet, whitespace included (INVALID_BASE58)."
)


def _payloads() -> list[tuple[str, bytes, str]]:
    session_key, _ = key("session-key")
    compressed = ref.compress(key("recipient")[1])
    return [
        ("empty", b"", "empty payload: the text is the checksum alone"),
        ("one-byte", b"\x61", "one byte"),
        ("one-zero-byte", b"\x00", "a single zero byte: leading '1'"),
        ("leading-zeros", b"\x00\x00\x00" + stream("b58-leading", 5), "three leading zeros"),
        ("all-zeros", bytes(8), "eight zero bytes"),
        ("session-key-32-bytes", session_key, "a 32-byte scalar"),
        ("compressed-key-33-bytes", compressed, "a compressed public key"),
        (
            "sealed-session-key-81-bytes",
            stream("b58-sealed-81", 81),
            "the length of an encryptedSessionSigningKey payload (33 + 32 + 16)",
        ),
        ("high-bytes", b"\xff" * 20, "all-ones bytes"),
    ]


def _encode_cases(payloads: list[tuple[str, bytes, str]]) -> list[Case]:
    return [
        case(
            f"b58c-encode-{name}",
            "b58check_encode",
            {"payload": payload.hex()},
            expected={"text": ref.b58check_encode(payload)},
            comment=comment,
        )
        for name, payload, comment in payloads
    ]


def _decode_valid(payloads: list[tuple[str, bytes, str]]) -> list[Case]:
    return [
        case(
            f"b58c-decode-{name}",
            "b58check_decode",
            {"text": ref.b58check_encode(payload)},
            expected={"payload": payload.hex()},
            comment=comment,
        )
        for name, payload, comment in payloads
    ]


def _change_char(text: str, index: int) -> str:
    """``text`` with one character replaced by the next one of the alphabet."""
    alphabet = ref.BASE58_ALPHABET
    replacement = alphabet[(alphabet.index(text[index]) + 1) % len(alphabet)]
    return text[:index] + replacement + text[index + 1 :]


def _decode_invalid() -> list[Case]:
    text = ref.b58check_encode(stream("b58-sealed-81", 81))
    middle = len(text) // 2
    checksum = "INVALID_CHECKSUM"
    base58 = "INVALID_BASE58"
    specs = [
        ("checksum-last-char", _change_char(text, -1), checksum, "last character changed"),
        ("checksum-middle-char", _change_char(text, middle), checksum, "a middle character"),
        ("checksum-first-char", _change_char(text, 0), checksum, "the first character"),
        ("checksum-dropped-char", text[:-1], checksum, "the last character removed"),
        (
            "checksum-four-zero-bytes",
            "1111",
            checksum,
            "four zero bytes: an empty payload with checksum 00000000",
        ),
        ("too-short-empty", "", checksum, "no bytes: shorter than the checksum"),
        ("too-short-one-byte", "1", checksum, "one byte"),
        ("too-short-three-bytes", ref.b58encode(b"\x01\x02\x03"), checksum, "three bytes"),
        ("char-zero", text[:middle] + "0" + text[middle + 1 :], base58, "'0' is not base58"),
        ("char-upper-o", text[:middle] + "O" + text[middle + 1 :], base58, "'O'"),
        ("char-upper-i", text[:middle] + "I" + text[middle + 1 :], base58, "'I'"),
        ("char-lower-l", text[:middle] + "l" + text[middle + 1 :], base58, "'l'"),
        ("char-plus", text[:middle] + "+" + text[middle + 1 :], base58, "'+' (base64)"),
        ("space-inside", text[:middle] + " " + text[middle:], base58, "a space inside"),
        ("space-leading", " " + text, base58, "a leading space"),
        ("space-trailing", text + " ", base58, "a trailing space"),
        ("newline-trailing", text + "\n", base58, "a trailing newline"),
        ("tab-inside", text[:middle] + "\t" + text[middle:], base58, "a tab inside"),
        (
            "non-ascii-letter",
            text[:middle] + "\u00e9" + text[middle + 1 :],
            base58,
            "a non-ASCII letter",
        ),
        (
            "non-ascii-digit",
            text[:middle] + "\u0663" + text[middle + 1 :],
            base58,
            "ARABIC-INDIC DIGIT THREE, a Unicode digit",
        ),
        (
            "fullwidth-char",
            text[:middle] + "\uff21" + text[middle + 1 :],
            base58,
            "FULLWIDTH LATIN CAPITAL LETTER A",
        ),
        ("nul-char", text + "\x00", base58, "a NUL character"),
    ]
    # A changed character keeps a right checksum with probability 2^-32: make sure it did not.
    if any(ref.b58check_is_valid(value) for _, value, _, _ in specs):
        raise RuntimeError("a negative base58check case decodes with a valid checksum")
    return [
        case(
            f"b58c-decode-invalid-{name}",
            "b58check_decode",
            {"text": value},
            error=error,
            comment=comment,
        )
        for name, value, error, comment in specs
    ]


def build() -> dict[str, Any]:
    payloads = _payloads()
    cases = _encode_cases(payloads) + _decode_valid(payloads) + _decode_invalid()
    return vector_file(DESCRIPTION, cases)
