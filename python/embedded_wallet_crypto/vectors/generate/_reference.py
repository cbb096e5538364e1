"""An independent reference for the vectors' expected values.

Nothing here touches the library under test: the expectations come from pyca/cryptography
(ECDH, AES-GCM, RFC 6979 ECDSA, SEC1 encodings) and the standard library (HMAC-SHA256 for the
HKDF steps of RFC 9180, SHA-256 for base58check, integer arithmetic for P-256 point checks).
"""

from __future__ import annotations

import hashlib
import hmac

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

# SEC 2 section 2.4.2, secp256r1.
P = 2**256 - 2**224 + 2**192 + 2**96 - 1
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
GY = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5

# RFC 9180 section 7: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM.
KEM_ID = 0x0010
KDF_ID = 0x0001
AEAD_ID = 0x0002
KEM_SUITE_ID = b"KEM" + KEM_ID.to_bytes(2, "big")
HPKE_SUITE_ID = (
    b"HPKE" + KEM_ID.to_bytes(2, "big") + KDF_ID.to_bytes(2, "big") + AEAD_ID.to_bytes(2, "big")
)
MODE_BASE = b"\x00"
N_SECRET = 32
N_SK = 32
N_K = 32
N_N = 12

# A point whose y is 5 (found by solving x^3 - 3x + b = 25 mod p): y + p still fits in
# 32 bytes, so it gives a "coordinate >= p" encoding of a point that is otherwise valid.
POINT_WITH_SMALL_Y = (0xD7325D7646CD60D80A92738CEB345F844CFFAF35841022CAB176F692DE8DE1D7, 5)

BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _int(data: bytes) -> int:
    return int.from_bytes(data, "big")


def int32(value: int) -> bytes:
    """A 32-byte big-endian encoding (coordinates and scalars)."""
    return value.to_bytes(32, "big")


# --- P-256 arithmetic (only what the malformed-point cases need) -----------------------------


def curve_rhs(x: int) -> int:
    """x^3 - 3x + b mod p: the value y^2 must equal."""
    return (pow(x, 3, P) - 3 * x + B) % P


def sqrt_mod_p(value: int) -> int | None:
    """A square root mod p (p = 3 mod 4), or None when ``value`` is a non-residue."""
    root = pow(value, (P + 1) // 4, P)
    return root if root * root % P == value % P else None


def is_on_curve(x: int, y: int) -> bool:
    return x < P and y < P and y * y % P == curve_rhs(x)


def first_x_without_point(start: int) -> int:
    """The smallest x >= start for which no y exists (x^3 - 3x + b is a non-residue)."""
    x = start
    while sqrt_mod_p(curve_rhs(x)) is not None:
        x += 1
    return x


def first_x_with_point(start: int) -> tuple[int, int]:
    """The smallest x >= start on the curve, with its even y."""
    x = start
    while (y := sqrt_mod_p(curve_rhs(x))) is None:
        x += 1
    return x, y if y % 2 == 0 else P - y


def uncompressed(x: int, y: int) -> bytes:
    return b"\x04" + int32(x) + int32(y)


def coordinates(point: bytes) -> tuple[int, int]:
    """(x, y) of a 65-byte uncompressed point."""
    return _int(point[1:33]), _int(point[33:65])


def compress(point: bytes) -> bytes:
    x, y = coordinates(point)
    return bytes([2 + (y & 1)]) + int32(x)


# --- keys ------------------------------------------------------------------------------------


def private_key(scalar: bytes) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(_int(scalar), ec.SECP256R1())


def public_key_bytes(scalar: bytes, *, compressed: bool = False) -> bytes:
    """SEC1 public key of a private scalar, computed by pyca/cryptography."""
    fmt = (
        serialization.PublicFormat.CompressedPoint
        if compressed
        else serialization.PublicFormat.UncompressedPoint
    )
    return private_key(scalar).public_key().public_bytes(serialization.Encoding.X962, fmt)


def parse_public_key(point: bytes) -> bytes:
    """Uncompressed SEC1 of a valid compressed or uncompressed point (pyca/cryptography)."""
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    return key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


# --- ECDSA -----------------------------------------------------------------------------------


def sign_deterministic(scalar: bytes, message: bytes) -> tuple[int, int]:
    """RFC 6979 ECDSA P-256 / SHA-256 by pyca/cryptography, as (r, s)."""
    algorithm = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
    r, s = decode_dss_signature(private_key(scalar).sign(message, algorithm))
    return r, s


def der_signature(r: int, s: int) -> bytes:
    """Strict DER ``SEQUENCE { INTEGER r, INTEGER s }``."""
    return encode_dss_signature(r, s)


# --- RFC 9180 --------------------------------------------------------------------------------


def _hkdf_extract(salt: bytes, ikm: bytes) -> bytes:
    return hmac.new(salt, ikm, hashlib.sha256).digest()


def _hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    output, block, counter = b"", b"", 1
    while len(output) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        output += block
        counter += 1
    return output[:length]


def _labeled_extract(suite_id: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return _hkdf_extract(salt, b"HPKE-v1" + suite_id + label + ikm)


def _labeled_expand(suite_id: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    labeled_info = length.to_bytes(2, "big") + b"HPKE-v1" + suite_id + label + info
    return _hkdf_expand(prk, labeled_info, length)


def derive_key_pair(ikm: bytes) -> tuple[bytes, bytes]:
    """RFC 9180 section 7.1.3 DeriveKeyPair: (32-byte scalar, 65-byte public key)."""
    dkp_prk = _labeled_extract(KEM_SUITE_ID, b"", b"dkp_prk", ikm)
    for counter in range(256):
        candidate = _labeled_expand(KEM_SUITE_ID, dkp_prk, b"candidate", bytes([counter]), N_SK)
        # The P-256 bitmask is 0xff: the candidate is used as it is.
        if 0 < _int(candidate) < N:
            return candidate, public_key_bytes(candidate)
    raise ValueError("DeriveKeyPair found no scalar in 256 candidates")


def _extract_and_expand(dh: bytes, kem_context: bytes) -> bytes:
    eae_prk = _labeled_extract(KEM_SUITE_ID, b"", b"eae_prk", dh)
    return _labeled_expand(KEM_SUITE_ID, eae_prk, b"shared_secret", kem_context, N_SECRET)


def _key_schedule(shared_secret: bytes, info: bytes) -> tuple[bytes, bytes]:
    psk_id_hash = _labeled_extract(HPKE_SUITE_ID, b"", b"psk_id_hash", b"")
    info_hash = _labeled_extract(HPKE_SUITE_ID, b"", b"info_hash", info)
    context = MODE_BASE + psk_id_hash + info_hash
    secret = _labeled_extract(HPKE_SUITE_ID, shared_secret, b"secret", b"")
    key = _labeled_expand(HPKE_SUITE_ID, secret, b"key", context, N_K)
    base_nonce = _labeled_expand(HPKE_SUITE_ID, secret, b"base_nonce", context, N_N)
    return key, base_nonce


def hpke_seal(
    recipient_public_key: bytes,
    plaintext: bytes,
    *,
    ephemeral_private_key: bytes,
    info: bytes,
    aad: bytes | None,
) -> tuple[bytes, bytes]:
    """Single-shot SealBase with a fixed ephemeral key; ``aad=None`` is the wallet profile's
    ``enc || recipient public key`` (formats.md section 1). Returns (enc, ciphertext)."""
    ephemeral = private_key(ephemeral_private_key)
    recipient = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), recipient_public_key)
    enc = public_key_bytes(ephemeral_private_key)
    dh = ephemeral.exchange(ec.ECDH(), recipient)
    shared_secret = _extract_and_expand(dh, enc + recipient_public_key)
    key, base_nonce = _key_schedule(shared_secret, info)
    profile_aad = enc + recipient_public_key if aad is None else aad
    # Sequence number 0: the nonce is base_nonce itself.
    return enc, AESGCM(key).encrypt(base_nonce, plaintext, profile_aad)


# --- base58check -----------------------------------------------------------------------------


def b58encode(data: bytes) -> str:
    number = _int(data)
    digits = ""
    while number:
        number, digit = divmod(number, 58)
        digits = BASE58_ALPHABET[digit] + digits
    leading_zeros = len(data) - len(data.lstrip(b"\x00"))
    return "1" * leading_zeros + digits


def _checksum(payload: bytes) -> bytes:
    return hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]


def b58check_encode(payload: bytes) -> str:
    return b58encode(payload + _checksum(payload))


def b58check_is_valid(text: str) -> bool:
    """True when ``text`` is base58 whose last 4 decoded bytes are the payload's checksum."""
    if any(char not in BASE58_ALPHABET for char in text):
        return False
    number = 0
    for char in text:
        number = number * 58 + BASE58_ALPHABET.index(char)
    leading_zeros = len(text) - len(text.lstrip("1"))
    data = b"\x00" * leading_zeros + (number.to_bytes((number.bit_length() + 7) // 8, "big"))
    return len(data) >= 4 and _checksum(data[:-4]) == data[-4:]
