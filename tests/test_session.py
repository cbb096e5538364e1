"""Session keys: ``encryptedSessionSigningKey`` (formats.md sections 2 and 3), seal and open."""

from __future__ import annotations

import base58
import embedded_wallet_crypto as ewc
import pytest
from conftest import VECTORS_DIR
from embedded_wallet_crypto import vectors

CLIENT = ewc.KeyPair.generate()
SESSION = ewc.KeyPair.generate()


def _sealed() -> str:
    return ewc.seal_session_key(CLIENT.public_key_hex(), SESSION)


def _rewrap(payload: bytes) -> str:
    """Altered bytes under a correct checksum: only the HPKE open can notice."""
    return base58.b58encode_check(payload).decode()


def test_seal_then_open_gives_the_session_key() -> None:
    text = _sealed()
    opened = ewc.open_session_key(text, CLIENT)
    assert opened == SESSION
    assert opened.private_key_bytes() == SESSION.private_key_bytes()
    assert ewc.open_session_key(text, CLIENT.private_key_bytes()) == SESSION
    assert ewc.open_session_key(text, bytearray(CLIENT.private_key_bytes())) == SESSION


def test_the_wire_form() -> None:
    """base58check(compressed enc (33) || ciphertext with tag (48)), 81 bytes; the HPKE profile
    of section 1 (info turnkey_hpke, aad enc || pkR with enc uncompressed)."""
    text = _sealed()
    payload = ewc.b58check_decode(text)
    assert len(payload) == 81
    enc, ciphertext = payload[:33], payload[33:]
    assert enc[0] in (2, 3)
    ewc.parse_public_key(enc)  # a valid point
    assert ewc.hpke.open(CLIENT, enc, ciphertext) == SESSION.private_key_bytes()
    uncompressed = ewc.parse_public_key(enc)
    profile_aad = uncompressed + CLIENT.public_key_bytes()
    assert ewc.hpke.open(CLIENT, enc, ciphertext, aad=profile_aad) == SESSION.private_key_bytes()


def test_each_seal_uses_a_fresh_ephemeral_key() -> None:
    texts = {_sealed() for _ in range(5)}
    assert len(texts) == 5
    assert len({ewc.b58check_decode(text)[:33] for text in texts}) == 5


@pytest.mark.parametrize(
    "client_public_key",
    [
        CLIENT.public_key_hex(),
        CLIENT.public_key_hex().upper(),
        CLIENT.public_key_bytes(),
        bytearray(CLIENT.public_key_bytes()),
        memoryview(CLIENT.public_key_bytes()),
    ],
    ids=["hex", "upper-hex", "bytes", "bytearray", "memoryview"],
)
def test_seal_accepts_the_client_key_as_hex_or_bytes(client_public_key: str | bytes) -> None:
    assert ewc.open_session_key(ewc.seal_session_key(client_public_key, SESSION), CLIENT) == SESSION


def _seal_error(client_public_key: str | bytes) -> ewc.InvalidKey:
    with pytest.raises(ewc.InvalidKey) as raised:
        ewc.seal_session_key(client_public_key, SESSION)
    assert raised.value.status == 400
    return raised.value


def test_a_compressed_client_key_is_the_client_held_key_flow() -> None:
    for key in (CLIENT.public_key_hex(compressed=True), CLIENT.public_key_bytes(compressed=True)):
        error = _seal_error(key)
        assert error.code == "CLIENT_HELD_KEY"
        assert "client-held" in error.reason


@pytest.mark.parametrize(
    ("client_public_key", "code"),
    [
        ("04" + "00" * 64, "INVALID_POINT"),
        (
            CLIENT.public_key_hex()[:-2] + f"{(CLIENT.public_key_bytes()[-1] ^ 1):02x}",
            "INVALID_POINT",
        ),
        (CLIENT.public_key_hex()[2:], "INVALID_KEY_LENGTH"),
        ("05" + CLIENT.public_key_hex()[2:], "INVALID_KEY_PREFIX"),
        ("04" + "zz" * 64, "INVALID_KEY_ENCODING"),
        ("", "INVALID_KEY_LENGTH"),
    ],
    ids=["identity", "off-curve", "64-bytes", "prefix-05", "not-hex", "empty"],
)
def test_seal_rejects_a_bad_client_key_before_any_work(client_public_key: str, code: str) -> None:
    error = _seal_error(client_public_key)
    assert error.code == code
    assert SESSION.private_key_bytes().hex() not in error.reason


def _open_error(text: str, client: ewc.KeyPair | bytes = CLIENT) -> ewc.WalletCryptoError:
    with pytest.raises(ewc.WalletCryptoError) as raised:
        ewc.open_session_key(text, client)
    return raised.value


def test_another_client_key_cannot_open() -> None:
    error = _open_error(_sealed(), ewc.KeyPair.generate())
    assert isinstance(error, ewc.DecryptionError)
    assert error.code == "DECRYPTION_FAILED"


def test_every_altered_byte_fails_with_one_generic_error() -> None:
    payload = ewc.b58check_decode(_sealed())
    reasons = set()
    for index in range(len(payload)):
        altered = bytearray(payload)
        altered[index] ^= 0x01
        error = _open_error(_rewrap(bytes(altered)))
        assert isinstance(error, ewc.DecryptionError), index
        reasons.add(error.reason)
    assert len(reasons) == 1, "the reason does not say which part failed"


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda t: t[:-1] + ("2" if t[-1] == "1" else "1"), "INVALID_CHECKSUM"),
        (lambda t: "", "INVALID_CHECKSUM"),
        (lambda t: t[:10] + "0" + t[11:], "INVALID_BASE58"),
        (lambda t: t + "\n", "INVALID_BASE58"),
        (lambda t: " " + t, "INVALID_BASE58"),
        (lambda t: _rewrap(base58.b58decode_check(t)[:-1]), "INVALID_LENGTH"),
        (lambda t: _rewrap(base58.b58decode_check(t) + b"\x00"), "INVALID_LENGTH"),
        (
            lambda t: _rewrap(
                ewc.parse_public_key(base58.b58decode_check(t)[:33])
                + base58.b58decode_check(t)[33:]
            ),
            "INVALID_LENGTH",
        ),
    ],
    ids=[
        "checksum",
        "empty",
        "bad-character",
        "trailing-newline",
        "leading-space",
        "80-bytes",
        "82-bytes",
        "uncompressed-enc",
    ],
)
def test_open_rejects_a_bad_encoding(mutate: object, code: str) -> None:
    error = _open_error(mutate(_sealed()))  # type: ignore[operator]
    assert isinstance(error, ewc.DecodeError)
    assert error.code == code


def test_a_sealed_value_that_is_not_a_scalar_is_an_invalid_key() -> None:
    """An authentic ciphertext whose plaintext is 0 or >= n (a broken server): InvalidKey."""
    for scalar in (bytes(32), b"\xff" * 32):
        enc, ciphertext = ewc.hpke.seal(CLIENT.public_key_bytes(), scalar)
        error = _open_error(_rewrap(ewc.compress_public_key(enc) + ciphertext))
        assert isinstance(error, ewc.InvalidKey)
        assert error.code == "INVALID_PRIVATE_KEY"


def test_open_rejects_a_bad_client_key() -> None:
    with pytest.raises(ewc.InvalidKey):
        ewc.open_session_key(_sealed(), bytes(31))
    with pytest.raises(ewc.InvalidKey):
        ewc.open_session_key(_sealed(), bytes(32))


def test_the_opened_key_reveals_nothing_in_its_repr() -> None:
    opened = ewc.open_session_key(_sealed(), CLIENT)
    assert opened.private_key_bytes().hex() not in repr(opened)
    assert opened.public_key_hex(compressed=True) in repr(opened)


def test_session_key_vectors() -> None:
    """The committed known answers (seal composed deterministically, open, negatives)."""
    report, failures = vectors.verify_file(VECTORS_DIR / "session_key.json")
    assert failures == []
    assert report.cases == report.passed >= 30
