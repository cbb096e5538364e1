"""The stored COSE key of the common case, ES256 on P-256, as an uncompressed SEC1 point.

RFC 9053 section 7.1.1 / RFC 8152 section 13.1.1: ``{1 (kty): 2 (EC2), 3 (alg): -7 (ES256),
-1 (crv): 1 (P-256), -2 (x): 32 bytes, -3 (y): 32 bytes}``. Old U2F keys are stored as the raw
65-byte point itself (py_webauthn's ``decode_credential_public_key`` takes those too). Any other
shape is not the fast path: ``None``, and py_webauthn handles the key.
"""

from __future__ import annotations

import functools

from ..errors import PasskeyError
from ._codec import cbor_decode
from ._errors import PUBLIC_KEY_INVALID

__all__ = ["COSE_ALG_ES256", "es256_cose_key", "es256_point"]

COSE_ALG_ES256 = -7
_KTY, _ALG, _CRV, _X, _Y = 1, 3, -1, -2, -3
_KTY_EC2, _CRV_P256 = 2, 1


def _is(value: object, wanted: int) -> bool:
    return type(value) is int and value == wanted


@functools.lru_cache(maxsize=4096)
def es256_point(cose_key: bytes) -> bytes | None:
    """The 65-byte ``04 || x || y`` of an ES256 P-256 key, or None for any other key."""
    if len(cose_key) == 65 and cose_key[0] == 0x04:
        return cose_key
    try:
        key = cbor_decode(cose_key, "credential public key", PUBLIC_KEY_INVALID)
    except PasskeyError:
        return None
    if not isinstance(key, dict):
        return None
    x, y = key.get(_X), key.get(_Y)
    if not (_is(key.get(_KTY), _KTY_EC2) and _is(key.get(_ALG), COSE_ALG_ES256)):
        return None
    if not _is(key.get(_CRV), _CRV_P256):
        return None
    if not (isinstance(x, bytes) and isinstance(y, bytes) and len(x) == len(y) == 32):
        return None
    return b"\x04" + x + y


def es256_cose_key(point: bytes) -> bytes:
    """The canonical CTAP2 COSE encoding of an uncompressed P-256 point (65 bytes)."""
    if len(point) != 65 or point[0] != 0x04:
        raise ValueError("an uncompressed P-256 point is 65 bytes starting with 04")
    # CTAP2 canonical CBOR: map(5) {1: 2, 3: -7, -1: 1, -2: bstr(32) x, -3: bstr(32) y}
    return b"\xa5\x01\x02\x03\x26\x20\x01\x21\x58\x20" + point[1:33] + b"\x22\x58\x20" + point[33:]
