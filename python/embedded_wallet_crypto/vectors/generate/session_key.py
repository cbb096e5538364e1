"""session_key.json: encryptedSessionSigningKey seal and open (formats.md section 3)."""

from __future__ import annotations

from typing import Any

from . import _reference as ref
from ._common import PROFILE_INFO, Case, case, flip_bit, key, seal, vector_file

DESCRIPTION = (
    "encryptedSessionSigningKey (formats.md section 3): base58check(compressed enc (33 bytes) || "
    "AES-256-GCM ciphertext of the 32-byte session scalar with its tag), sealed in the HPKE "
    "profile of section 1. session_key_seal: deterministic seals with a fixed ephemeral key, "
    "and the client keys that cannot be sealed to (compressed: CLIENT_HELD_KEY; malformed). "
    "session_key_open: the client opens the text; negatives for another client key, altered "
    "ciphertext, enc or tag, another info or aad (DECRYPTION_FAILED), bad checksum, bad "
    "characters and wrong decoded lengths, and plaintexts that are not a P-256 scalar."
)


def _seal_parts(
    client_public: bytes,
    plaintext: bytes,
    ephemeral_label: str,
    *,
    info: bytes = PROFILE_INFO,
    aad: bytes | None = None,
) -> tuple[bytes, bytes]:
    """(compressed enc, ciphertext): the wire's form of the reference seal."""
    enc, ciphertext = seal(client_public, plaintext, ephemeral_label, info=info, aad=aad)
    return ref.compress(enc), ciphertext


def _wire(enc: bytes, ciphertext: bytes) -> str:
    return ref.b58check_encode(enc + ciphertext)


def _seal_case(
    case_id: str, client_public_text: str, session_label: str, comment: str
) -> tuple[Case, str]:
    client_public = bytes.fromhex(client_public_text)
    session, _ = key(session_label)
    ephemeral, _ = key(f"{case_id}/ephemeral")
    text = _wire(*_seal_parts(client_public, session, f"{case_id}/ephemeral"))
    inputs = {
        "client_public_key": client_public_text,
        "session_private_key": session.hex(),
        "ephemeral_private_key": ephemeral.hex(),
    }
    built = case(case_id, "session_key_seal", inputs, expected={"encrypted": text}, comment=comment)
    return built, text


def _seal_error(case_id: str, client_public_text: str, error: str, comment: str) -> Case:
    inputs = {
        "client_public_key": client_public_text,
        "session_private_key": key("session-key")[0].hex(),
        "ephemeral_private_key": key(f"{case_id}/ephemeral")[0].hex(),
    }
    return case(case_id, "session_key_seal", inputs, error=error, comment=comment)


def _open_case(
    case_id: str,
    encrypted: str,
    comment: str,
    *,
    client: str = "session-client",
    session: bytes | None = None,
    error: str | None = None,
) -> Case:
    inputs = {"client_private_key": key(client)[0].hex(), "encrypted": encrypted}
    expected = None
    if session is not None:
        expected = {
            "session_private_key": session.hex(),
            "session_public_key": ref.public_key_bytes(session).hex(),
        }
    return case(
        case_id, "session_key_open", inputs, expected=expected, error=error, comment=comment
    )


def _seal_cases() -> tuple[list[Case], list[Case]]:
    """The seal cases, and an open case for each valid seal (the same text must open)."""
    _, client_public = key("session-client")
    specs = [
        ("session-seal-profile", client_public.hex(), "session-key", "the profile seal"),
        (
            "session-seal-second-session-key",
            client_public.hex(),
            "session-key-2",
            "another session key and ephemeral key",
        ),
        (
            "session-seal-client-key-upper-case",
            client_public.hex().upper(),
            "session-key",
            "the clientPublicKey in upper-case hex: the same key",
        ),
    ]
    seals, opens = [], []
    for case_id, client_text, session_label, comment in specs:
        built, text = _seal_case(case_id, client_text, session_label, comment)
        seals.append(built)
        opens.append(
            _open_case(
                case_id.replace("session-seal-", "session-open-sealed-"),
                text,
                f"opens the text of {case_id}",
                session=key(session_label)[0],
            )
        )
    x, y = ref.coordinates(client_public)
    seals += [
        _seal_error(
            "session-seal-client-held-key",
            ref.compress(client_public).hex(),
            "CLIENT_HELD_KEY",
            "a compressed clientPublicKey selects the client-held-key flow: nothing to seal",
        ),
        _seal_error(
            "session-seal-client-key-off-curve",
            ref.uncompressed(x, (y + 1) % ref.P).hex(),
            "INVALID_POINT",
            "04 || x || y+1: off the curve (invalid-curve defence before any work)",
        ),
        _seal_error(
            "session-seal-client-key-identity",
            (b"\x04" + bytes(64)).hex(),
            "INVALID_POINT",
            "04 || 0^64",
        ),
        _seal_error(
            "session-seal-client-key-64-bytes",
            client_public[1:].hex(),
            "INVALID_KEY_LENGTH",
            "x || y without the 04 prefix",
        ),
        _seal_error(
            "session-seal-client-key-not-hex",
            "04" + "zz" * 64,
            "INVALID_KEY_ENCODING",
            "not hex",
        ),
    ]
    return seals, opens


def _open_cases() -> list[Case]:
    _, client_public = key("session-client")
    session, _ = key("session-key")
    enc, ciphertext = _seal_parts(client_public, session, "session-open/ephemeral")
    text = _wire(enc, ciphertext)
    uncompressed_enc = ref.public_key_bytes(key("session-open/ephemeral")[0])
    middle = len(text) // 2
    last = ref.BASE58_ALPHABET[(ref.BASE58_ALPHABET.index(text[-1]) + 1) % 58]
    no_point = b"\x02" + ref.int32(ref.first_x_without_point(int.from_bytes(enc[1:], "big")))
    decryption = "DECRYPTION_FAILED"
    # Altered bytes are re-encoded under a correct checksum: only the HPKE open can catch them.
    cases = [
        _open_case("session-open-profile", text, "the profile seal", session=session),
        _open_case(
            "session-open-wrong-client-key",
            text,
            "opened with another client key",
            client="session-other-client",
            error=decryption,
        ),
        _open_case(
            "session-open-ciphertext-bit-flip",
            _wire(enc, flip_bit(ciphertext, 0)),
            "first ciphertext byte flipped, checksum recomputed",
            error=decryption,
        ),
        _open_case(
            "session-open-tag-bit-flip",
            _wire(enc, flip_bit(ciphertext, -1)),
            "last tag byte flipped, checksum recomputed",
            error=decryption,
        ),
        _open_case(
            "session-open-enc-wrong-parity",
            _wire(bytes([enc[0] ^ 1]) + enc[1:], ciphertext),
            "compressed enc with 02/03 swapped: the negated point",
            error=decryption,
        ),
        _open_case(
            "session-open-enc-not-a-point",
            _wire(no_point, ciphertext),
            "a compressed enc whose x has no point on the curve",
            error=decryption,
        ),
        _open_case(
            "session-open-sealed-without-profile-aad",
            _wire(*_seal_parts(client_public, session, "session-open/ephemeral", aad=b"")),
            "sealed as plain RFC 9180 (empty aad) instead of the profile's enc || pkR",
            error=decryption,
        ),
        _open_case(
            "session-open-sealed-with-other-info",
            _wire(*_seal_parts(client_public, session, "session-open/ephemeral", info=b"")),
            "sealed with an empty info instead of 'turnkey_hpke'",
            error=decryption,
        ),
        _open_case(
            "session-open-bad-checksum",
            text[:-1] + last,
            "last character changed: the checksum fails",
            error="INVALID_CHECKSUM",
        ),
        _open_case(
            "session-open-empty",
            "",
            "no text: shorter than the checksum",
            error="INVALID_CHECKSUM",
        ),
        _open_case(
            "session-open-bad-character",
            text[:middle] + "0" + text[middle + 1 :],
            "'0' is not in the base58 alphabet",
            error="INVALID_BASE58",
        ),
        _open_case(
            "session-open-trailing-newline",
            text + "\n",
            "a trailing newline is not stripped",
            error="INVALID_BASE58",
        ),
        _open_case(
            "session-open-80-bytes",
            _wire(enc, ciphertext[:-1]),
            "a valid checksum over 80 bytes",
            error="INVALID_LENGTH",
        ),
        _open_case(
            "session-open-82-bytes",
            _wire(enc, ciphertext + b"\x00"),
            "a valid checksum over 82 bytes",
            error="INVALID_LENGTH",
        ),
        _open_case(
            "session-open-uncompressed-enc",
            _wire(uncompressed_enc, ciphertext),
            "65-byte uncompressed enc (113 bytes): the wire form carries the compressed enc",
            error="INVALID_LENGTH",
        ),
    ]
    scalars = [
        ("scalar-one", ref.int32(1), None, "the smallest scalar, 1"),
        ("scalar-n-minus-1", ref.int32(ref.N - 1), None, "the largest scalar, n - 1"),
        ("scalar-zero", bytes(32), "INVALID_PRIVATE_KEY", "a sealed scalar of 0"),
        ("scalar-n", ref.int32(ref.N), "INVALID_PRIVATE_KEY", "a sealed scalar of n"),
        ("scalar-all-ones", b"\xff" * 32, "INVALID_PRIVATE_KEY", "a sealed scalar above n"),
    ]
    for name, scalar, error, comment in scalars:
        sealed = _wire(*_seal_parts(client_public, scalar, f"session-open-{name}/ephemeral"))
        cases.append(
            _open_case(
                f"session-open-{name}",
                sealed,
                comment + " (authentic ciphertext)",
                session=None if error else scalar,
                error=error,
            )
        )
    return cases


def build() -> dict[str, Any]:
    seals, opens = _seal_cases()
    return vector_file(DESCRIPTION, seals + opens + _open_cases())
