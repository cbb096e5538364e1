"""P-256 keys, public-key parsing, ECDSA verification and the error classes (the API reference)."""

from __future__ import annotations

import copy
import hashlib
import pickle
import re

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    Prehashed,
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from embedded_wallet_crypto import _native

# P-256 domain parameters.
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
GY = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5

# A fixed key (d = 1 is the generator; use a less special scalar).
PRIVATE_HEX = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
PRIVATE = bytes.fromhex(PRIVATE_HEX)


def _rhs(x: int) -> int:
    return (pow(x, 3, P) - 3 * x + B) % P


def _is_square(v: int) -> bool:
    return v == 0 or pow(v, (P - 1) // 2, P) == 1


def _int32(v: int) -> bytes:
    return v.to_bytes(32, "big")


def _uncompressed(x: int, y: int) -> bytes:
    return b"\x04" + _int32(x) + _int32(y)


def _compressed(x: int, odd: bool = False) -> bytes:
    return (b"\x03" if odd else b"\x02") + _int32(x)


def _small_x(square: bool) -> int:
    """The smallest x >= 1 whose curve right-hand side is (or is not) a square mod p."""
    x = 1
    while _is_square(_rhs(x)) != square:
        x += 1
    return x


def _der_int(value: int) -> bytes:
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    if raw[0] & 0x80:
        raw = b"\x00" + raw
    return b"\x02" + bytes([len(raw)]) + raw


def _der_sig(r: int, s: int) -> bytes:
    body = _der_int(r) + _der_int(s)
    return b"\x30" + bytes([len(body)]) + body


def _expect(exc: type[ewc.WalletCryptoError], code: str, func, *args, **kwargs):
    with pytest.raises(exc) as info:
        func(*args, **kwargs)
    assert type(info.value) is exc
    assert info.value.code == code, f"{info.value.code} != {code}: {info.value.reason}"
    return info.value


@pytest.fixture(scope="module")
def kp() -> ewc.KeyPair:
    return ewc.KeyPair.from_private_bytes(PRIVATE)


@pytest.fixture(scope="module")
def crypto_pub(kp: ewc.KeyPair) -> ec.EllipticCurvePublicKey:
    return ec.derive_private_key(int(PRIVATE_HEX, 16), ec.SECP256R1()).public_key()


# ---------------------------------------------------------------------------------------------
# KeyPair construction


def test_generate_gives_distinct_valid_keys() -> None:
    a = ewc.KeyPair.generate()
    b = ewc.KeyPair.generate()
    assert isinstance(a, ewc.KeyPair)
    assert a != b
    assert a.private_key_bytes() != b.private_key_bytes()
    d = int.from_bytes(a.private_key_bytes(), "big")
    assert 1 <= d < N
    assert ewc.parse_public_key(a.public_key_bytes()) == a.public_key_bytes()


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview], ids=lambda w: w.__name__)
def test_from_private_bytes_accepts_byte_likes(wrap, crypto_pub) -> None:
    key = ewc.KeyPair.from_private_bytes(wrap(PRIVATE))
    expected = crypto_pub.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert key.public_key_bytes() == expected
    assert key.private_key_bytes() == PRIVATE


@pytest.mark.parametrize(
    "text", [PRIVATE_HEX, PRIVATE_HEX.upper(), PRIVATE_HEX[:32].upper() + PRIVATE_HEX[32:]]
)
def test_from_private_hex_any_case(text: str, kp: ewc.KeyPair) -> None:
    key = ewc.KeyPair.from_private_hex(text)
    assert key == kp
    assert key.private_key_bytes() == PRIVATE


def test_generator_scalar_one_and_n_minus_one() -> None:
    one = ewc.KeyPair.from_private_bytes(_int32(1))
    assert one.public_key_bytes() == _uncompressed(GX, GY)
    last = ewc.KeyPair.from_private_bytes(_int32(N - 1))
    # (n - 1) * G = -G = (Gx, p - Gy)
    assert last.public_key_bytes() == _uncompressed(GX, P - GY)
    assert last.public_key_bytes(compressed=True) == _compressed(GX, odd=(P - GY) % 2 == 1)


@pytest.mark.parametrize("scalar", [0, N, N + 1, 2**256 - 1], ids=["zero", "n", "n_plus_1", "max"])
def test_from_private_bytes_out_of_range(scalar: int) -> None:
    err = _expect(
        ewc.InvalidKey, "INVALID_PRIVATE_KEY", ewc.KeyPair.from_private_bytes, _int32(scalar)
    )
    # No secret material in the message.
    assert _int32(scalar).hex() not in err.reason


@pytest.mark.parametrize("scalar", [0, N, 2**256 - 1])
def test_from_private_hex_out_of_range(scalar: int) -> None:
    _expect(
        ewc.InvalidKey, "INVALID_PRIVATE_KEY", ewc.KeyPair.from_private_hex, _int32(scalar).hex()
    )


@pytest.mark.parametrize("length", [0, 1, 31, 33, 64])
def test_from_private_bytes_wrong_length(length: int) -> None:
    _expect(ewc.InvalidKey, "INVALID_KEY_LENGTH", ewc.KeyPair.from_private_bytes, b"\x01" * length)


@pytest.mark.parametrize("length", [31, 33])
def test_from_private_hex_wrong_length(length: int) -> None:
    _expect(ewc.InvalidKey, "INVALID_KEY_LENGTH", ewc.KeyPair.from_private_hex, "01" * length)


@pytest.mark.parametrize(
    "text",
    [
        "zz" * 32,
        "g" + PRIVATE_HEX[1:],
        PRIVATE_HEX[:-1] + " ",
        " " + PRIVATE_HEX[1:],
        "0x" + PRIVATE_HEX[2:],
        PRIVATE_HEX[:-1],  # odd length
        "é" * 64,
    ],
    ids=["zz", "g", "trailing_space", "leading_space", "0x", "odd", "non_ascii"],
)
def test_from_private_hex_not_hex(text: str) -> None:
    err = _expect(ewc.InvalidKey, "INVALID_KEY_ENCODING", ewc.KeyPair.from_private_hex, text)
    assert PRIVATE_HEX not in err.reason


# ---------------------------------------------------------------------------------------------
# Public key encodings


def test_public_key_encodings(kp: ewc.KeyPair, crypto_pub) -> None:
    full = kp.public_key_bytes()
    default = kp.public_key_bytes(compressed=False)
    short = kp.public_key_bytes(compressed=True)
    assert full == default
    assert len(full) == 65 and full[0] == 4
    assert len(short) == 33 and short[0] in (2, 3)
    assert full == crypto_pub.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert short == crypto_pub.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
    assert short[1:] == full[1:33]
    assert short[0] == 2 + (full[64] & 1)

    hex_full = kp.public_key_hex()
    hex_short = kp.public_key_hex(compressed=True)
    assert hex_full == kp.public_key_hex(compressed=False) == full.hex()
    assert hex_short == short.hex()
    assert len(hex_full) == 130 and hex_full.startswith("04")
    assert len(hex_short) == 66 and hex_short[:2] in ("02", "03")
    assert hex_full == hex_full.lower() and hex_short == hex_short.lower()


def test_both_compressed_prefixes_occur() -> None:
    prefixes = {ewc.KeyPair.generate().public_key_bytes(compressed=True)[0] for _ in range(64)}
    assert prefixes == {2, 3}


def test_private_key_round_trip() -> None:
    for _ in range(8):
        a = ewc.KeyPair.generate()
        raw = a.private_key_bytes()
        assert isinstance(raw, bytes) and len(raw) == 32
        b = ewc.KeyPair.from_private_bytes(raw)
        assert b == a
        assert b.private_key_bytes() == raw
        assert ewc.KeyPair.from_private_hex(raw.hex()).private_key_bytes() == raw


def test_repr_shows_only_compressed_public_key(kp: ewc.KeyPair) -> None:
    text = repr(kp)
    assert kp.public_key_hex(compressed=True) in text
    assert kp.public_key_hex() not in text
    assert PRIVATE_HEX not in text.lower()
    assert PRIVATE_HEX not in str(kp).lower()
    assert PRIVATE_HEX not in format(kp).lower()
    # The only long hex run in the repr is the compressed public key.
    runs = re.findall(r"[0-9a-fA-F]{16,}", text)
    assert runs == [kp.public_key_hex(compressed=True)]


def test_keypair_is_frozen(kp: ewc.KeyPair) -> None:
    before = kp.public_key_bytes()
    for name in ("foo", "public_key", "private_key", "public_key_bytes", "sign"):
        with pytest.raises((AttributeError, TypeError)):
            setattr(kp, name, b"\x00")
    with pytest.raises((AttributeError, TypeError)):
        del kp.public_key_bytes
    assert not hasattr(kp, "__dict__")
    assert kp.public_key_bytes() == before


def test_equality_and_hash_by_public_key(kp: ewc.KeyPair) -> None:
    same = ewc.KeyPair.from_private_hex(PRIVATE_HEX.upper())
    other = ewc.KeyPair.generate()
    assert same == kp and not (same != kp)
    assert hash(same) == hash(kp)
    assert other != kp
    assert kp != kp.public_key_bytes()
    assert kp != kp.public_key_hex()
    assert (kp == object()) is False
    assert len({kp, same, other}) == 2
    assert {kp: 1}[same] == 1


def test_pickling_and_copying_fail(kp: ewc.KeyPair) -> None:
    with pytest.raises(TypeError):
        pickle.dumps(kp)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError):
            pickle.dumps(kp, protocol=protocol)
    with pytest.raises(TypeError):
        copy.copy(kp)
    with pytest.raises(TypeError):
        copy.deepcopy(kp)


@pytest.mark.parametrize("protocol", [0, 1])
def test_pickling_fails_with_legacy_protocols(kp: ewc.KeyPair, protocol: int) -> None:
    try:
        blob = pickle.dumps(kp, protocol=protocol)
    except TypeError:
        return
    # Whatever was written must not contain the scalar...
    assert PRIVATE not in blob
    assert PRIVATE_HEX.encode() not in blob.lower()
    # ...but pickling should refuse outright, as with every other protocol.
    pytest.fail(f"pickle protocol {protocol} silently wrote an unloadable KeyPair: {blob!r}")


def test_sign_produces_verifiable_der(kp: ewc.KeyPair, crypto_pub) -> None:
    for message in (b"", b"hello", bytearray(b"x" * 1000), memoryview(b"abc")):
        sig = kp.sign(message)
        assert isinstance(sig, bytes) and sig[0] == 0x30
        r, s = decode_dss_signature(sig)
        assert _der_sig(r, s) == sig  # strict DER
        assert 1 <= r < N and 1 <= s < N
        crypto_pub.verify(sig, bytes(message), ec.ECDSA(hashes.SHA256()))
        assert ewc.verify_signature(kp.public_key_bytes(), message, sig) is True


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


# ---------------------------------------------------------------------------------------------
# verify_signature


@pytest.fixture(scope="module")
def signed(kp: ewc.KeyPair) -> tuple[bytes, bytes, int, int]:
    message = b"embedded wallet stamp"
    sig = kp.sign(message)
    r, s = decode_dss_signature(sig)
    return message, sig, r, s


def test_verify_true_false(kp: ewc.KeyPair, signed) -> None:
    message, sig, _, _ = signed
    pub = kp.public_key_bytes()
    for key in (
        pub,
        kp.public_key_bytes(compressed=True),
        pub.hex(),
        pub.hex().upper(),
        kp.public_key_hex(compressed=True),
        bytearray(pub),
        memoryview(pub),
    ):
        assert ewc.verify_signature(key, message, sig) is True
    assert ewc.verify_signature(pub, bytearray(message), memoryview(sig)) is True
    assert ewc.verify_signature(pub, message + b"!", sig) is False
    assert ewc.verify_signature(pub, b"", sig) is False
    assert ewc.verify_signature(ewc.KeyPair.generate().public_key_bytes(), message, sig) is False


def test_verify_tampered_signature_is_false(kp: ewc.KeyPair, signed) -> None:
    message, _, r, s = signed
    pub = kp.public_key_bytes()
    assert ewc.verify_signature(pub, message, _der_sig(r ^ 1, s)) is False
    assert ewc.verify_signature(pub, message, _der_sig(r, s ^ 1)) is False
    assert ewc.verify_signature(pub, message, _der_sig(s, r)) is False


def test_high_s_twin_verifies(kp: ewc.KeyPair, signed, crypto_pub) -> None:
    message, _, r, s = signed
    twin = _der_sig(r, N - s)
    crypto_pub.verify(twin, message, ec.ECDSA(hashes.SHA256()))
    assert ewc.verify_signature(kp.public_key_bytes(), message, twin) is True
    assert ewc.verify_signature(kp.public_key_bytes(compressed=True), message, twin) is True


def test_verify_crypto_signature(kp: ewc.KeyPair) -> None:
    priv = ec.derive_private_key(int(PRIVATE_HEX, 16), ec.SECP256R1())
    for message in (b"", b"a", b"x" * 300):
        sig = priv.sign(message, ec.ECDSA(hashes.SHA256()))
        assert ewc.verify_signature(kp.public_key_hex(), message, sig) is True


def _ber_variants(r: int, s: int) -> dict[str, bytes]:
    good = _der_sig(r, s)
    r_der, s_der = _der_int(r), _der_int(s)
    body = r_der + s_der

    def seq(content: bytes) -> bytes:
        return b"\x30" + bytes([len(content)]) + content

    r_raw = r_der[2:]
    padded_r = b"\x02" + bytes([len(r_raw) + 1]) + b"\x00" + r_raw
    # A negative integer: drop the 0x00 pad if present, or force a high bit.
    r_unpadded = r_raw[1:] if r_raw[0] == 0 else r_raw
    neg_r = r_unpadded if r_unpadded[0] & 0x80 else bytes([r_unpadded[0] | 0x80]) + r_unpadded[1:]
    negative = b"\x02" + bytes([len(neg_r)]) + neg_r
    return {
        "long_form_seq_len": b"\x30\x81" + bytes([len(body)]) + body,
        "long_form_int_len": seq(b"\x02\x81" + bytes([len(r_raw)]) + r_raw + s_der),
        "leading_zero_padding": seq(padded_r + s_der),
        "leading_zero_padding_s": seq(
            r_der + b"\x02" + bytes([len(s_der) - 1]) + b"\x00" + s_der[2:]
        ),
        "negative_int": seq(negative + s_der),
        "trailing_bytes": good + b"\x00",
        "trailing_garbage": good + b"\x05\x00",
        "extra_inside_seq": seq(body + b"\x02\x01\x01"),
        "seq_len_too_long": b"\x30" + bytes([len(body) + 1]) + body,
        "seq_len_too_short": b"\x30" + bytes([len(body) - 1]) + body,
        "indefinite_length": b"\x30\x80" + body + b"\x00\x00",
        "wrong_outer_tag": b"\x31" + good[1:],
        "wrong_int_tag": seq(b"\x03" + r_der[1:] + s_der),
        "empty": b"",
        "only_seq": b"\x30\x00",
        "one_int": seq(r_der),
        "truncated": good[:-1],
        "p1363_raw": _int32(r) + _int32(s),
        "empty_int": seq(b"\x02\x00" + s_der),
    }


@pytest.mark.parametrize(
    "variant",
    list(_ber_variants(3, 5).keys()),
)
def test_ber_forms_raise_decode_error(kp: ewc.KeyPair, signed, variant: str) -> None:
    message, _, r, s = signed
    # Make sure both halves produce the relevant shapes: use the real signature and its twin.
    for rr, ss in ((r, s), (r, N - s)):
        bad = _ber_variants(rr, ss)[variant]
        err = _expect(
            ewc.DecodeError,
            "INVALID_SIGNATURE_ENCODING",
            ewc.verify_signature,
            kp.public_key_bytes(),
            message,
            bad,
        )
        assert err.status == 400


@pytest.mark.parametrize(
    ("r", "s"),
    [(0, 1), (1, 0), (0, 0), (N, 1), (1, N), (N + 1, 1), (2**256 - 1, 1), (1, 2**256 - 1)],
    ids=["r0", "s0", "r0s0", "rn", "sn", "rn1", "rmax", "smax"],
)
def test_out_of_range_r_s_is_false(kp: ewc.KeyPair, signed, r: int, s: int) -> None:
    message = signed[0]
    assert ewc.verify_signature(kp.public_key_bytes(), message, _der_sig(r, s)) is False


def test_out_of_range_with_real_half_is_false(kp: ewc.KeyPair, signed) -> None:
    message, _, r, s = signed
    pub = kp.public_key_bytes()
    assert ewc.verify_signature(pub, message, _der_sig(0, s)) is False
    assert ewc.verify_signature(pub, message, _der_sig(r, 0)) is False
    # r + n and s + n are the same residues mod n: a verifier that reduces would accept them.
    if r + N < 2**256:
        assert ewc.verify_signature(pub, message, _der_sig(r + N, s)) is False
    if s + N < 2**256:
        assert ewc.verify_signature(pub, message, _der_sig(r, s + N)) is False


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (b"", "INVALID_KEY_LENGTH"),
        (b"\x05" + b"\x00" * 32, "INVALID_KEY_PREFIX"),
        (_uncompressed(GX, GY + 1), "INVALID_POINT"),
        ("zz" * 33, "INVALID_KEY_ENCODING"),
    ],
    ids=["length", "prefix", "point", "encoding"],
)
def test_verify_malformed_key_raises(signed, value, code: str) -> None:
    message, sig, _, _ = signed
    _expect(ewc.InvalidKey, code, ewc.verify_signature, value, message, sig)


def test_verify_p1363(kp: ewc.KeyPair, signed) -> None:
    message, _, r, s = signed
    pub = kp.public_key_bytes()
    assert _native.verify_signature_p1363(pub, message, _int32(r) + _int32(s)) is True
    assert _native.verify_signature_p1363(pub, message, _int32(r) + _int32(N - s)) is True
    assert _native.verify_signature_p1363(pub, message + b"x", _int32(r) + _int32(s)) is False
    assert _native.verify_signature_p1363(pub, message, b"\x00" * 64) is False
    for length in (0, 63, 65, 72):
        _expect(
            ewc.DecodeError,
            "INVALID_SIGNATURE_ENCODING",
            _native.verify_signature_p1363,
            pub,
            message,
            b"\x01" * length,
        )


def test_sign_is_sha256_ecdsa(kp: ewc.KeyPair, crypto_pub) -> None:
    message = b"prehash check"
    sig = kp.sign(message)
    crypto_pub.verify(sig, hashlib.sha256(message).digest(), ec.ECDSA(Prehashed(hashes.SHA256())))
    assert encode_dss_signature(*decode_dss_signature(sig)) == sig


# ---------------------------------------------------------------------------------------------
# Errors

ERROR_STATUS = {
    "WalletCryptoError": 400,
    "InvalidKey": 400,
    "DecodeError": 400,
    "DecryptionError": 400,
    "StampError": 401,
    "EnvelopeError": 400,
    "PasskeyError": 401,
    "OidcError": 401,
    "OtpError": 401,
    "SignedRetryError": 401,
}


@pytest.mark.parametrize("name", sorted(ERROR_STATUS))
def test_error_classes(name: str) -> None:
    cls = getattr(ewc, name)
    assert cls is getattr(ewc.errors, name)
    assert issubclass(cls, ewc.WalletCryptoError)
    assert issubclass(cls, Exception)
    err = cls("Something went wrong.")
    assert err.reason == "Something went wrong."
    assert str(err) == "Something went wrong."
    assert isinstance(err.code, str) and err.code and err.code == err.code.upper()
    assert " " not in err.code
    assert err.status == ERROR_STATUS[name]
    custom = cls("Other reason.", "CUSTOM_CODE", 429)
    assert (custom.code, custom.reason, custom.status, str(custom)) == (
        "CUSTOM_CODE",
        "Other reason.",
        429,
        "Other reason.",
    )


def test_error_classes_are_distinct() -> None:
    classes = [getattr(ewc, name) for name in ERROR_STATUS]
    assert len(set(classes)) == len(classes)
    codes = {getattr(ewc, name)("r").code for name in ERROR_STATUS}
    assert len(codes) == len(classes)
    for name in ERROR_STATUS:
        if name != "WalletCryptoError":
            assert getattr(ewc, name).__bases__ == (ewc.WalletCryptoError,)
    assert set(ERROR_STATUS) <= set(ewc.errors.__all__)


def test_raised_errors_carry_code_reason_status() -> None:
    raised: list[ewc.WalletCryptoError] = []
    for call in (
        lambda: ewc.parse_public_key(b"\x04"),
        lambda: ewc.KeyPair.from_private_bytes(b"\x00" * 32),
        lambda: ewc.verify_signature(_uncompressed(GX, GY), b"", b"\x30"),
        lambda: ewc.b58decode("0"),
        lambda: ewc.b58check_decode("1"),
    ):
        with pytest.raises(ewc.WalletCryptoError) as info:
            call()
        raised.append(info.value)
    for err in raised:
        assert err.code and err.code == err.code.upper()
        assert err.reason and str(err) == err.reason
        assert err.status == 400
        assert repr(err).startswith(type(err).__name__ + "(")
