"""An independent reference for the private-key formats (formats.md section 13) and BIP-39
mnemonics of the import vectors: RFC 8032 Ed25519 public keys in Python integers, the BIP-173
Bech32 checksum, base58 from ``_reference`` and BIP-39 from the word list and ``hashlib``.
Nothing here touches the library under test (the word list is read as a data file)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from . import _reference as ref

# --- Ed25519 public keys (RFC 8032 section 5.1) ----------------------------------------------

_P = 2**255 - 19
_D = -121665 * pow(121666, -1, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _recover_x(y: int, sign: int) -> int:
    x2 = (y * y - 1) * pow(_D * y * y + 1, -1, _P)
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    return _P - x if x & 1 != sign else x


_GY = 4 * pow(5, -1, _P) % _P
_GX = _recover_x(_GY, 0)
_G = (_GX, _GY, 1, _GX * _GY % _P)

Point = tuple[int, int, int, int]


def _add(a: Point, b: Point) -> Point:
    e1 = (a[1] - a[0]) * (b[1] - b[0]) % _P
    e2 = (a[1] + a[0]) * (b[1] + b[0]) % _P
    c = 2 * a[3] * b[3] * _D % _P
    d = 2 * a[2] * b[2] % _P
    e, f, g, h = e2 - e1, d - c, d + c, e2 + e1
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _multiply(scalar: int, point: Point) -> Point:
    result: Point = (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def ed25519_public_key(seed: bytes) -> bytes:
    """The 32-byte Ed25519 public key of a 32-byte seed."""
    digest = hashlib.sha512(seed).digest()
    scalar = int.from_bytes(digest[:32], "little")
    scalar = (scalar & ((1 << 254) - 8)) | (1 << 254)
    x, y, z, _ = _multiply(scalar, _G)
    z_inverse = pow(z, -1, _P)
    x, y = x * z_inverse % _P, y * z_inverse % _P
    return (y | (x & 1) << 255).to_bytes(32, "little")


# --- Bech32 (BIP-173) ------------------------------------------------------------------------

BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32_polymod(values: list[int]) -> int:
    generator = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            checksum ^= generator[i] if (top >> i) & 1 else 0
    return checksum


def bech32_encode(prefix: str, data: bytes, *, constant: int = 1) -> str:
    """Bech32 of 8-bit ``data`` (``constant=0x2bc830a3`` gives Bech32m, for negatives)."""
    bits = "".join(f"{byte:08b}" for byte in data)
    bits += "0" * (-len(bits) % 5)
    words = [int(bits[i : i + 5], 2) for i in range(0, len(bits), 5)]
    expanded = [ord(c) >> 5 for c in prefix] + [0] + [ord(c) & 31 for c in prefix]
    polymod = _bech32_polymod(expanded + words + [0] * 6) ^ constant
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return prefix + "1" + "".join(BECH32_CHARSET[w] for w in words + checksum)


# --- the formats of section 13 ---------------------------------------------------------------


def encode(key: bytes, key_format: str) -> str:
    if key_format == "HEXADECIMAL":
        return key.hex()
    if key_format == "SOLANA":
        return ref.b58encode(key + ed25519_public_key(key))
    if key_format == "BITCOIN_MAINNET_WIF":
        return ref.b58check_encode(b"\x80" + key + b"\x01")
    if key_format == "BITCOIN_TESTNET_WIF":
        return ref.b58check_encode(b"\xef" + key + b"\x01")
    if key_format == "SUI_BECH32":
        return bech32_encode("suiprivkey", b"\x00" + key)
    raise ValueError(key_format)


# --- BIP-39 ----------------------------------------------------------------------------------

_WORDLIST = Path(__file__).resolve().parents[2] / "data" / "bip39_english.txt"


def mnemonic(entropy: bytes) -> str:
    """The BIP-39 English mnemonic of 16 to 32 bytes of entropy."""
    words = _WORDLIST.read_text("ascii").split()
    bits = "".join(f"{byte:08b}" for byte in entropy)
    digest = hashlib.sha256(entropy).digest()
    bits += "".join(f"{byte:08b}" for byte in digest)[: len(entropy) * 8 // 32]
    return " ".join(words[int(bits[i : i + 11], 2)] for i in range(0, len(bits), 11))


def damaged_mnemonic(words: str) -> str:
    """``words`` with its last word replaced by the first list word that breaks the checksum."""
    wordlist = _WORDLIST.read_text("ascii").split()
    head = words.rsplit(" ", 1)[0]
    for candidate in wordlist:
        bits = "".join(f"{wordlist.index(w):011b}" for w in [*head.split(), candidate])
        checksum_length = len(bits) // 33
        entropy = int(bits[:-checksum_length], 2).to_bytes(len(bits) // 33 * 4, "big")
        digest = f"{hashlib.sha256(entropy).digest()[0]:08b}"
        if bits[-checksum_length:] != digest[:checksum_length]:
            return f"{head} {candidate}"
    raise AssertionError("every word completes the checksum")  # pragma: no cover
