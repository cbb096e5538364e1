"""The keys, signatures and stamps of the schemes beyond P-256, written independently
(formats.md section 15), and the point checks that pick the malformed cases.

secp256k1: RFC 6979 DER ECDSA / SHA-256 by pyca/cryptography, in its low-S form (or high-S on
request), the key compressed; Ed25519: pyca/cryptography's signature over the raw payload, the
32-byte key. The point checks (an x with no secp256k1 point, an Ed25519 y that decodes to no
point, whether an x is also a P-256 x) use Python integers. Nothing here calls the library under
test.
"""

from __future__ import annotations

import functools

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

from . import _reference as ref
from ._common import ikm
from ._stamp_writer import compact_json, encode_stamp

P256 = "SIGNATURE_SCHEME_TK_API_P256"
SECP256K1 = "SIGNATURE_SCHEME_TK_API_SECP256K1"
ED25519 = "SIGNATURE_SCHEME_TK_API_ED25519"

#: secp256k1 (SEC 2, section 2.4.1): field prime and group order.
K1_P = 2**256 - 2**32 - 977
K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
#: Ed25519 (RFC 8032): field prime, d, and the group order L.
ED_P = 2**255 - 19
ED_D = (-121665 * pow(121666, -1, ED_P)) % ED_P
ED_L = 2**252 + 27742317777372353535851937790883648493


@functools.cache
def k1_private(label: str) -> ec.EllipticCurvePrivateKey:
    scalar = int.from_bytes(ikm(label), "big") % (K1_N - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256K1())


def k1_public(label: str, *, compressed: bool = True) -> bytes:
    form = (
        serialization.PublicFormat.CompressedPoint
        if compressed
        else (serialization.PublicFormat.UncompressedPoint)
    )
    return k1_private(label).public_key().public_bytes(serialization.Encoding.X962, form)


def k1_signature(label: str, payload: bytes, *, high_s: bool = False) -> bytes:
    algorithm = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
    r, s = decode_dss_signature(k1_private(label).sign(payload, algorithm))
    low = min(s, K1_N - s)
    return encode_dss_signature(r, K1_N - low if high_s else low)


def ed_private(label: str) -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.from_private_bytes(ikm(label))


def ed_public(label: str) -> bytes:
    return ed_private(label).public_key().public_bytes_raw()


def fields(public_key: bytes, scheme: str, signature: bytes) -> dict[str, str]:
    return {"publicKey": public_key.hex(), "scheme": scheme, "signature": signature.hex()}


def stamp_of(public_key: bytes, scheme: str, signature: bytes) -> str:
    return encode_stamp(compact_json(fields(public_key, scheme, signature)))


def k1_stamp(label: str, payload: bytes, *, high_s: bool = False) -> tuple[str, bytes, bytes]:
    public, signature = k1_public(label), k1_signature(label, payload, high_s=high_s)
    return stamp_of(public, SECP256K1, signature), public, signature


def ed_stamp(label: str, payload: bytes) -> tuple[str, bytes, bytes]:
    public, signature = ed_public(label), ed_private(label).sign(payload)
    return stamp_of(public, ED25519, signature), public, signature


def k1_x_without_point(start: int) -> int:
    """The first x >= start with x^3 + 7 not a square mod p (no secp256k1 point)."""
    x = start
    while pow((x**3 + 7) % K1_P, (K1_P - 1) // 2, K1_P) == 1:
        x += 1
    return x


def p256_has_x(x: int) -> bool:
    """Whether x < p is the x-coordinate of a P-256 point (Euler's criterion)."""
    rhs = ref.curve_rhs(x)
    return rhs == 0 or ref.sqrt_mod_p(rhs) is not None


def ed_y_without_point(start: int) -> int:
    """The first y >= start for which (y^2 - 1) / (d y^2 + 1) is not a square mod p."""
    y = start
    while True:
        u, v = (y * y - 1) % ED_P, (ED_D * y * y + 1) % ED_P
        x2 = u * pow(v, -1, ED_P) % ED_P
        if x2 != 0 and pow(x2, (ED_P - 1) // 2, ED_P) != 1:
            return y
        y += 1
