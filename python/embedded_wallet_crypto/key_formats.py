"""Private-key text formats (formats.md section 13): how an exported key is shown and how a key
to import is typed.

=====================  ============================================================  =========
format                 text                                                          raw key
=====================  ============================================================  =========
HEXADECIMAL            64 hex characters (either case, optional ``0x`` on input)     32 bytes
SOLANA                 base58 of the 32-byte seed and its Ed25519 public key         the seed
BITCOIN_MAINNET_WIF    base58check of ``0x80 || key || 0x01`` (compressed)           32 bytes
BITCOIN_TESTNET_WIF    base58check of ``0xef || key || 0x01``                        32 bytes
SUI_BECH32             bech32 (not bech32m), prefix ``suiprivkey``, ``0x00 || key``  32 bytes
=====================  ============================================================  =========

Every failure is a :class:`~embedded_wallet_crypto.errors.DecodeError` with a stable code, and
no message quotes the key text.
"""

from __future__ import annotations

import enum

from . import _native
from ._types import BytesLike
from .errors import DecodeError, WalletCryptoError

__all__ = ["KeyFormat", "decode_private_key", "encode_private_key"]

KEY_LENGTH = 32
SUI_PREFIX = "suiprivkey"
SUI_FLAG_ED25519 = 0x00
_WIF_VERSIONS = {"BITCOIN_MAINNET_WIF": 0x80, "BITCOIN_TESTNET_WIF": 0xEF}
_WIF_COMPRESSED = 0x01


class KeyFormat(str, enum.Enum):
    """The text formats of a 32-byte private key (formats.md section 13)."""

    HEXADECIMAL = "HEXADECIMAL"
    SOLANA = "SOLANA"
    BITCOIN_MAINNET_WIF = "BITCOIN_MAINNET_WIF"
    BITCOIN_TESTNET_WIF = "BITCOIN_TESTNET_WIF"
    SUI_BECH32 = "SUI_BECH32"

    def __str__(self) -> str:
        return self.value


def _format(value: KeyFormat | str) -> KeyFormat:
    """``value`` as a :class:`KeyFormat` (its member or its name).

    Raises:
        WalletCryptoError: ``KEY_FORMAT_UNSUPPORTED`` for any other text.
        TypeError: ``value`` is not a string.
    """
    if isinstance(value, KeyFormat):
        return value
    if not isinstance(value, str):
        raise TypeError(f"key_format must be an ewc.KeyFormat or str, not {type(value).__name__}")
    try:
        return KeyFormat(value)
    except ValueError:
        names = ", ".join(member.value for member in KeyFormat)
        raise WalletCryptoError(
            f"unknown private-key format; use one of {names}", "KEY_FORMAT_UNSUPPORTED"
        ) from None


def _raw_key(key: BytesLike) -> bytes:
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"key must be bytes, bytearray or memoryview, not {type(key).__name__}")
    raw = bytes(key)
    if len(raw) != KEY_LENGTH:
        raise DecodeError(f"a private key is {KEY_LENGTH} bytes, not {len(raw)}", "INVALID_LENGTH")
    return raw


def _ed25519_public_key(seed: bytes) -> bytes:
    # pyca/cryptography, loaded on first use so that importing the package stays light.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()


def encode_private_key(key: BytesLike, key_format: KeyFormat | str) -> str:
    """The text of a 32-byte private key in ``key_format`` (hex is lowercase, no ``0x``).

    Raises:
        DecodeError: ``INVALID_LENGTH`` when ``key`` is not 32 bytes.
        WalletCryptoError: ``KEY_FORMAT_UNSUPPORTED`` for an unknown format.
    """
    chosen = _format(key_format)
    raw = _raw_key(key)
    if chosen is KeyFormat.HEXADECIMAL:
        return raw.hex()
    if chosen is KeyFormat.SOLANA:
        return _native.b58encode(raw + _ed25519_public_key(raw))
    if chosen is KeyFormat.SUI_BECH32:
        return bech32_encode(SUI_PREFIX, bytes([SUI_FLAG_ED25519]) + raw)
    version = _WIF_VERSIONS[chosen.value]
    return _native.b58check_encode(bytes([version]) + raw + bytes([_WIF_COMPRESSED]))


def decode_private_key(text: str, key_format: KeyFormat | str) -> bytes:
    """The 32 raw bytes of a private key written in ``key_format``.

    Raises:
        DecodeError: ``INVALID_HEX``, ``INVALID_BASE58``, ``INVALID_BECH32``,
            ``INVALID_CHECKSUM`` (base58check or bech32), ``INVALID_LENGTH``,
            ``WIF_VERSION_MISMATCH`` (another network's WIF, or not a WIF),
            ``WIF_UNCOMPRESSED`` (only compressed WIF is accepted), ``WIF_FLAG_INVALID``,
            ``SOLANA_PUBLIC_KEY_MISMATCH`` (the second half is not the seed's public key),
            ``SUI_PREFIX_MISMATCH`` or ``SUI_FLAG_UNSUPPORTED`` (not an Ed25519 key).
        WalletCryptoError: ``KEY_FORMAT_UNSUPPORTED`` for an unknown format.
        TypeError: ``text`` is not a ``str``.
    """
    chosen = _format(key_format)
    if not isinstance(text, str):
        raise TypeError(f"the key text must be str, not {type(text).__name__}")
    if chosen is KeyFormat.HEXADECIMAL:
        return _decode_hex(text)
    if chosen is KeyFormat.SOLANA:
        return _decode_solana(text)
    if chosen is KeyFormat.SUI_BECH32:
        return _decode_sui(text)
    return _decode_wif(text, _WIF_VERSIONS[chosen.value])


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _decode_hex(text: str) -> bytes:
    digits = text[2:] if text[:2] in ("0x", "0X") else text
    if not digits or not set(digits) <= _HEX_DIGITS or len(digits) % 2:
        raise DecodeError("the private key is not hex", "INVALID_HEX")
    if len(digits) != 2 * KEY_LENGTH:
        raise DecodeError(
            f"a hex private key is {2 * KEY_LENGTH} hex digits, not {len(digits)}",
            "INVALID_LENGTH",
        )
    return bytes.fromhex(digits)


def _decode_solana(text: str) -> bytes:
    keypair = _native.b58decode(text)
    if len(keypair) != 2 * KEY_LENGTH:
        raise DecodeError(
            f"a Solana key pair is {2 * KEY_LENGTH} bytes, not {len(keypair)}", "INVALID_LENGTH"
        )
    seed, public = keypair[:KEY_LENGTH], keypair[KEY_LENGTH:]
    if _ed25519_public_key(seed) != public:
        raise DecodeError(
            "the Solana key pair's public half is not the public key of its private half",
            "SOLANA_PUBLIC_KEY_MISMATCH",
        )
    return seed


def _decode_wif(text: str, version: int) -> bytes:
    payload = _native.b58check_decode(text)
    if not payload or payload[0] != version:
        raise DecodeError(
            "the WIF version byte is not the one of the chosen network", "WIF_VERSION_MISMATCH"
        )
    if len(payload) == 1 + KEY_LENGTH:
        raise DecodeError(
            "an uncompressed WIF key is not supported; use the compressed form",
            "WIF_UNCOMPRESSED",
        )
    if len(payload) != 2 + KEY_LENGTH:
        raise DecodeError(
            f"a compressed WIF payload is {2 + KEY_LENGTH} bytes, not {len(payload)}",
            "INVALID_LENGTH",
        )
    if payload[-1] != _WIF_COMPRESSED:
        raise DecodeError("the WIF compression flag is not 0x01", "WIF_FLAG_INVALID")
    return payload[1:-1]


def _decode_sui(text: str) -> bytes:
    prefix, data = bech32_decode(text)
    if prefix != SUI_PREFIX:
        raise DecodeError(
            f"a Sui private key has the bech32 prefix {SUI_PREFIX!r}", "SUI_PREFIX_MISMATCH"
        )
    if len(data) != 1 + KEY_LENGTH:
        raise DecodeError(
            f"a Sui private key holds {1 + KEY_LENGTH} bytes, not {len(data)}", "INVALID_LENGTH"
        )
    if data[0] != SUI_FLAG_ED25519:
        raise DecodeError("the Sui key's scheme flag is not 0 (Ed25519)", "SUI_FLAG_UNSUPPORTED")
    return data[1:]


# --- bech32 (BIP-173; not bech32m) -----------------------------------------------------------

_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_CHARSET_INDEX = {c: i for i, c in enumerate(_CHARSET)}
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
#: BIP-173 limits strings to 90 characters (a Sui key is 70).
BECH32_MAX_LENGTH = 90


def _polymod(values: list[int]) -> int:
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for i, generator in enumerate(_GENERATOR):
            if top >> i & 1:
                checksum ^= generator
    return checksum


def _expand_prefix(prefix: str) -> list[int]:
    return [ord(c) >> 5 for c in prefix] + [0] + [ord(c) & 31 for c in prefix]


def _regroup(data: bytes | list[int], source: int, target: int, *, pad: bool) -> list[int] | None:
    accumulator, bits, out = 0, 0, []
    mask = (1 << target) - 1
    for value in data:
        accumulator = accumulator << source | value
        bits += source
        while bits >= target:
            bits -= target
            out.append(accumulator >> bits & mask)
    if pad:
        if bits:
            out.append(accumulator << (target - bits) & mask)
    elif bits >= source or accumulator << (target - bits) & mask:
        return None  # more than 4 bits of padding, or padding that is not zero
    return out


def bech32_encode(prefix: str, data: bytes) -> str:
    """Bech32 (BIP-173) of ``data`` (8-bit bytes) under the lower-case ``prefix``."""
    words = _regroup(data, 8, 5, pad=True)
    assert words is not None
    values = _expand_prefix(prefix) + words
    checksum = _polymod([*values, 0, 0, 0, 0, 0, 0]) ^ 1
    words += [checksum >> 5 * (5 - i) & 31 for i in range(6)]
    return prefix + "1" + "".join(_CHARSET[w] for w in words)


def bech32_decode_words(text: str) -> tuple[str, list[int]]:
    """(lower-case prefix, 5-bit data words without the checksum) of a Bech32 string.

    Raises:
        DecodeError: ``INVALID_BECH32`` (a character outside 33..126, mixed case, no
            separator, an empty prefix, a data character outside the charset, too long or
            too short) or ``INVALID_CHECKSUM`` (a Bech32m or damaged checksum).
    """
    if any(not 33 <= ord(c) <= 126 for c in text):
        raise DecodeError(
            "the bech32 text has a character outside US-ASCII 33..126", "INVALID_BECH32"
        )
    if text.lower() != text and text.upper() != text:
        raise DecodeError("the bech32 text mixes upper and lower case", "INVALID_BECH32")
    text = text.lower()
    separator = text.rfind("1")
    if separator < 1 or separator + 7 > len(text) or len(text) > BECH32_MAX_LENGTH:
        raise DecodeError(
            "the bech32 text has no prefix, no separator, a short checksum or is too long",
            "INVALID_BECH32",
        )
    prefix = text[:separator]
    try:
        words = [_CHARSET_INDEX[c] for c in text[separator + 1 :]]
    except KeyError:
        raise DecodeError(
            "the bech32 data has a character outside the bech32 charset", "INVALID_BECH32"
        ) from None
    if _polymod(_expand_prefix(prefix) + words) != 1:
        raise DecodeError("the bech32 checksum does not match", "INVALID_CHECKSUM")
    return prefix, words[:-6]


def bech32_decode(text: str) -> tuple[str, bytes]:
    """(lower-case prefix, 8-bit data) of a Bech32 string; see :func:`bech32_decode_words`."""
    prefix, words = bech32_decode_words(text)
    data = _regroup(words, 5, 8, pad=False)
    if data is None:
        raise DecodeError("the bech32 data has invalid padding", "INVALID_BECH32")
    return prefix, bytes(data)
