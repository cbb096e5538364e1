"""Robustness: random input into every parser and function of ``_native`` and the public API.

the error contract: bad input never raises anything but a ``WalletCryptoError`` (no pyo3
``PanicException``, which derives from ``BaseException``, and no bare ``ValueError`` /
``OverflowError`` from inside) and never returns a partial result. Every call below goes
through :func:`_call`, which fails the test on any other exception and hands back either the
result (checked against the documented shape) or the error.
"""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import _native, hpke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RECIPIENT = hpke.derive_key_pair(b"no-panic recipient")
EPHEMERAL = hpke.derive_key_pair(b"no-panic ephemeral")
PUB = RECIPIENT.public_key_bytes()
ENC, CT = hpke.seal(PUB, b"a valid ciphertext to mutate")

HEX = "0123456789abcdefABCDEF"


class _Failed:
    """Marker for a call that raised a WalletCryptoError."""

    def __init__(self, error: ewc.WalletCryptoError) -> None:
        self.error = error


def _call(func, *args: Any, **kwargs: Any) -> Any:
    try:
        return func(*args, **kwargs)
    except ewc.WalletCryptoError as err:
        assert isinstance(err.code, str) and err.code and err.code == err.code.upper()
        assert isinstance(err.reason, str) and err.reason and str(err) == err.reason
        assert isinstance(err.status, int) and 400 <= err.status < 600
        return _Failed(err)
    except BaseException as err:  # PanicException is a BaseException
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        name = getattr(func, "__qualname__", repr(func))
        pytest.fail(f"{name} raised {type(err).__module__}.{type(err).__name__}: {err!r}")


def _ok(result: Any) -> bool:
    return not isinstance(result, _Failed)


def _mutate(data: bytes, index: int, value: int) -> bytes:
    if not data:
        return bytes([value])
    i = index % len(data)
    return data[:i] + bytes([value]) + data[i + 1 :]


# --- strategies ---------------------------------------------------------------------------------

sizes = st.one_of(st.integers(0, 200), st.sampled_from([0, 1, 12, 16, 31, 32, 33, 64, 65, 66]))
random_bytes = sizes.flatmap(lambda n: st.binary(min_size=n, max_size=n))
hex_text = st.text(alphabet=HEX, max_size=200)
any_text = st.text(max_size=200)
mutated_keys = st.builds(
    _mutate,
    st.sampled_from([PUB, RECIPIENT.public_key_bytes(compressed=True), ENC]),
    st.integers(min_value=0),
    st.integers(0, 255),
)
key_inputs = st.one_of(
    random_bytes,
    hex_text,
    any_text,
    mutated_keys,
    mutated_keys.map(bytes.hex),
    st.builds(lambda p, body: bytes([p]) + body, st.sampled_from([2, 3, 4]), random_bytes),
)
byte_likes = st.one_of(random_bytes, random_bytes.map(bytearray), random_bytes.map(memoryview))
huge_lengths = st.one_of(
    st.integers(0, 9000),
    st.integers(0, 2**64 - 1),
    st.sampled_from([8160, 8161, 2**31, 2**32, 2**62, 2**63, 2**64 - 1]),
)
aead_ids = st.one_of(st.sampled_from([1, 2]), st.integers(0, 0xFFFF))
b58_text = st.one_of(
    any_text,
    st.text(alphabet="123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", max_size=200),
    st.text(
        alphabet="123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+ \n", max_size=60
    ),
)


def _check_public(result: Any, compressed: bool) -> None:
    if _ok(result):
        assert isinstance(result, bytes)
        if compressed:
            assert len(result) == 33 and result[0] in (2, 3)
        else:
            assert len(result) == 65 and result[0] == 4
            # A parsed key is valid everywhere else too.
            assert ewc.parse_public_key(result) == result


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
