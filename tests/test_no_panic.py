"""Robustness: random input into every key and HPKE function of ``_native`` and the public API.

The error contract: bad input never raises anything but a ``WalletCryptoError`` (no pyo3
``PanicException``, which derives from ``BaseException``, and no bare ``ValueError`` /
``OverflowError`` from inside) and never returns a partial result. Every call goes through
``_call``, which fails the test on any other exception and hands back either the result
(checked against the documented shape) or the error. Base58, the symmetric primitives,
out-of-range integers and lone surrogates are in test_no_panic_more.py.
"""

from __future__ import annotations

import embedded_wallet_crypto as ewc
from _no_panic_support import (
    CT,
    ENC,
    EPHEMERAL,
    PUB,
    RECIPIENT,
    SETTINGS,
    N,
    _call,
    _check_public,
    _mutate,
    _ok,
    aead_ids,
    any_text,
    byte_likes,
    hex_text,
    huge_lengths,
    key_inputs,
    random_bytes,
)
from embedded_wallet_crypto import _native, hpke
from hypothesis import given
from hypothesis import strategies as st

# --- keys ---------------------------------------------------------------------------------------


@SETTINGS
@given(key=key_inputs)
def test_parse_and_compress(key) -> None:
    parsed = _call(ewc.parse_public_key, key)
    _check_public(parsed, compressed=False)
    compressed = _call(ewc.compress_public_key, key)
    _check_public(compressed, compressed=True)
    assert _ok(parsed) == _ok(compressed)
    if _ok(parsed):
        assert ewc.compress_public_key(parsed) == compressed
    else:
        assert isinstance(parsed.error, ewc.InvalidKey)
        assert parsed.error.code in {
            "INVALID_KEY_LENGTH",
            "INVALID_KEY_PREFIX",
            "INVALID_POINT",
            "INVALID_KEY_ENCODING",
        }
        assert parsed.error.code == compressed.error.code
    for func in (_native.parse_public_key, _native.compress_public_key):
        _call(func, key)


@SETTINGS
@given(key=key_inputs, message=byte_likes, signature=random_bytes)
def test_verify_signature(key, message, signature: bytes) -> None:
    for func in (ewc.verify_signature, _native.verify_signature, _native.verify_signature_p1363):
        result = _call(func, key, message, signature)
        if _ok(result):
            assert result is True or result is False
        else:
            assert isinstance(result.error, (ewc.InvalidKey, ewc.DecodeError))


@SETTINGS
@given(message=byte_likes, signature=random_bytes, index=st.integers(0), value=st.integers(0, 255))
def test_verify_signature_mutated_der(message, signature: bytes, index: int, value: int) -> None:
    der = RECIPIENT.sign(bytes(message))
    for sig in (signature, _mutate(der, index, value), der[: index % (len(der) + 1)]):
        result = _call(ewc.verify_signature, PUB, message, sig)
        if _ok(result):
            assert result is True or result is False
        else:
            assert type(result.error) is ewc.DecodeError
            assert result.error.code == "INVALID_SIGNATURE_ENCODING"
    assert ewc.verify_signature(PUB, message, der) is True


@SETTINGS
@given(data=byte_likes, text=st.one_of(hex_text, any_text))
def test_private_key_loaders(data, text: str) -> None:
    key = _call(ewc.KeyPair.from_private_bytes, data)
    if _ok(key):
        assert len(bytes(data)) == 32 and 1 <= int.from_bytes(bytes(data), "big") < N
        assert key.private_key_bytes() == bytes(data)
        assert len(key.public_key_bytes()) == 65
    else:
        assert type(key.error) is ewc.InvalidKey
    key = _call(ewc.KeyPair.from_private_hex, text)
    if _ok(key):
        assert len(text) == 64
        assert key.private_key_bytes() == bytes.fromhex(text)
    else:
        assert type(key.error) is ewc.InvalidKey
    # A KeyPair signs any message.
    sig = RECIPIENT.sign(data)
    assert ewc.verify_signature(PUB, data, sig) is True


@SETTINGS
@given(private=random_bytes, peer=key_inputs)
def test_ecdh(private: bytes, peer) -> None:
    result = _call(_native.test_support.ecdh_for_tests, private, peer)
    if _ok(result):
        assert isinstance(result, bytes) and len(result) == 32


# --- HPKE ---------------------------------------------------------------------------------------


@SETTINGS
@given(
    recipient=st.one_of(st.just(RECIPIENT), random_bytes, st.just(RECIPIENT.private_key_bytes())),
    enc=st.one_of(key_inputs, st.just(ENC)),
    ct=st.one_of(
        random_bytes, st.builds(_mutate, st.just(CT), st.integers(0), st.integers(0, 255))
    ),
    info=random_bytes,
    aad=st.one_of(st.none(), random_bytes),
)
def test_hpke_open(recipient, enc, ct: bytes, info: bytes, aad) -> None:
    result = _call(hpke.open, recipient, enc, ct, info=info, aad=aad)
    if _ok(result):
        assert isinstance(result, bytes) and len(result) == len(ct) - 16
    else:
        assert type(result.error) in (ewc.DecryptionError, ewc.InvalidKey)
        if type(result.error) is ewc.InvalidKey:
            # Only the recipient's own key can be "invalid"; enc problems are generic.
            assert not isinstance(recipient, ewc.KeyPair)
        else:
            assert result.error.code == "DECRYPTION_FAILED"
    _call(_native.hpke_open, recipient, enc, ct, info, aad)


@SETTINGS
@given(
    key=key_inputs, plaintext=byte_likes, info=random_bytes, aad=st.one_of(st.none(), random_bytes)
)
def test_hpke_seal(key, plaintext, info: bytes, aad) -> None:
    for result in (
        _call(hpke.seal, key, plaintext, info=info, aad=aad),
        _call(
            hpke.seal_deterministic_for_tests,
            key,
            plaintext,
            ephemeral_key=EPHEMERAL,
            info=info,
            aad=aad,
        ),
    ):
        if _ok(result):
            enc, ct = result
            assert len(enc) == 65 and enc[0] == 4
            assert len(ct) == len(bytes(plaintext)) + 16
        else:
            assert type(result.error) is ewc.InvalidKey


@SETTINGS
@given(key=key_inputs, info=random_bytes, aead=aead_ids)
def test_hpke_setup_sender(key, info: bytes, aead: int) -> None:
    result = _call(hpke.setup_sender, key, info=info, aead=aead)
    if _ok(result):
        enc, ctx = result
        assert len(enc) == 65 and aead in (1, 2)
        assert len(ctx.seal(b"", b"x")) == 17
    else:
        assert result.error.code in {
            "UNSUPPORTED_ALGORITHM",
            "INVALID_KEY_LENGTH",
            "INVALID_KEY_PREFIX",
            "INVALID_POINT",
            "INVALID_KEY_ENCODING",
        }
    _call(_native.hpke_setup_sender, key, info, aead, EPHEMERAL)


@SETTINGS
@given(
    recipient=st.one_of(st.just(RECIPIENT), random_bytes),
    enc=st.one_of(key_inputs, st.just(ENC)),
    info=random_bytes,
    aead=aead_ids,
)
def test_hpke_setup_receiver(recipient, enc, info: bytes, aead: int) -> None:
    result = _call(hpke.setup_receiver, recipient, enc, info=info, aead=aead)
    if _ok(result):
        assert aead in (1, 2)
        assert result.sequence_number == 0
        assert len(result.export(b"", 32)) == 32
    else:
        assert isinstance(result.error, ewc.WalletCryptoError)


@SETTINGS
@given(ikm=byte_likes)
def test_hpke_derive_key_pair(ikm) -> None:
    result = _call(hpke.derive_key_pair, ikm)
    if _ok(result):
        assert len(result.private_key_bytes()) == 32
        assert len(result.public_key_bytes()) == 65
    else:
        assert result.error.code == "DERIVE_KEY_PAIR_FAILED"


@SETTINGS
@given(
    exporter_context=byte_likes,
    length=huge_lengths,
    aad=byte_likes,
    data=random_bytes,
    aead=st.sampled_from([1, 2]),
)
def test_context_methods(exporter_context, length: int, aad, data: bytes, aead: int) -> None:
    enc, sender = hpke.setup_sender(PUB, aead=aead)
    receiver = hpke.setup_receiver(RECIPIENT, enc, aead=aead)
    exported = _call(sender.export, exporter_context, length)
    if _ok(exported):
        assert isinstance(exported, bytes) and len(exported) == length <= 255 * 32
        assert receiver.export(exporter_context, length) == exported
    else:
        assert type(exported.error) is ewc.DecodeError
        assert exported.error.code == "INVALID_LENGTH"
        assert length > 255 * 32
    # Random ciphertext never opens and never advances the sequence number.
    opened = _call(receiver.open, aad, data)
    assert not _ok(opened) and opened.error.code == "DECRYPTION_FAILED"
    assert receiver.sequence_number == 0
    sealed = _call(sender.seal, aad, data)
    assert _ok(sealed) and len(sealed) == len(data) + 16
    assert receiver.open(aad, sealed) == data
