"""HPKE (API reference: HPKE; formats.md section 1): the wallet profile and plain RFC 9180 use."""

from __future__ import annotations

import pickle

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import _native, hpke, testing

PLAINTEXT = b"the 32-byte session signing key!"


@pytest.fixture(scope="module")
def recipient() -> ewc.KeyPair:
    return hpke.derive_key_pair(b"recipient ikm for the hpke tests")


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


# ---------------------------------------------------------------------------------------------
# Context API


@pytest.mark.parametrize("aead", [hpke.AEAD_AES_128_GCM, hpke.AEAD_AES_256_GCM])
def test_context_multi_message(recipient: ewc.KeyPair, aead: int) -> None:
    enc, sender = hpke.setup_sender(recipient.public_key_bytes(), info=b"ctx", aead=aead)
    assert len(enc) == 65 and enc[0] == 4
    receiver = hpke.setup_receiver(recipient, enc, info=b"ctx", aead=aead)
    assert isinstance(sender, hpke.Context) and isinstance(receiver, hpke.Context)
    assert sender.sequence_number == 0 and receiver.sequence_number == 0
    messages = [(b"aad%d" % i, b"message %d" % i * i) for i in range(10)]
    cts = []
    for i, (aad, pt) in enumerate(messages):
        ct = sender.seal(aad, pt)
        assert len(ct) == len(pt) + 16
        cts.append(ct)
        assert sender.sequence_number == i + 1
    # Same plaintext at different sequence numbers gives different ciphertexts.
    assert sender.seal(b"", b"same") != sender.seal(b"", b"same")
    for i, ((aad, pt), ct) in enumerate(zip(messages, cts, strict=True)):
        # Out of order fails and does not advance the receiver.
        if i + 1 < len(cts):
            with pytest.raises(ewc.DecryptionError) as info:
                receiver.open(messages[i + 1][0], cts[i + 1])
            assert info.value.code == "DECRYPTION_FAILED"
            assert receiver.sequence_number == i
        # Wrong aad fails and does not advance.
        with pytest.raises(ewc.DecryptionError):
            receiver.open(aad + b"!", ct)
        assert receiver.sequence_number == i
        assert receiver.open(aad, ct) == pt
        assert receiver.sequence_number == i + 1
    # Single-shot seal is message 0 of a context with the same parameters.
    opened = hpke.setup_receiver(recipient.private_key_bytes(), enc.hex(), info=b"ctx", aead=aead)
    assert opened.open(messages[0][0], cts[0]) == messages[0][1]


def test_single_shot_matches_context(recipient: ewc.KeyPair) -> None:
    pub = recipient.public_key_bytes()
    enc, ct = hpke.seal(pub, PLAINTEXT, info=b"abc", aad=b"def")
    receiver = hpke.setup_receiver(recipient, enc, info=b"abc")
    assert receiver.open(b"def", ct) == PLAINTEXT
    eph = ewc.KeyPair.generate()
    enc2, sender = testing.setup_sender_deterministic_for_tests(pub, ephemeral_key=eph, info=b"abc")
    assert enc2 == eph.public_key_bytes()
    ct2 = sender.seal(b"def", PLAINTEXT)
    assert (enc2, ct2) == hpke.seal_deterministic_for_tests(
        pub, PLAINTEXT, ephemeral_key=eph, info=b"abc", aad=b"def"
    )


def test_context_aead_mismatch_fails(recipient: ewc.KeyPair) -> None:
    enc, sender = hpke.setup_sender(recipient.public_key_bytes(), aead=1)
    receiver = hpke.setup_receiver(recipient, enc, aead=2)
    with pytest.raises(ewc.DecryptionError):
        receiver.open(b"", sender.seal(b"", b"x"))


def test_context_export(recipient: ewc.KeyPair) -> None:
    enc, sender = hpke.setup_sender(recipient.public_key_bytes())
    receiver = hpke.setup_receiver(recipient, enc)
    for length in (0, 1, 16, 32, 33, 255, 1000, 255 * 32):
        for ctx in (b"", b"exporter context"):
            a = sender.export(ctx, length)
            assert isinstance(a, bytes) and len(a) == length
            assert receiver.export(ctx, length) == a
    assert sender.export(b"a", 32) != sender.export(b"b", 32)
    # LabeledExpand binds the length: a longer export is not an extension of a shorter one.
    assert sender.export(b"a", 64)[:32] != sender.export(b"a", 32)
    # export does not consume sequence numbers
    assert sender.sequence_number == 0
    # another context, another secret
    _, other = hpke.setup_sender(recipient.public_key_bytes())
    assert other.export(b"a", 32) != sender.export(b"a", 32)


@pytest.mark.parametrize("length", [255 * 32 + 1, 10_000, 2**32, 2**62, 2**64 - 1])
def test_context_export_too_long(recipient: ewc.KeyPair, length: int) -> None:
    _, sender = hpke.setup_sender(recipient.public_key_bytes())
    with pytest.raises(ewc.DecodeError) as info:
        sender.export(b"", length)
    assert info.value.code == "INVALID_LENGTH"
    assert info.value.status == 400


@pytest.mark.parametrize("aead", [0, 3, 4, 0xFFFF])
def test_unsupported_aead(recipient: ewc.KeyPair, aead: int) -> None:
    pub = recipient.public_key_bytes()
    enc, _ = hpke.setup_sender(pub)
    for call in (
        lambda: hpke.setup_sender(pub, aead=aead),
        lambda: hpke.setup_receiver(recipient, enc, aead=aead),
        lambda: testing.setup_sender_deterministic_for_tests(
            pub, ephemeral_key=ewc.KeyPair.generate(), aead=aead
        ),
    ):
        with pytest.raises(ewc.WalletCryptoError) as info:
            call()
        assert type(info.value) is ewc.WalletCryptoError
        assert info.value.code == "UNSUPPORTED_ALGORITHM"


def test_context_repr_and_pickle(recipient: ewc.KeyPair) -> None:
    _, sender = hpke.setup_sender(recipient.public_key_bytes())
    secret = sender.export(b"", 32).hex()
    assert secret not in repr(sender)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError):
            pickle.dumps(sender, protocol=protocol)


def test_wrong_python_types_are_type_errors_not_crypto_outcomes() -> None:
    """An int is not a buffer (bytes(5) would be five zero bytes), True is not an AEAD id, and
    an enc of the wrong type is the caller's error, not a failed decryption."""
    key = ewc.KeyPair.generate()
    with pytest.raises(TypeError):
        ewc.hpke.seal(key.public_key_bytes(), 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.hpke.setup_sender(key.public_key_bytes(), aead=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.hpke.open(key, 12345, b"")  # type: ignore[arg-type]
    with pytest.raises(ewc.DecryptionError):
        ewc.hpke.open(key, b"\x04" * 3, b"")
