"""hpke.json: DeriveKeyPair, deterministic seals in the wallet profile, and open negatives."""

from __future__ import annotations

from typing import Any, TypedDict

from . import _reference as ref
from ._common import PROFILE_INFO, Case, case, flip_bit, ikm, key, seal, stream, vector_file

DESCRIPTION = (
    "HPKE (RFC 9180) mode_base, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM: "
    "DeriveKeyPair, single-shot seal and open in the wallet profile of formats.md section 1 "
    "(info 'turnkey_hpke', aad null = enc || recipient public key) and with explicit aad or "
    "info, and open failures (tampered enc, ciphertext, tag, aad or info, wrong key, truncation, "
    "invalid enc points) that must all raise DECRYPTION_FAILED."
)
# RFC 9180 appendix A.3.1 (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM), ikmR.
RFC9180_A31_IKM_R = bytes.fromhex(
    "668b37171f1072f3cf12ea8a236a45df23fc13b82af3609ad1e354f6ef817550"
)


class _Sealed(TypedDict):
    enc: bytes
    ciphertext: bytes


def _hex_or_null(value: bytes | None) -> str | None:
    return None if value is None else value.hex()


def _derive_cases() -> list[Case]:
    inputs = [
        ("hpke-derive-recipient", ikm("recipient"), "the recipient key of the seal vectors"),
        ("hpke-derive-other", ikm("other"), "the wrong-recipient key of the open vectors"),
        ("hpke-derive-ikm-64-bytes", stream("ikm-64", 64), "ikm longer than Nsk"),
        ("hpke-derive-rfc9180-a31-ikmr", RFC9180_A31_IKM_R, "RFC 9180 A.3.1 ikmR"),
    ]
    cases = []
    for case_id, material, comment in inputs:
        private, public = ref.derive_key_pair(material)
        cases.append(
            case(
                case_id,
                "hpke_derive_key_pair",
                {"ikm": material.hex()},
                expected={"private_key": private.hex(), "public_key": public.hex()},
                comment=comment,
            )
        )
    return cases


def _seal(
    case_id: str,
    plaintext: bytes,
    *,
    info: bytes,
    aad: bytes | None,
    comment: str = "",
    ephemeral: str | None = None,
) -> tuple[Case, bytes, bytes]:
    """A seal_open case to the 'recipient' key; the ephemeral key is derived from the id
    unless another label is given."""
    recipient_private, recipient_public = key("recipient")
    ephemeral_private, _ = key(ephemeral or case_id)
    enc, ciphertext = seal(recipient_public, plaintext, ephemeral or case_id, info=info, aad=aad)
    inputs = {
        "recipient_private_key": recipient_private.hex(),
        "ephemeral_private_key": ephemeral_private.hex(),
        "info": info.hex(),
        "aad": _hex_or_null(aad),
        "plaintext": plaintext.hex(),
    }
    expected = {"enc": enc.hex(), "ciphertext": ciphertext.hex()}
    return (
        case(case_id, "hpke_seal_open", inputs, expected=expected, comment=comment),
        enc,
        ciphertext,
    )


def _seal_cases() -> list[Case]:
    session_key, _ = key("session-key")
    _, recipient_public = key("recipient")
    profile_aad_enc = ref.public_key_bytes(key("hpke-seal-profile-81-bytes")[0])
    specs: list[tuple[str, bytes, bytes, bytes | None, str]] = [
        ("hpke-seal-profile-empty", b"", PROFILE_INFO, None, "empty plaintext: tag only"),
        ("hpke-seal-profile-1-byte", b"\x2a", PROFILE_INFO, None, "one-byte plaintext"),
        (
            "hpke-seal-profile-session-key",
            session_key,
            PROFILE_INFO,
            None,
            "a 32-byte P-256 scalar, as in encryptedSessionSigningKey (formats.md section 3)",
        ),
        ("hpke-seal-profile-81-bytes", stream("pt-81", 81), PROFILE_INFO, None, "81 bytes"),
        ("hpke-seal-profile-1024-bytes", stream("pt-1024", 1024), PROFILE_INFO, None, "1 KiB"),
        (
            "hpke-seal-explicit-aad-empty",
            stream("pt-explicit-empty", 32),
            PROFILE_INFO,
            b"",
            "plain RFC 9180 use: explicit empty aad instead of the profile's",
        ),
        (
            "hpke-seal-explicit-aad-random",
            stream("pt-explicit-random", 48),
            PROFILE_INFO,
            stream("aad-random", 20),
            "explicit 20-byte aad",
        ),
        (
            "hpke-seal-explicit-aad-equals-profile",
            stream("pt-81", 81),
            PROFILE_INFO,
            profile_aad_enc + recipient_public,
            "aad given explicitly as enc || recipient key, with the ephemeral key of "
            "hpke-seal-profile-81-bytes: the same enc and ciphertext as that case",
        ),
        (
            "hpke-seal-other-info",
            stream("pt-other-info", 32),
            b"embedded-wallet-crypto other info",
            None,
            "another info string with the profile aad",
        ),
        ("hpke-seal-empty-info-empty-aad", b"hello", b"", b"", "empty info and empty aad"),
    ]
    cases = []
    for case_id, plaintext, info, aad, comment in specs:
        # The equals-profile case reuses the 81-byte case's ephemeral key: same outputs.
        ephemeral = "hpke-seal-profile-81-bytes" if case_id.endswith("equals-profile") else None
        built, _, _ = _seal(
            case_id, plaintext, info=info, aad=aad, comment=comment, ephemeral=ephemeral
        )
        cases.append(built)
    return cases


def _open_case(
    case_id: str,
    *,
    enc: bytes,
    ciphertext: bytes,
    comment: str,
    recipient: str = "recipient",
    info: bytes = PROFILE_INFO,
    aad: bytes | None = None,
    plaintext: bytes | None = None,
) -> Case:
    """An hpke_open case; without ``plaintext`` it must fail with DECRYPTION_FAILED."""
    inputs: dict[str, Any] = {
        "recipient_private_key": key(recipient)[0].hex(),
        "enc": enc.hex(),
        "ciphertext": ciphertext.hex(),
        "info": info.hex(),
        "aad": _hex_or_null(aad),
    }
    if plaintext is not None:
        expected = {"plaintext": plaintext.hex()}
        return case(case_id, "hpke_open", inputs, expected=expected, comment=comment)
    return case(case_id, "hpke_open", inputs, error="DECRYPTION_FAILED", comment=comment)


def _invalid_enc_points(enc: bytes) -> list[tuple[str, bytes, str]]:
    x, y = ref.coordinates(enc)
    bad_x = ref.first_x_without_point(x)
    wrapped_x, wrapped_y = ref.first_x_with_point(0)
    small_y_x, small_y = ref.POINT_WITH_SMALL_Y
    return [
        ("x-not-on-curve", ref.uncompressed(bad_x, y), "x has no point (x^3-3x+b a non-residue)"),
        ("off-curve-y", ref.uncompressed(x, (y + 1) % ref.P), "04 || x || y+1: off the curve"),
        (
            "x-at-least-p",
            ref.uncompressed(wrapped_x + ref.P, wrapped_y),
            "x + p for an x on the curve: a coordinate >= p",
        ),
        (
            "y-at-least-p",
            ref.uncompressed(small_y_x, small_y + ref.P),
            f"y + p for the point whose y is {small_y}: a coordinate >= p",
        ),
        ("identity-zeros", b"\x04" + bytes(64), "04 || 0^64, not a point"),
        ("infinity-byte", b"\x00", "the SEC1 point at infinity"),
        ("empty", b"", "no enc at all"),
        ("64-bytes", enc[1:], "x || y without the 04 prefix"),
        ("66-bytes", enc + b"\x00", "one trailing byte"),
        ("32-bytes", enc[1:33], "x only"),
        ("prefix-05", b"\x05" + enc[1:], "65 bytes with prefix 05"),
        ("hybrid-06-07", bytes([6 + (y & 1)]) + enc[1:], "the hybrid encoding of the real enc"),
        ("compressed-prefix-04", b"\x04" + enc[1:33], "33 bytes with prefix 04"),
        ("compressed-prefix-05", b"\x05" + enc[1:33], "33 bytes with prefix 05"),
        ("compressed-no-sqrt", b"\x02" + ref.int32(bad_x), "compressed x with no point"),
        ("compressed-x-at-least-p", b"\x02" + ref.int32(wrapped_x + ref.P), "compressed x >= p"),
    ]


def _tampered(enc: bytes, ciphertext: bytes) -> list[tuple[str, bytes, bytes, str]]:
    """(id suffix, enc, ciphertext, comment): the profile message with enc or bytes changed."""
    x, y = ref.coordinates(enc)
    compressed = ref.compress(enc)
    flipped_x = flip_bit(enc, 1, 0)
    on_curve = "still on" if ref.is_on_curve(*ref.coordinates(flipped_x)) else "now off"
    other_public = ref.public_key_bytes(key("other")[0])
    ct = ciphertext
    return [
        ("enc-bit-flip-x", flipped_x, ct, f"lowest bit of x's first byte: {on_curve} the curve"),
        ("enc-bit-flip-y", flip_bit(enc, -1), ct, "lowest bit of y flipped: off the curve"),
        (
            "enc-negated",
            ref.uncompressed(x, ref.P - y),
            ct,
            "(x, p - y): a valid point, same DH x-coordinate, another KEM context",
        ),
        (
            "enc-compressed-wrong-parity",
            bytes([compressed[0] ^ 1]) + compressed[1:],
            ct,
            "compressed enc with 02/03 swapped: the negated point",
        ),
        ("enc-other-valid-point", other_public, ct, "another valid public key as enc"),
        ("ciphertext-bit-flip", enc, flip_bit(ct, 0), "first ciphertext byte flipped"),
        ("ciphertext-last-body-byte", enc, flip_bit(ct, -17, 7), "last byte before the tag"),
        ("tag-bit-flip-last", enc, flip_bit(ct, -1), "last tag byte flipped"),
        ("tag-bit-flip-first", enc, flip_bit(ct, -16, 7), "first tag byte flipped"),
        ("truncated-below-tag", enc, ct[:15], "15 bytes: shorter than the 16-byte tag"),
        ("truncated-tag-minus-one", enc, ct[:-1], "the last tag byte cut off"),
        ("tag-only", enc, ct[-16:], "the body removed, only the 16-byte tag left"),
        ("empty-ciphertext", enc, b"", "empty ciphertext"),
        ("ciphertext-extended", enc, ct + b"\x00", "one byte appended"),
    ] + [
        (f"enc-{suffix}", bad_enc, ct, f"invalid enc: {comment}")
        for suffix, bad_enc, comment in _invalid_enc_points(enc)
    ]


def _open_cases() -> list[Case]:
    session_key, _ = key("session-key")
    _, recipient_public = key("recipient")
    _, enc, ciphertext = _seal("hpke-open-base", session_key, info=PROFILE_INFO, aad=None)
    aad = stream("aad-open", 16)
    _, enc_aad, ct_aad = _seal("hpke-open-base-aad", b"explicit aad", info=PROFILE_INFO, aad=aad)
    _, enc_empty, ct_empty = _seal("hpke-open-base-empty", b"", info=PROFILE_INFO, aad=None)
    profile = _Sealed(enc=enc, ciphertext=ciphertext)
    explicit = _Sealed(enc=enc_aad, ciphertext=ct_aad)
    cases = [
        _open_case(
            "hpke-open-profile",
            **profile,
            plaintext=session_key,
            comment="the profile seal of a session-key-like scalar",
        ),
        _open_case(
            "hpke-open-compressed-enc",
            enc=ref.compress(enc),
            ciphertext=ciphertext,
            plaintext=session_key,
            comment="enc given as 33-byte compressed SEC1; the profile aad and the KEM "
            "context still use the 65-byte form (formats.md section 3)",
        ),
        _open_case(
            "hpke-open-explicit-aad",
            **explicit,
            aad=aad,
            plaintext=b"explicit aad",
            comment="sealed with an explicit 16-byte aad",
        ),
        _open_case(
            "hpke-open-empty-plaintext",
            enc=enc_empty,
            ciphertext=ct_empty,
            plaintext=b"",
            comment="a 16-byte ciphertext: the tag of an empty message",
        ),
    ]
    for suffix, bad_enc, bad_ciphertext, comment in _tampered(enc, ciphertext):
        cases.append(
            _open_case(
                f"hpke-open-{suffix}", enc=bad_enc, ciphertext=bad_ciphertext, comment=comment
            )
        )
    profile_aad = "sealed with the profile aad, opened with"
    cases += [
        _open_case(
            "hpke-open-empty-plaintext-truncated",
            enc=enc_empty,
            ciphertext=ct_empty[:-1],
            comment="the 16-byte tag of an empty message cut by one byte",
        ),
        _open_case(
            "hpke-open-aad-profile-opened-with-empty",
            **profile,
            aad=b"",
            comment=f"{profile_aad} explicit empty aad",
        ),
        _open_case(
            "hpke-open-aad-profile-opened-with-other",
            **profile,
            aad=stream("aad-other", 16),
            comment=f"{profile_aad} another explicit aad",
        ),
        _open_case(
            "hpke-open-aad-profile-opened-with-recipient-only",
            **profile,
            aad=recipient_public,
            comment=f"{profile_aad} only the recipient key",
        ),
        _open_case(
            "hpke-open-aad-explicit-opened-with-profile",
            **explicit,
            comment="sealed with an explicit aad, opened with the profile aad (null)",
        ),
        _open_case(
            "hpke-open-aad-explicit-tampered",
            **explicit,
            aad=flip_bit(aad, 0),
            comment="explicit aad with one bit flipped",
        ),
        _open_case(
            "hpke-open-info-tampered",
            **profile,
            info=b"turnkey_hpkf",
            comment="info 'turnkey_hpkf' instead of 'turnkey_hpke'",
        ),
        _open_case("hpke-open-info-empty", **profile, info=b"", comment="empty info"),
        _open_case(
            "hpke-open-wrong-recipient",
            **profile,
            recipient="other",
            comment="opened with another private key",
        ),
    ]
    return cases


def build() -> dict[str, Any]:
    return vector_file(DESCRIPTION, _derive_cases() + _seal_cases() + _open_cases())
