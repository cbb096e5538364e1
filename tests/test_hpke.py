"""HPKE (API reference: HPKE; formats.md section 1): the wallet profile and plain RFC 9180 use:
round trips, the one generic error of every failed open, derive_key_pair and the deterministic
seal. The context API is in test_hpke_context.py."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
import pytest
from _hpke_support import PLAINTEXT
from embedded_wallet_crypto import _native, hpke


@pytest.fixture(scope="module")
def sealed(recipient: ewc.KeyPair) -> tuple[bytes, bytes]:
    return hpke.seal(recipient.public_key_bytes(), PLAINTEXT)


def _generic_failure(func, *args, **kwargs) -> ewc.DecryptionError:
    with pytest.raises(ewc.DecryptionError) as info:
        func(*args, **kwargs)
    err = info.value
    assert type(err) is ewc.DecryptionError
    assert err.code == "DECRYPTION_FAILED"
    assert err.status == 400
    assert str(err) == err.reason
    return err


@pytest.fixture(scope="module")
def generic_reason(recipient: ewc.KeyPair, sealed) -> str:
    enc, ct = sealed
    return _generic_failure(hpke.open, recipient, enc, ct[:-1] + bytes([ct[-1] ^ 1])).reason


# ---------------------------------------------------------------------------------------------
# Round trips


def test_constants() -> None:
    assert hpke.DEFAULT_INFO == b"turnkey_hpke"
    assert hpke.KEM_DHKEM_P256_HKDF_SHA256 == 0x0010
    assert hpke.KDF_HKDF_SHA256 == 0x0001
    assert hpke.AEAD_AES_128_GCM == 0x0001
    assert hpke.AEAD_AES_256_GCM == 0x0002


@pytest.mark.parametrize("plaintext", [b"", b"x", PLAINTEXT, bytes(range(256)) * 20])
def test_profile_round_trip(recipient: ewc.KeyPair, plaintext: bytes) -> None:
    enc, ct = hpke.seal(recipient.public_key_bytes(), plaintext)
    assert isinstance(enc, bytes) and isinstance(ct, bytes)
    assert len(enc) == 65 and enc[0] == 4
    assert ewc.parse_public_key(enc) == enc
    assert len(ct) == len(plaintext) + 16
    assert hpke.open(recipient, enc, ct) == plaintext
    assert hpke.open(recipient, enc, ct, info=b"turnkey_hpke", aad=None) == plaintext


def test_fresh_ephemeral_each_seal(recipient: ewc.KeyPair) -> None:
    results = {hpke.seal(recipient.public_key_bytes(), PLAINTEXT) for _ in range(8)}
    assert len({enc for enc, _ in results}) == 8
    assert len({ct for _, ct in results}) == 8


@pytest.mark.parametrize(
    "key_form",
    ["bytes", "compressed", "hex", "hex_upper", "compressed_hex", "bytearray", "memoryview"],
)
def test_seal_accepts_key_forms(recipient: ewc.KeyPair, key_form: str) -> None:
    pub = recipient.public_key_bytes()
    short = recipient.public_key_bytes(compressed=True)
    key = {
        "bytes": pub,
        "compressed": short,
        "hex": pub.hex(),
        "hex_upper": pub.hex().upper(),
        "compressed_hex": short.hex(),
        "bytearray": bytearray(pub),
        "memoryview": memoryview(pub),
    }[key_form]
    enc, ct = hpke.seal(key, PLAINTEXT)
    assert len(enc) == 65
    # The profile AAD always uses the 65-byte uncompressed recipient key, whatever form was given.
    assert hpke.open(recipient, enc, ct, aad=enc + pub) == PLAINTEXT


def test_round_trip_with_empty_aad(recipient: ewc.KeyPair) -> None:
    enc, ct = hpke.seal(recipient.public_key_bytes(), PLAINTEXT, aad=b"")
    assert hpke.open(recipient, enc, ct, aad=b"") == PLAINTEXT
    # aad=b"" is not the profile
    _generic_failure(hpke.open, recipient, enc, ct)


def test_round_trip_custom_info_and_aad(recipient: ewc.KeyPair) -> None:
    info = b"another application"
    aad = bytearray(b"associated data")
    enc, ct = hpke.seal(recipient.public_key_bytes(), memoryview(PLAINTEXT), info=info, aad=aad)
    assert hpke.open(recipient, enc, ct, info=memoryview(info), aad=bytes(aad)) == PLAINTEXT
    enc2, ct2 = hpke.seal(recipient.public_key_bytes(), PLAINTEXT, info=b"")
    assert hpke.open(recipient, enc2, ct2, info=b"") == PLAINTEXT
    _generic_failure(hpke.open, recipient, enc2, ct2)


def test_open_accepts_enc_forms(recipient: ewc.KeyPair, sealed) -> None:
    enc, ct = sealed
    short = ewc.compress_public_key(enc)
    assert len(short) == 33
    for form in (
        enc,
        short,
        enc.hex(),
        enc.hex().upper(),
        short.hex(),
        bytearray(enc),
        memoryview(short),
    ):
        assert hpke.open(recipient, form, ct) == PLAINTEXT


def test_open_with_raw_private_bytes(recipient: ewc.KeyPair, sealed) -> None:
    enc, ct = sealed
    raw = recipient.private_key_bytes()
    assert len(raw) == 32
    for key in (raw, bytearray(raw), memoryview(raw)):
        assert hpke.open(key, enc, ct) == PLAINTEXT
        assert hpke.open(key, enc, bytearray(ct)) == PLAINTEXT


def test_open_with_bad_raw_private_key_is_invalid_key(sealed) -> None:
    enc, ct = sealed
    for raw, code in ((b"\x00" * 32, "INVALID_PRIVATE_KEY"), (b"\x01" * 31, "INVALID_KEY_LENGTH")):
        with pytest.raises(ewc.InvalidKey) as info:
            hpke.open(raw, enc, ct)
        assert info.value.code == code


def test_profile_aad_is_enc_then_recipient_key(recipient: ewc.KeyPair, sealed) -> None:
    enc, ct = sealed
    pub = recipient.public_key_bytes()
    assert hpke.open(recipient, enc, ct, aad=enc + pub) == PLAINTEXT
    # Other plausible AADs must fail: reversed, compressed parts, empty.
    short_enc = ewc.compress_public_key(enc)
    short_pub = recipient.public_key_bytes(compressed=True)
    for wrong in (pub + enc, short_enc + short_pub, enc + short_pub, enc, pub, b""):
        _generic_failure(hpke.open, recipient, enc, ct, aad=wrong)
    # And the other way round: a plain seal with the explicit profile AAD opens in the profile.
    eph = ewc.KeyPair.generate()
    enc2, ct2 = hpke.seal_deterministic_for_tests(
        pub, PLAINTEXT, ephemeral_key=eph, aad=eph.public_key_bytes() + pub
    )
    assert enc2 == eph.public_key_bytes()
    assert hpke.open(recipient, enc2, ct2) == PLAINTEXT
    assert (enc2, ct2) == hpke.seal_deterministic_for_tests(pub, PLAINTEXT, ephemeral_key=eph)


def test_profile_aad_uses_uncompressed_enc_when_opened_compressed(
    recipient: ewc.KeyPair, sealed
) -> None:
    enc, ct = sealed
    short = ewc.compress_public_key(enc)
    assert hpke.open(recipient, short, ct) == PLAINTEXT
    assert hpke.open(recipient, short, ct, aad=enc + recipient.public_key_bytes()) == PLAINTEXT


# ---------------------------------------------------------------------------------------------
# Negatives: one generic error


def test_tampering_gives_one_generic_error(recipient: ewc.KeyPair, sealed, generic_reason) -> None:
    enc, ct = sealed
    pub = recipient.public_key_bytes()
    reasons = set()
    # Flip every bit position class: the enc x and y coordinates, the ciphertext body, the tag.
    for i in (1, 16, 32, 33, 48, 64):
        other = ewc.KeyPair.generate().public_key_bytes()
        for bad_enc in (enc[:i] + bytes([enc[i] ^ 1]) + enc[i + 1 :], other):
            reasons.add(_generic_failure(hpke.open, recipient, bad_enc, ct).reason)
    for i in range(len(ct)):
        bad = ct[:i] + bytes([ct[i] ^ 0x80]) + ct[i + 1 :]
        reasons.add(_generic_failure(hpke.open, recipient, enc, bad).reason)
    # aad, info
    for aad in (enc + pub + b"\x00", (enc + pub)[:-1], b"x"):
        reasons.add(_generic_failure(hpke.open, recipient, enc, ct, aad=aad).reason)
    for info in (b"", b"turnkey_hpkE", b"turnkey_hpke\x00", b"x" * 100):
        reasons.add(_generic_failure(hpke.open, recipient, enc, ct, info=info).reason)
    # wrong key
    reasons.add(_generic_failure(hpke.open, ewc.KeyPair.generate(), enc, ct).reason)
    reasons.add(
        _generic_failure(hpke.open, ewc.KeyPair.generate().private_key_bytes(), enc, ct).reason
    )
    # extension
    reasons.add(_generic_failure(hpke.open, recipient, enc, ct + b"\x00").reason)
    assert reasons == {generic_reason}


def test_every_truncation_fails_generically(recipient: ewc.KeyPair, generic_reason) -> None:
    enc, ct = hpke.seal(recipient.public_key_bytes(), b"some plaintext")
    for length in range(len(ct)):
        err = _generic_failure(hpke.open, recipient, enc, ct[:length])
        assert err.reason == generic_reason


@pytest.mark.parametrize(
    "bad_enc",
    [
        b"\x04" + b"\x00" * 64,  # not on the curve
        b"\x00" * 65,  # bad prefix
        b"\x05" + b"\x11" * 32,  # bad prefix, compressed length
        b"\x02" + b"\xff" * 32,  # x >= p
        b"\x04" + b"\xff" * 64,  # x, y >= p
        b"\x06" + b"\x11" * 64,  # hybrid prefix
        b"",
        b"\x04",
        b"\x04" + b"\x11" * 32,
        b"\x04" + b"\x11" * 63,
        b"\x04" + b"\x11" * 65,
        b"\x02" + b"\x11" * 33,
        "zz" * 65,  # not hex
        "04",  # hex of wrong length
    ],
    ids=[
        "off_curve",
        "zero_prefix",
        "prefix_05",
        "x_ge_p",
        "xy_ge_p",
        "hybrid",
        "empty",
        "one_byte",
        "33_bytes_04",
        "64_bytes",
        "66_bytes",
        "34_bytes",
        "not_hex",
        "short_hex",
    ],
)
def test_invalid_enc_fails_generically(
    recipient: ewc.KeyPair, sealed, generic_reason, bad_enc
) -> None:
    _, ct = sealed
    err = _generic_failure(hpke.open, recipient, bad_enc, ct)
    assert err.reason == generic_reason
    with pytest.raises(ewc.DecryptionError) as info:
        hpke.setup_receiver(recipient, bad_enc)
    assert info.value.code == "DECRYPTION_FAILED"
    assert info.value.reason == generic_reason


def test_generic_reason_reveals_nothing(recipient: ewc.KeyPair, generic_reason) -> None:
    assert generic_reason
    assert recipient.private_key_bytes().hex() not in generic_reason
    assert recipient.public_key_hex() not in generic_reason


@pytest.mark.parametrize(
    ("key", "code"),
    [
        (b"\x04" + b"\x00" * 64, "INVALID_POINT"),
        (b"\x02" + b"\xff" * 32, "INVALID_POINT"),
        (b"\x05" + b"\x00" * 32, "INVALID_KEY_PREFIX"),
        (b"\x04" * 64, "INVALID_KEY_LENGTH"),
        (b"", "INVALID_KEY_LENGTH"),
        ("nothex", "INVALID_KEY_ENCODING"),
    ],
)
def test_seal_to_invalid_public_key(key, code: str) -> None:
    for call in (
        lambda: hpke.seal(key, PLAINTEXT),
        lambda: hpke.seal(key, PLAINTEXT, aad=b""),
        lambda: hpke.setup_sender(key),
        lambda: hpke.seal_deterministic_for_tests(
            key, PLAINTEXT, ephemeral_key=ewc.KeyPair.generate()
        ),
    ):
        with pytest.raises(ewc.InvalidKey) as info:
            call()
        assert info.value.code == code


# ---------------------------------------------------------------------------------------------
# derive_key_pair, deterministic seal


def test_derive_key_pair_deterministic() -> None:
    a = hpke.derive_key_pair(b"\x01" * 32)
    b = hpke.derive_key_pair(bytearray(b"\x01" * 32))
    c = hpke.derive_key_pair(b"\x02" * 32)
    assert isinstance(a, ewc.KeyPair)
    assert a == b and a.private_key_bytes() == b.private_key_bytes()
    assert a != c
    assert hpke.derive_key_pair(b"") == hpke.derive_key_pair(memoryview(b""))
    assert hpke.derive_key_pair(b"") != a


def test_derive_key_pair_rfc9180_a3() -> None:
    # RFC 9180 A.3.1 (DHKEM(P-256), HKDF-SHA256, AES-128-GCM), ikmR / skRm / pkRm.
    ikm = bytes.fromhex("668b37171f1072f3cf12ea8a236a45df23fc13b82af3609ad1e354f6ef817550")
    key = hpke.derive_key_pair(ikm)
    assert key.private_key_bytes().hex() == (
        "f3ce7fdae57e1a310d87f1ebbde6f328be0a99cdbcadf4d6589cf29de4b8ffd2"
    )
    assert key.public_key_hex() == (
        "04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a82"
        "6a779b4cf969b8a0e539c7f62fb3d30ad6aa8f80e30f1d128aafd68a2ce72ea0"
    )


def test_seal_deterministic_for_tests(recipient: ewc.KeyPair) -> None:
    eph = hpke.derive_key_pair(b"ephemeral")
    pub = recipient.public_key_bytes()
    first = hpke.seal_deterministic_for_tests(pub, PLAINTEXT, ephemeral_key=eph)
    second = hpke.seal_deterministic_for_tests(pub.hex(), PLAINTEXT, ephemeral_key=eph)
    assert first == second
    enc, ct = first
    assert enc == eph.public_key_bytes()
    assert hpke.open(recipient, enc, ct) == PLAINTEXT
    other = hpke.seal_deterministic_for_tests(pub, PLAINTEXT + b"!", ephemeral_key=eph)
    assert other[0] == enc and other[1] != ct
    plain = hpke.seal_deterministic_for_tests(pub, PLAINTEXT, ephemeral_key=eph, aad=b"")
    assert plain[0] == enc and plain[1] != ct
    assert hpke.open(recipient, enc, plain[1], aad=b"") == PLAINTEXT
    info = hpke.seal_deterministic_for_tests(pub, PLAINTEXT, ephemeral_key=eph, info=b"i")
    assert hpke.open(recipient, enc, info[1], info=b"i") == PLAINTEXT
    # The same through the native entry point.
    assert (
        _native.hpke_seal_deterministic_for_tests(pub, PLAINTEXT, eph, b"turnkey_hpke", None)
        == first
    )
