"""What the P-256 key test files share (loaded by conftest.py as a pytest plugin): the curve's
parameters, a fixed key and its ``kp``/``crypto_pub`` fixtures, point and DER builders, and
``_expect`` (the exact error class and code)."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

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
