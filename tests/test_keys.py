"""P-256 key pairs: construction, the public key's encodings, signing, and the error classes (the
API reference); parsing is in test_public_keys.py, verification in test_signatures.py."""

from __future__ import annotations

import copy
import pickle
import re

import embedded_wallet_crypto as ewc
import pytest
from _p256_support import (
    GX,
    GY,
    PRIVATE,
    PRIVATE_HEX,
    N,
    P,
    _compressed,
    _der_sig,
    _expect,
    _int32,
    _uncompressed,
)
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# ---------------------------------------------------------------------------------------------
# KeyPair construction


def test_generate_gives_distinct_valid_keys() -> None:
    a = ewc.KeyPair.generate()
    b = ewc.KeyPair.generate()
    assert isinstance(a, ewc.KeyPair)
    assert a != b
    assert a.private_key_bytes() != b.private_key_bytes()
    d = int.from_bytes(a.private_key_bytes(), "big")
    assert 1 <= d < N
    assert ewc.parse_public_key(a.public_key_bytes()) == a.public_key_bytes()


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview], ids=lambda w: w.__name__)
def test_from_private_bytes_accepts_byte_likes(wrap, crypto_pub) -> None:
    key = ewc.KeyPair.from_private_bytes(wrap(PRIVATE))
    expected = crypto_pub.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert key.public_key_bytes() == expected
    assert key.private_key_bytes() == PRIVATE


@pytest.mark.parametrize(
    "text", [PRIVATE_HEX, PRIVATE_HEX.upper(), PRIVATE_HEX[:32].upper() + PRIVATE_HEX[32:]]
)
def test_from_private_hex_any_case(text: str, kp: ewc.KeyPair) -> None:
    key = ewc.KeyPair.from_private_hex(text)
    assert key == kp
    assert key.private_key_bytes() == PRIVATE


def test_generator_scalar_one_and_n_minus_one() -> None:
    one = ewc.KeyPair.from_private_bytes(_int32(1))
    assert one.public_key_bytes() == _uncompressed(GX, GY)
    last = ewc.KeyPair.from_private_bytes(_int32(N - 1))
    # (n - 1) * G = -G = (Gx, p - Gy)
    assert last.public_key_bytes() == _uncompressed(GX, P - GY)
    assert last.public_key_bytes(compressed=True) == _compressed(GX, odd=(P - GY) % 2 == 1)


@pytest.mark.parametrize("scalar", [0, N, N + 1, 2**256 - 1], ids=["zero", "n", "n_plus_1", "max"])
def test_from_private_bytes_out_of_range(scalar: int) -> None:
    err = _expect(
        ewc.InvalidKey, "INVALID_PRIVATE_KEY", ewc.KeyPair.from_private_bytes, _int32(scalar)
    )
    # No secret material in the message.
    assert _int32(scalar).hex() not in err.reason


@pytest.mark.parametrize("scalar", [0, N, 2**256 - 1])
def test_from_private_hex_out_of_range(scalar: int) -> None:
    _expect(
        ewc.InvalidKey, "INVALID_PRIVATE_KEY", ewc.KeyPair.from_private_hex, _int32(scalar).hex()
    )


@pytest.mark.parametrize("length", [0, 1, 31, 33, 64])
def test_from_private_bytes_wrong_length(length: int) -> None:
    _expect(ewc.InvalidKey, "INVALID_KEY_LENGTH", ewc.KeyPair.from_private_bytes, b"\x01" * length)


@pytest.mark.parametrize("length", [31, 33])
def test_from_private_hex_wrong_length(length: int) -> None:
    _expect(ewc.InvalidKey, "INVALID_KEY_LENGTH", ewc.KeyPair.from_private_hex, "01" * length)


@pytest.mark.parametrize(
    "text",
    [
        "zz" * 32,
        "g" + PRIVATE_HEX[1:],
        PRIVATE_HEX[:-1] + " ",
        " " + PRIVATE_HEX[1:],
        "0x" + PRIVATE_HEX[2:],
        PRIVATE_HEX[:-1],  # odd length
        "é" * 64,
    ],
    ids=["zz", "g", "trailing_space", "leading_space", "0x", "odd", "non_ascii"],
)
def test_from_private_hex_not_hex(text: str) -> None:
    err = _expect(ewc.InvalidKey, "INVALID_KEY_ENCODING", ewc.KeyPair.from_private_hex, text)
    assert PRIVATE_HEX not in err.reason


# ---------------------------------------------------------------------------------------------
# Public key encodings


def test_public_key_encodings(kp: ewc.KeyPair, crypto_pub) -> None:
    full = kp.public_key_bytes()
    default = kp.public_key_bytes(compressed=False)
    short = kp.public_key_bytes(compressed=True)
    assert full == default
    assert len(full) == 65 and full[0] == 4
    assert len(short) == 33 and short[0] in (2, 3)
    assert full == crypto_pub.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    assert short == crypto_pub.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
    assert short[1:] == full[1:33]
    assert short[0] == 2 + (full[64] & 1)

    hex_full = kp.public_key_hex()
    hex_short = kp.public_key_hex(compressed=True)
    assert hex_full == kp.public_key_hex(compressed=False) == full.hex()
    assert hex_short == short.hex()
    assert len(hex_full) == 130 and hex_full.startswith("04")
    assert len(hex_short) == 66 and hex_short[:2] in ("02", "03")
    assert hex_full == hex_full.lower() and hex_short == hex_short.lower()


def test_both_compressed_prefixes_occur() -> None:
    prefixes = {ewc.KeyPair.generate().public_key_bytes(compressed=True)[0] for _ in range(64)}
    assert prefixes == {2, 3}


def test_private_key_round_trip() -> None:
    for _ in range(8):
        a = ewc.KeyPair.generate()
        raw = a.private_key_bytes()
        assert isinstance(raw, bytes) and len(raw) == 32
        b = ewc.KeyPair.from_private_bytes(raw)
        assert b == a
        assert b.private_key_bytes() == raw
        assert ewc.KeyPair.from_private_hex(raw.hex()).private_key_bytes() == raw


def test_repr_shows_only_compressed_public_key(kp: ewc.KeyPair) -> None:
    text = repr(kp)
    assert kp.public_key_hex(compressed=True) in text
    assert kp.public_key_hex() not in text
    assert PRIVATE_HEX not in text.lower()
    assert PRIVATE_HEX not in str(kp).lower()
    assert PRIVATE_HEX not in format(kp).lower()
    # The only long hex run in the repr is the compressed public key.
    runs = re.findall(r"[0-9a-fA-F]{16,}", text)
    assert runs == [kp.public_key_hex(compressed=True)]


def test_keypair_is_frozen(kp: ewc.KeyPair) -> None:
    before = kp.public_key_bytes()
    for name in ("foo", "public_key", "private_key", "public_key_bytes", "sign"):
        with pytest.raises((AttributeError, TypeError)):
            setattr(kp, name, b"\x00")
    with pytest.raises((AttributeError, TypeError)):
        del kp.public_key_bytes
    assert not hasattr(kp, "__dict__")
    assert kp.public_key_bytes() == before


def test_equality_and_hash_by_public_key(kp: ewc.KeyPair) -> None:
    same = ewc.KeyPair.from_private_hex(PRIVATE_HEX.upper())
    other = ewc.KeyPair.generate()
    assert same == kp and not (same != kp)
    assert hash(same) == hash(kp)
    assert other != kp
    assert kp != kp.public_key_bytes()
    assert kp != kp.public_key_hex()
    assert (kp == object()) is False
    assert len({kp, same, other}) == 2
    assert {kp: 1}[same] == 1


def test_pickling_and_copying_fail(kp: ewc.KeyPair) -> None:
    with pytest.raises(TypeError):
        pickle.dumps(kp)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError):
            pickle.dumps(kp, protocol=protocol)
    with pytest.raises(TypeError):
        copy.copy(kp)
    with pytest.raises(TypeError):
        copy.deepcopy(kp)


@pytest.mark.parametrize("protocol", [0, 1])
def test_pickling_fails_with_legacy_protocols(kp: ewc.KeyPair, protocol: int) -> None:
    try:
        blob = pickle.dumps(kp, protocol=protocol)
    except TypeError:
        return
    # Whatever was written must not contain the scalar...
    assert PRIVATE not in blob
    assert PRIVATE_HEX.encode() not in blob.lower()
    # ...but pickling should refuse outright, as with every other protocol.
    pytest.fail(f"pickle protocol {protocol} silently wrote an unloadable KeyPair: {blob!r}")


def test_sign_produces_verifiable_der(kp: ewc.KeyPair, crypto_pub) -> None:
    for message in (b"", b"hello", bytearray(b"x" * 1000), memoryview(b"abc")):
        sig = kp.sign(message)
        assert isinstance(sig, bytes) and sig[0] == 0x30
        r, s = decode_dss_signature(sig)
        assert _der_sig(r, s) == sig  # strict DER
        assert 1 <= r < N and 1 <= s < N
        crypto_pub.verify(sig, bytes(message), ec.ECDSA(hashes.SHA256()))
        assert ewc.verify_signature(kp.public_key_bytes(), message, sig) is True


# ---------------------------------------------------------------------------------------------
# Errors

ERROR_STATUS = {
    "WalletCryptoError": 400,
    "InvalidKey": 400,
    "DecodeError": 400,
    "DecryptionError": 400,
    "StampError": 401,
    "EnvelopeError": 400,
    "PasskeyError": 401,
    "OidcError": 401,
    "OtpError": 401,
    "SignedRetryError": 401,
}


@pytest.mark.parametrize("name", sorted(ERROR_STATUS))
def test_error_classes(name: str) -> None:
    cls = getattr(ewc, name)
    assert cls is getattr(ewc.errors, name)
    assert issubclass(cls, ewc.WalletCryptoError)
    assert issubclass(cls, Exception)
    err = cls("Something went wrong.")
    assert err.reason == "Something went wrong."
    assert str(err) == "Something went wrong."
    assert isinstance(err.code, str) and err.code and err.code == err.code.upper()
    assert " " not in err.code
    assert err.status == ERROR_STATUS[name]
    custom = cls("Other reason.", "CUSTOM_CODE", 429)
    assert (custom.code, custom.reason, custom.status, str(custom)) == (
        "CUSTOM_CODE",
        "Other reason.",
        429,
        "Other reason.",
    )


def test_error_classes_are_distinct() -> None:
    classes = [getattr(ewc, name) for name in ERROR_STATUS]
    assert len(set(classes)) == len(classes)
    codes = {getattr(ewc, name)("r").code for name in ERROR_STATUS}
    assert len(codes) == len(classes)
    for name in ERROR_STATUS:
        if name != "WalletCryptoError":
            assert getattr(ewc, name).__bases__ == (ewc.WalletCryptoError,)
    assert set(ERROR_STATUS) <= set(ewc.errors.__all__)


def test_raised_errors_carry_code_reason_status() -> None:
    raised: list[ewc.WalletCryptoError] = []
    for call in (
        lambda: ewc.parse_public_key(b"\x04"),
        lambda: ewc.KeyPair.from_private_bytes(b"\x00" * 32),
        lambda: ewc.verify_signature(_uncompressed(GX, GY), b"", b"\x30"),
        lambda: ewc.b58decode("0"),
        lambda: ewc.b58check_decode("1"),
    ):
        with pytest.raises(ewc.WalletCryptoError) as info:
            call()
        raised.append(info.value)
    for err in raised:
        assert err.code and err.code == err.code.upper()
        assert err.reason and str(err) == err.reason
        assert err.status == 400
        assert repr(err).startswith(type(err).__name__ + "(")
