"""HPKE's context API (API reference: HPKE): setup_sender and setup_receiver, several messages
in sequence, the single-shot seal as a context's first message, AEAD ids, secret export, and
the Python types each entry point takes."""

from __future__ import annotations

import pickle

import embedded_wallet_crypto as ewc
import pytest
from _hpke_support import PLAINTEXT
from embedded_wallet_crypto import hpke, testing


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
