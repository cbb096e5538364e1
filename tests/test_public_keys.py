"""parse_public_key and compress_public_key: every valid form, and every invalid one with its code
(edge x values, non-residues, both parities), beside cryptography's own agreement."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
import pytest
from _p256_support import (
    GX,
    GY,
    B,
    P,
    _compressed,
    _expect,
    _int32,
    _is_square,
    _rhs,
    _small_x,
    _uncompressed,
)
from cryptography.hazmat.primitives.asymmetric import ec
from embedded_wallet_crypto import _native

# ---------------------------------------------------------------------------------------------
# parse_public_key / compress_public_key: valid inputs


def test_parse_and_compress_valid_forms(kp: ewc.KeyPair) -> None:
    full = kp.public_key_bytes()
    short = kp.public_key_bytes(compressed=True)
    inputs = [
        full,
        short,
        bytearray(full),
        memoryview(short),
        full.hex(),
        short.hex(),
        full.hex().upper(),
        short.hex().upper(),
    ]
    for value in inputs:
        parsed = ewc.parse_public_key(value)
        compressed = ewc.compress_public_key(value)
        assert isinstance(parsed, bytes) and parsed == full
        assert isinstance(compressed, bytes) and compressed == short


def test_parse_decompresses_both_parities() -> None:
    for _ in range(16):
        key = ewc.KeyPair.generate()
        assert ewc.parse_public_key(key.public_key_bytes(compressed=True)) == key.public_key_bytes()


def test_parse_module_functions_are_native() -> None:
    g = _uncompressed(GX, GY)
    assert _native.parse_public_key(g) == ewc.parse_public_key(g) == g
    assert (
        _native.compress_public_key(g) == ewc.compress_public_key(g) == _compressed(GX, GY % 2 == 1)
    )


# ---------------------------------------------------------------------------------------------
# parse_public_key / compress_public_key: invalid inputs


def _invalid_public_keys() -> list[tuple[str, object, str]]:
    g_full = _uncompressed(GX, GY)
    g_short = _compressed(GX, GY % 2 == 1)
    x_valid = _small_x(square=True)
    x_nosqrt = _small_x(square=False)
    assert x_valid + P < 2**256
    cases: list[tuple[str, object, str]] = [
        ("empty", b"", "INVALID_KEY_LENGTH"),
        ("empty_hex", "", "INVALID_KEY_LENGTH"),
        ("one_zero_byte_identity", b"\x00", "INVALID_KEY_LENGTH"),
        ("one_04", b"\x04", "INVALID_KEY_LENGTH"),
        ("32_bytes", g_short[1:], "INVALID_KEY_LENGTH"),
        ("34_bytes", g_short + b"\x00", "INVALID_KEY_LENGTH"),
        ("64_bytes", g_full[1:], "INVALID_KEY_LENGTH"),
        ("66_bytes", g_full + b"\x00", "INVALID_KEY_LENGTH"),
        ("64_bytes_hex", g_full[1:].hex(), "INVALID_KEY_LENGTH"),
        ("short_hex", "02", "INVALID_KEY_LENGTH"),
        ("prefix_05_33", b"\x05" + g_short[1:], "INVALID_KEY_PREFIX"),
        ("prefix_00_33", b"\x00" + g_short[1:], "INVALID_KEY_PREFIX"),
        ("prefix_05_65", b"\x05" + g_full[1:], "INVALID_KEY_PREFIX"),
        ("hybrid_06", b"\x06" + g_full[1:], "INVALID_KEY_PREFIX"),
        ("hybrid_07", b"\x07" + g_full[1:], "INVALID_KEY_PREFIX"),
        ("hybrid_06_right_parity", bytes([6 + (GY & 1)]) + g_full[1:], "INVALID_KEY_PREFIX"),
        ("04_on_33", b"\x04" + g_short[1:], "INVALID_KEY_PREFIX"),
        ("02_on_65", b"\x02" + g_full[1:], "INVALID_KEY_PREFIX"),
        ("03_on_65", b"\x03" + g_full[1:], "INVALID_KEY_PREFIX"),
        ("all_zero_33", b"\x00" * 33, "INVALID_KEY_PREFIX"),
        ("all_zero_65", b"\x00" * 65, "INVALID_KEY_PREFIX"),
        ("all_zero_65_hex", "00" * 65, "INVALID_KEY_PREFIX"),
        ("zero_point_uncompressed", _uncompressed(0, 0), "INVALID_POINT"),
        ("x_eq_p_uncompressed", _uncompressed(P, GY), "INVALID_POINT"),
        ("x_eq_p_compressed", _compressed(P), "INVALID_POINT"),
        ("x_plus_p_compressed", _compressed(x_valid + P), "INVALID_POINT"),
        ("x_plus_p_compressed_odd", _compressed(x_valid + P, odd=True), "INVALID_POINT"),
        ("x_max_compressed", b"\x02" + b"\xff" * 32, "INVALID_POINT"),
        ("x_max_uncompressed", _uncompressed(2**256 - 1, GY), "INVALID_POINT"),
        ("y_eq_p", _uncompressed(GX, P), "INVALID_POINT"),
        ("y_max", _uncompressed(GX, 2**256 - 1), "INVALID_POINT"),
        ("y_p_plus_1", _uncompressed(GX, P + 1), "INVALID_POINT"),
        ("off_curve_y_plus_1", _uncompressed(GX, GY + 1), "INVALID_POINT"),
        ("off_curve_x_plus_1", _uncompressed(GX + 1, GY), "INVALID_POINT"),
        ("off_curve_hex_upper", _uncompressed(GX, GY + 1).hex().upper(), "INVALID_POINT"),
        ("compressed_no_sqrt", _compressed(x_nosqrt), "INVALID_POINT"),
        ("compressed_no_sqrt_odd", _compressed(x_nosqrt, odd=True), "INVALID_POINT"),
        ("compressed_no_sqrt_hex", _compressed(x_nosqrt).hex(), "INVALID_POINT"),
        ("not_hex", "zz" * 33, "INVALID_KEY_ENCODING"),
        ("not_hex_g", "g" + g_short.hex()[1:], "INVALID_KEY_ENCODING"),
        ("odd_hex", g_short.hex()[:-1], "INVALID_KEY_ENCODING"),
        ("0x_prefix", "0x" + g_short.hex(), "INVALID_KEY_ENCODING"),
        ("space", " " + g_short.hex(), "INVALID_KEY_ENCODING"),
        ("newline", g_short.hex() + "\n", "INVALID_KEY_ENCODING"),
        ("non_ascii", "é" * 33, "INVALID_KEY_ENCODING"),
    ]
    # x + p where x is a valid x-coordinate (the compressed cases above) and, for the
    # uncompressed form, a real point (x, y) shifted by p in either coordinate where it fits.
    x_full = ewc.parse_public_key(_compressed(x_valid))
    y_of_x = int.from_bytes(x_full[33:], "big")
    cases.append(("x_plus_p_uncompressed", _uncompressed(x_valid + P, y_of_x), "INVALID_POINT"))
    for y in (y_of_x, P - y_of_x):
        if y + P < 2**256:
            cases.append(("y_plus_p", _uncompressed(x_valid, y + P), "INVALID_POINT"))
            break
    return cases


INVALID_PUBLIC_KEYS = _invalid_public_keys()


@pytest.mark.parametrize(
    ("value", "code"),
    [(value, code) for _, value, code in INVALID_PUBLIC_KEYS],
    ids=[name for name, _, _ in INVALID_PUBLIC_KEYS],
)
@pytest.mark.parametrize(
    "func", [ewc.parse_public_key, ewc.compress_public_key], ids=["parse", "compress"]
)
def test_invalid_public_keys(func, value, code: str) -> None:
    err = _expect(ewc.InvalidKey, code, func, value)
    assert err.status == 400
    assert str(err) == err.reason and err.reason


def test_invalid_public_key_with_cryptography_agreement() -> None:
    """Every invalid byte-string case above is rejected by cryptography too."""
    for name, value, _ in INVALID_PUBLIC_KEYS:
        if isinstance(value, str):
            continue
        with pytest.raises(ValueError):
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), value)
            pytest.fail(f"cryptography accepted {name}")


def test_x_zero_compressed_follows_curve() -> None:
    # x = 0 has a square root on P-256: (0, sqrt(b)) is a real point.
    assert _is_square(_rhs(0))
    point = _compressed(0)
    full = ewc.parse_public_key(point)
    y = int.from_bytes(full[33:], "big")
    assert full[:33] == b"\x04" + _int32(0)
    assert y % 2 == 0 and y * y % P == B
    assert ewc.compress_public_key(full) == point
