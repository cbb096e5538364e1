"""verify_signature: DER and P1363, BER forms refused as decode errors, out-of-range r and s,
high-s twins, beside cryptography's ECDSA."""

from __future__ import annotations

import hashlib

import embedded_wallet_crypto as ewc
import pytest
from _p256_support import (
    GX,
    GY,
    PRIVATE_HEX,
    N,
    _der_int,
    _der_sig,
    _expect,
    _int32,
    _uncompressed,
)
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    Prehashed,
    decode_dss_signature,
    encode_dss_signature,
)
from embedded_wallet_crypto import _native

# ---------------------------------------------------------------------------------------------
# verify_signature


@pytest.fixture(scope="module")
def signed(kp: ewc.KeyPair) -> tuple[bytes, bytes, int, int]:
    message = b"embedded wallet stamp"
    sig = kp.sign(message)
    r, s = decode_dss_signature(sig)
    return message, sig, r, s


def test_verify_true_false(kp: ewc.KeyPair, signed) -> None:
    message, sig, _, _ = signed
    pub = kp.public_key_bytes()
    for key in (
        pub,
        kp.public_key_bytes(compressed=True),
        pub.hex(),
        pub.hex().upper(),
        kp.public_key_hex(compressed=True),
        bytearray(pub),
        memoryview(pub),
    ):
        assert ewc.verify_signature(key, message, sig) is True
    assert ewc.verify_signature(pub, bytearray(message), memoryview(sig)) is True
    assert ewc.verify_signature(pub, message + b"!", sig) is False
    assert ewc.verify_signature(pub, b"", sig) is False
    assert ewc.verify_signature(ewc.KeyPair.generate().public_key_bytes(), message, sig) is False


def test_verify_tampered_signature_is_false(kp: ewc.KeyPair, signed) -> None:
    message, _, r, s = signed
    pub = kp.public_key_bytes()
    assert ewc.verify_signature(pub, message, _der_sig(r ^ 1, s)) is False
    assert ewc.verify_signature(pub, message, _der_sig(r, s ^ 1)) is False
    assert ewc.verify_signature(pub, message, _der_sig(s, r)) is False


def test_high_s_twin_verifies(kp: ewc.KeyPair, signed, crypto_pub) -> None:
    message, _, r, s = signed
    twin = _der_sig(r, N - s)
    crypto_pub.verify(twin, message, ec.ECDSA(hashes.SHA256()))
    assert ewc.verify_signature(kp.public_key_bytes(), message, twin) is True
    assert ewc.verify_signature(kp.public_key_bytes(compressed=True), message, twin) is True


def test_verify_crypto_signature(kp: ewc.KeyPair) -> None:
    priv = ec.derive_private_key(int(PRIVATE_HEX, 16), ec.SECP256R1())
    for message in (b"", b"a", b"x" * 300):
        sig = priv.sign(message, ec.ECDSA(hashes.SHA256()))
        assert ewc.verify_signature(kp.public_key_hex(), message, sig) is True


def _ber_variants(r: int, s: int) -> dict[str, bytes]:
    good = _der_sig(r, s)
    r_der, s_der = _der_int(r), _der_int(s)
    body = r_der + s_der

    def seq(content: bytes) -> bytes:
        return b"\x30" + bytes([len(content)]) + content

    r_raw = r_der[2:]
    padded_r = b"\x02" + bytes([len(r_raw) + 1]) + b"\x00" + r_raw
    # A negative integer: drop the 0x00 pad if present, or force a high bit.
    r_unpadded = r_raw[1:] if r_raw[0] == 0 else r_raw
    neg_r = r_unpadded if r_unpadded[0] & 0x80 else bytes([r_unpadded[0] | 0x80]) + r_unpadded[1:]
    negative = b"\x02" + bytes([len(neg_r)]) + neg_r
    return {
        "long_form_seq_len": b"\x30\x81" + bytes([len(body)]) + body,
        "long_form_int_len": seq(b"\x02\x81" + bytes([len(r_raw)]) + r_raw + s_der),
        "leading_zero_padding": seq(padded_r + s_der),
        "leading_zero_padding_s": seq(
            r_der + b"\x02" + bytes([len(s_der) - 1]) + b"\x00" + s_der[2:]
        ),
        "negative_int": seq(negative + s_der),
        "trailing_bytes": good + b"\x00",
        "trailing_garbage": good + b"\x05\x00",
        "extra_inside_seq": seq(body + b"\x02\x01\x01"),
        "seq_len_too_long": b"\x30" + bytes([len(body) + 1]) + body,
        "seq_len_too_short": b"\x30" + bytes([len(body) - 1]) + body,
        "indefinite_length": b"\x30\x80" + body + b"\x00\x00",
        "wrong_outer_tag": b"\x31" + good[1:],
        "wrong_int_tag": seq(b"\x03" + r_der[1:] + s_der),
        "empty": b"",
        "only_seq": b"\x30\x00",
        "one_int": seq(r_der),
        "truncated": good[:-1],
        "p1363_raw": _int32(r) + _int32(s),
        "empty_int": seq(b"\x02\x00" + s_der),
    }


@pytest.mark.parametrize(
    "variant",
    list(_ber_variants(3, 5).keys()),
)
def test_ber_forms_raise_decode_error(kp: ewc.KeyPair, signed, variant: str) -> None:
    message, _, r, s = signed
    # Make sure both halves produce the relevant shapes: use the real signature and its twin.
    for rr, ss in ((r, s), (r, N - s)):
        bad = _ber_variants(rr, ss)[variant]
        err = _expect(
            ewc.DecodeError,
            "INVALID_SIGNATURE_ENCODING",
            ewc.verify_signature,
            kp.public_key_bytes(),
            message,
            bad,
        )
        assert err.status == 400


@pytest.mark.parametrize(
    ("r", "s"),
    [(0, 1), (1, 0), (0, 0), (N, 1), (1, N), (N + 1, 1), (2**256 - 1, 1), (1, 2**256 - 1)],
    ids=["r0", "s0", "r0s0", "rn", "sn", "rn1", "rmax", "smax"],
)
def test_out_of_range_r_s_is_false(kp: ewc.KeyPair, signed, r: int, s: int) -> None:
    message = signed[0]
    assert ewc.verify_signature(kp.public_key_bytes(), message, _der_sig(r, s)) is False


def test_out_of_range_with_real_half_is_false(kp: ewc.KeyPair, signed) -> None:
    message, _, r, s = signed
    pub = kp.public_key_bytes()
    assert ewc.verify_signature(pub, message, _der_sig(0, s)) is False
    assert ewc.verify_signature(pub, message, _der_sig(r, 0)) is False
    # r + n and s + n are the same residues mod n: a verifier that reduces would accept them.
    if r + N < 2**256:
        assert ewc.verify_signature(pub, message, _der_sig(r + N, s)) is False
    if s + N < 2**256:
        assert ewc.verify_signature(pub, message, _der_sig(r, s + N)) is False


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (b"", "INVALID_KEY_LENGTH"),
        (b"\x05" + b"\x00" * 32, "INVALID_KEY_PREFIX"),
        (_uncompressed(GX, GY + 1), "INVALID_POINT"),
        ("zz" * 33, "INVALID_KEY_ENCODING"),
    ],
    ids=["length", "prefix", "point", "encoding"],
)
def test_verify_malformed_key_raises(signed, value, code: str) -> None:
    message, sig, _, _ = signed
    _expect(ewc.InvalidKey, code, ewc.verify_signature, value, message, sig)


def test_verify_p1363(kp: ewc.KeyPair, signed) -> None:
    message, _, r, s = signed
    pub = kp.public_key_bytes()
    assert _native.verify_signature_p1363(pub, message, _int32(r) + _int32(s)) is True
    assert _native.verify_signature_p1363(pub, message, _int32(r) + _int32(N - s)) is True
    assert _native.verify_signature_p1363(pub, message + b"x", _int32(r) + _int32(s)) is False
    assert _native.verify_signature_p1363(pub, message, b"\x00" * 64) is False
    for length in (0, 63, 65, 72):
        _expect(
            ewc.DecodeError,
            "INVALID_SIGNATURE_ENCODING",
            _native.verify_signature_p1363,
            pub,
            message,
            b"\x01" * length,
        )


def test_sign_is_sha256_ecdsa(kp: ewc.KeyPair, crypto_pub) -> None:
    message = b"prehash check"
    sig = kp.sign(message)
    crypto_pub.verify(sig, hashlib.sha256(message).digest(), ec.ECDSA(Prehashed(hashes.SHA256())))
    assert encode_dss_signature(*decode_dss_signature(sig)) == sig
