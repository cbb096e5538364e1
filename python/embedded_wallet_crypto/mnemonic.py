"""BIP-39 English mnemonics: generate, check, convert to and from entropy, derive the seed.

The word list is the BIP-39 English list shipped in the package (``data/bip39_english.txt``,
2048 words, sha256 ``2f5eed53...dbda``), read once on first use. Only English is supported: a
mnemonic is a sequence of 12, 15, 18, 21 or 24 words of that list whose last bits are the
checksum (the first ``words * 11 / 33`` bits of SHA-256 of the entropy).

These are Python functions, not the Rust core: the mnemonic and the seed are ordinary Python
``str`` and ``bytes`` objects, which the interpreter cannot wipe. Keep them no longer than needed.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache

from ._contract import buffer_bytes
from ._types import BytesLike
from .errors import DecodeError

__all__ = [
    "MNEMONIC_WORD_COUNTS",
    "check_mnemonic",
    "generate_mnemonic",
    "is_valid_mnemonic",
    "mnemonic_from_entropy",
    "mnemonic_to_entropy",
    "mnemonic_to_seed",
]

#: The word counts of a BIP-39 mnemonic (128, 160, 192, 224 and 256 bits of entropy).
MNEMONIC_WORD_COUNTS = (12, 15, 18, 21, 24)
_ENTROPY_LENGTHS = (16, 20, 24, 28, 32)
_SEED_ROUNDS = 2048  # BIP-39: PBKDF2-HMAC-SHA512, 2048 iterations, 64 bytes


@lru_cache(maxsize=1)
def _words() -> tuple[tuple[str, ...], dict[str, int]]:
    """The BIP-39 English list, index -> word and word -> index (read once)."""
    # os.path and open, not importlib.resources or pathlib: those cost milliseconds at import.
    with open(os.path.join(os.path.dirname(__file__), "data", "bip39_english.txt"), "rb") as f:
        words = tuple(f.read().decode("ascii").split())
    if len(words) != 2048:  # pragma: no cover - a broken installation
        raise RuntimeError("the packaged BIP-39 word list is damaged")
    return words, {word: index for index, word in enumerate(words)}


def _text(mnemonic: object) -> str:
    if isinstance(mnemonic, str):
        return mnemonic
    try:
        return buffer_bytes(mnemonic, "mnemonic").decode("utf-8")
    except (UnicodeDecodeError, TypeError):
        raise DecodeError("the mnemonic is not UTF-8 text", "MNEMONIC_NOT_TEXT") from None


def _decode(mnemonic: object) -> tuple[list[str], bytes]:
    """The words and the entropy of a checked mnemonic."""
    words = _text(mnemonic).split()
    if len(words) not in MNEMONIC_WORD_COUNTS:
        raise DecodeError(
            f"a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, not {len(words)}",
            "MNEMONIC_WORD_COUNT",
        )
    index_of = _words()[1]
    value = 0
    for position, word in enumerate(words, start=1):
        index = index_of.get(word)
        if index is None:
            raise DecodeError(
                f"word {position} of the mnemonic is not in the BIP-39 English list",
                "MNEMONIC_UNKNOWN_WORD",
            )
        value = value << 11 | index
    checksum_bits = len(words) * 11 // 33
    entropy = (value >> checksum_bits).to_bytes(checksum_bits * 4, "big")
    if value & ((1 << checksum_bits) - 1) != hashlib.sha256(entropy).digest()[0] >> (
        8 - checksum_bits
    ):
        raise DecodeError("the mnemonic's BIP-39 checksum does not match", "MNEMONIC_CHECKSUM")
    return words, entropy


def check_mnemonic(mnemonic: str | BytesLike) -> str:
    """Check a BIP-39 English mnemonic (word count, word list, checksum).

    Words are separated by any whitespace; the result joins them with single spaces.

    Raises:
        DecodeError: ``MNEMONIC_NOT_TEXT``, ``MNEMONIC_WORD_COUNT``, ``MNEMONIC_UNKNOWN_WORD``
            or ``MNEMONIC_CHECKSUM`` (a damaged mnemonic). The reason never quotes a word.
    """
    return " ".join(_decode(mnemonic)[0])


def is_valid_mnemonic(mnemonic: str | BytesLike) -> bool:
    """True when :func:`check_mnemonic` accepts ``mnemonic``."""
    try:
        _decode(mnemonic)
    except DecodeError:
        return False
    return True


def mnemonic_to_entropy(mnemonic: str | BytesLike) -> bytes:
    """The entropy a BIP-39 English mnemonic encodes (16, 20, 24, 28 or 32 bytes).

    The mnemonic is checked first, as by :func:`check_mnemonic` (checksum included).

    Raises:
        DecodeError: a code of :func:`check_mnemonic`.
    """
    return _decode(mnemonic)[1]


def mnemonic_from_entropy(entropy: BytesLike) -> str:
    """The BIP-39 English mnemonic of ``entropy``: its bits and the SHA-256 checksum bits, in
    groups of 11 bits, each a word; words joined by single spaces.

    Args:
        entropy: 16, 20, 24, 28 or 32 bytes (12, 15, 18, 21 or 24 words).

    Raises:
        DecodeError: ``MNEMONIC_ENTROPY_LENGTH`` for any other length.
        TypeError: ``entropy`` is not bytes-like.
    """
    data = buffer_bytes(entropy, "entropy")
    if len(data) not in _ENTROPY_LENGTHS:
        raise DecodeError(
            f"BIP-39 entropy is 16, 20, 24, 28 or 32 bytes, not {len(data)}",
            "MNEMONIC_ENTROPY_LENGTH",
        )
    checksum_bits = len(data) // 4
    value = int.from_bytes(data, "big") << checksum_bits | (
        hashlib.sha256(data).digest()[0] >> (8 - checksum_bits)
    )
    count = (len(data) * 8 + checksum_bits) // 11
    words = _words()[0]
    return " ".join(words[(value >> (11 * (count - 1 - i))) & 0x7FF] for i in range(count))


def generate_mnemonic(*, words: int = 12) -> str:
    """A fresh BIP-39 English mnemonic from the operating system's random source.

    Args:
        words: 12, 15, 18, 21 or 24 (128 to 256 bits of entropy).

    Raises:
        DecodeError: ``MNEMONIC_WORD_COUNT`` for any other count.
        TypeError: ``words`` is not an int.
    """
    if not isinstance(words, int) or isinstance(words, bool):
        raise TypeError(f"words must be an int, not {type(words).__name__}")
    if words not in MNEMONIC_WORD_COUNTS:
        raise DecodeError(
            f"a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, not {words}",
            "MNEMONIC_WORD_COUNT",
        )
    return mnemonic_from_entropy(os.urandom(words * 4 // 3))


def mnemonic_to_seed(mnemonic: str | BytesLike, passphrase: str = "") -> bytes:
    """The 64-byte BIP-39 seed: PBKDF2-HMAC-SHA512 of the mnemonic (its words joined by single
    spaces, NFKD) with the salt ``"mnemonic" + passphrase`` (NFKD), 2048 iterations.

    The mnemonic is checked first (:func:`check_mnemonic`): a mnemonic outside the English list
    or with a wrong checksum is refused rather than turned into a seed nobody can restore.

    Args:
        mnemonic: a BIP-39 English mnemonic.
        passphrase: the optional BIP-39 passphrase ("" for none).

    Raises:
        DecodeError: a code of :func:`check_mnemonic`, or ``MNEMONIC_PASSPHRASE_NOT_TEXT`` for
            a passphrase that is not valid Unicode (a lone surrogate).
        TypeError: ``passphrase`` is not a str.
    """
    if not isinstance(passphrase, str):
        raise TypeError(f"passphrase must be a str, not {type(passphrase).__name__}")
    import unicodedata

    words = " ".join(_decode(mnemonic)[0])  # ASCII: NFKD leaves it as it is
    try:
        salt = unicodedata.normalize("NFKD", "mnemonic" + passphrase).encode("utf-8")
    except UnicodeEncodeError:
        raise DecodeError(
            "the passphrase is not valid Unicode (a lone surrogate)", "MNEMONIC_PASSPHRASE_NOT_TEXT"
        ) from None
    return hashlib.pbkdf2_hmac("sha512", words.encode("ascii"), salt, _SEED_ROUNDS)
