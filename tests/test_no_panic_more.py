"""Robustness, continued (see test_no_panic.py): base58, AES-GCM and HKDF, integer arguments that
do not fit the binding's fixed-width types, and text that is not valid UTF-8."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
import pytest
from _no_panic_support import (
    CT,
    ENC,
    PUB,
    RECIPIENT,
    SETTINGS,
    _call,
    _ok,
    b58_text,
    byte_likes,
    huge_lengths,
    random_bytes,
)
from embedded_wallet_crypto import _native, hpke
from hypothesis import given

# --- base58 ---------------------------------------------------------------------------------------


@SETTINGS
@given(text=b58_text, data=byte_likes)
def test_base58(text: str, data) -> None:
    for func, check in ((ewc.b58decode, False), (ewc.b58check_decode, True)):
        result = _call(func, text)
        if _ok(result):
            assert isinstance(result, bytes)
            encode = ewc.b58check_encode if check else ewc.b58encode
            assert encode(result) == text
        else:
            assert type(result.error) is ewc.DecodeError
            assert result.error.code in {"INVALID_BASE58", "INVALID_CHECKSUM"}
    for func in (_native.b58decode, _native.b58check_decode):
        _call(func, text)
    encoded = _call(ewc.b58encode, data)
    assert _ok(encoded) and ewc.b58decode(encoded) == bytes(data)
    checked = _call(ewc.b58check_encode, data)
    assert _ok(checked) and ewc.b58check_decode(checked) == bytes(data)


# --- symmetric primitives -----------------------------------------------------------------------


@SETTINGS
@given(key=random_bytes, nonce=random_bytes, aad=byte_likes, data=random_bytes)
def test_aes_gcm(key: bytes, nonce: bytes, aad, data: bytes) -> None:
    opened = _call(_native.test_support.aes_gcm_open, key, nonce, aad, data)
    assert not _ok(opened)
    assert opened.error.code in {"INVALID_LENGTH", "DECRYPTION_FAILED"}
    sealed = _call(_native.test_support.aes_gcm_seal, key, nonce, aad, data)
    if _ok(sealed):
        assert len(key) in (16, 32) and len(nonce) == 12
        assert len(sealed) == len(data) + 16
        assert _native.test_support.aes_gcm_open(key, nonce, aad, sealed) == data
    else:
        assert sealed.error.code == "INVALID_LENGTH"
        assert len(key) not in (16, 32) or len(nonce) != 12


@SETTINGS
@given(prk=byte_likes, info=byte_likes, length=huge_lengths, salt=byte_likes)
def test_hkdf(prk, info, length: int, salt) -> None:
    expanded = _call(_native.test_support.hkdf_expand, prk, info, length)
    if _ok(expanded):
        assert isinstance(expanded, bytes) and len(expanded) == length <= 255 * 32
    else:
        assert type(expanded.error) is ewc.DecodeError
        assert expanded.error.code == "INVALID_LENGTH"
        assert length > 255 * 32
    extracted = _call(_native.test_support.hkdf_extract, salt, prk)
    assert _ok(extracted) and len(extracted) == 32
    digest = _call(_native.test_support.sha256, prk)
    assert _ok(digest) and len(digest) == 32


# --- integer arguments that do not fit the binding's fixed-width types --------------------------


@pytest.mark.parametrize("length", [-1, 2**64])
def test_lengths_outside_u64(length: int) -> None:
    # An int is the right Python type; a length out of range is a DecodeError like any other,
    # not an OverflowError raised by the binding's conversion.
    _, sender = hpke.setup_sender(PUB)
    for func, args in (
        (_native.test_support.hkdf_expand, (b"\x00" * 32, b"", length)),
        (sender.export, (b"", length)),
    ):
        result = _call(func, *args)
        assert not _ok(result) and result.error.code == "INVALID_LENGTH"


@pytest.mark.parametrize("aead", [-1, 2**16])
def test_aead_ids_outside_u16(aead: int) -> None:
    for func, args in (
        (_native.hpke_setup_sender, (PUB, b"", aead, None)),
        (_native.hpke_setup_receiver, (RECIPIENT, ENC, b"", aead)),
    ):
        result = _call(func, *args)
        assert not _ok(result) and result.error.code == "UNSUPPORTED_ALGORITHM"


# --- text that is not valid UTF-8 (lone surrogates) ---------------------------------------------

SURROGATE_TEXTS = ["\ud800", "ab\udc80cd", PUB.hex()[:-1] + "\udfff", "1" * 10 + "\ud83d"]
KEY_TEXT = {"INVALID_KEY_ENCODING"}
TEXT_PARSERS = [
    ("parse_public_key", ewc.parse_public_key, KEY_TEXT),
    ("compress_public_key", ewc.compress_public_key, KEY_TEXT),
    ("verify_signature", lambda t: ewc.verify_signature(t, b"m", RECIPIENT.sign(b"m")), KEY_TEXT),
    ("from_private_hex", ewc.KeyPair.from_private_hex, KEY_TEXT),
    ("hpke.seal", lambda t: hpke.seal(t, b"m"), KEY_TEXT),
    ("hpke.open", lambda t: hpke.open(RECIPIENT, t, CT), {"DECRYPTION_FAILED"}),
    ("setup_receiver", lambda t: hpke.setup_receiver(RECIPIENT, t), {"DECRYPTION_FAILED"}),
    ("b58decode", ewc.b58decode, {"INVALID_BASE58"}),
    ("b58check_decode", ewc.b58check_decode, {"INVALID_BASE58"}),
]


@pytest.mark.parametrize(
    ("func", "codes"),
    [(func, codes) for _, func, codes in TEXT_PARSERS],
    ids=[name for name, _, _ in TEXT_PARSERS],
)
def test_lone_surrogates(func, codes: set[str]) -> None:
    # A str holding a lone surrogate is still a str: it is bad text, so the parser's own error
    # (not a UnicodeEncodeError, which is a bare ValueError, from the binding).
    for text in SURROGATE_TEXTS:
        result = _call(func, text)
        assert not _ok(result)
        assert result.error.code in codes
