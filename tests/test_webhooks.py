"""Webhook signatures (formats.md section 10): header {"v":"1","s":base64(DER)} over the raw body,
verified with an SPKI PEM or DER key; strict about the header, lenient about nothing."""

from __future__ import annotations

import base64
import json
import re

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
BODY = b'{"type":"INCOMING_PAYMENT","transaction":{"id":"Transaction:1","amount":100}}'
MALFORMED = "WEBHOOK_SIGNATURE_MALFORMED"
INVALID = "WEBHOOK_SIGNATURE_INVALID"

# A fixed sender key: with RFC 6979 (_fixed_signature) its signatures are the same on every run,
# so no verdict below depends on a random key or nonce (KeyPair.sign draws a fresh nonce).
SENDER = ewc.hpke.derive_key_pair(b"test_webhooks sender key ikm 001")
_SENDER_PUBLIC = ec.EllipticCurvePublicKey.from_encoded_point(
    ec.SECP256R1(), SENDER.public_key_bytes()
)
PEM = _SENDER_PUBLIC.public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
)
DER = _SENDER_PUBLIC.public_bytes(
    serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
)


def _header(signature: bytes, **extra: object) -> str:
    fields: dict[str, object] = {"v": "1", "s": base64.b64encode(signature).decode(), **extra}
    return json.dumps(fields, separators=(",", ":"))


def _code(header: str, body: bytes = BODY, key: bytes | str = PEM) -> str:
    with pytest.raises(ewc.StampError) as raised:
        ewc.verify_webhook_signature(header, body, key)
    assert raised.value.status == 401
    return raised.value.code


def test_sign_writes_the_compact_header() -> None:
    header = ewc.sign_webhook(BODY, SENDER)
    assert re.fullmatch(r'\{"v":"1","s":"[A-Za-z0-9+/]+={0,2}"\}', header)
    signature = base64.b64decode(json.loads(header)["s"], validate=True)
    _SENDER_PUBLIC.verify(signature, BODY, ec.ECDSA(hashes.SHA256()))  # cryptography agrees


@pytest.mark.parametrize(
    "key", [PEM, PEM.decode(), DER, bytearray(DER), memoryview(PEM)], ids=lambda k: type(k).__name__
)
def test_verify_with_pem_or_der(key: bytes | str) -> None:
    ewc.verify_webhook_signature(ewc.sign_webhook(BODY, SENDER), BODY, key)


@pytest.mark.parametrize("body", [b"", b"x", BODY, bytes(range(256)) * 4])
def test_any_body_bytes(body: bytes) -> None:
    ewc.verify_webhook_signature(ewc.sign_webhook(body, SENDER), bytearray(body), DER)


def test_signatures_made_by_cryptography_verify_high_and_low_s() -> None:
    private = ec.generate_private_key(ec.SECP256R1())
    pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    r, s = decode_dss_signature(private.sign(BODY, ec.ECDSA(hashes.SHA256())))
    for s_value in (s, N - s):
        ewc.verify_webhook_signature(_header(encode_dss_signature(r, s_value)), BODY, pem)


@pytest.mark.parametrize(
    "body",
    [
        BODY + b" ",
        BODY[:-1],
        b"",
        BODY.replace(b"100", b"101"),
        json.dumps(json.loads(BODY)).encode(),
    ],
    ids=["appended", "truncated", "empty", "one-digit", "reserialised"],
)
def test_another_body_is_invalid(body: bytes) -> None:
    assert _code(ewc.sign_webhook(BODY, SENDER), body) == INVALID


def test_another_key_is_invalid() -> None:
    assert _code(ewc.sign_webhook(BODY, ewc.KeyPair.generate())) == INVALID


def _fixed_signature(message: bytes = BODY) -> bytes:
    """SENDER's RFC 6979 signature of ``message``: valid, and the same bytes on every run."""
    private = ec.derive_private_key(
        int.from_bytes(SENDER.private_key_bytes(), "big"), ec.SECP256R1()
    )
    return private.sign(message, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))


def _malformed_headers() -> dict[str, str]:
    # A valid signature whose base64 ends in '=' (DER of 70 or 71 bytes, not 72) and holds a
    # '+' or '/', so that its base64url form is another string than the standard form.
    signature = _fixed_signature()
    good = base64.b64encode(signature).decode()
    url_safe = base64.urlsafe_b64encode(signature).decode()
    assert good.endswith("=") and url_safe != good, "pick another SENDER seed"
    body = signature[2:]
    return {
        "empty": "",
        "not-json": "v=1,s=" + good,
        "array": json.dumps(["1", good]),
        "string": json.dumps(good),
        "missing-s": '{"v":"1"}',
        "missing-v": json.dumps({"s": good}),
        "extra-field": _header(signature, t="1700000000"),
        "version-int": json.dumps({"v": 1, "s": good}),
        "version-2": json.dumps({"v": "2", "s": good}),
        "version-padded": json.dumps({"v": "1 ", "s": good}),
        "duplicate-v": '{"v":"1","v":"1","s":"' + good + '"}',
        "duplicate-s": '{"v":"1","s":"AAAA","s":"' + good + '"}',
        "s-number": '{"v":"1","s":5}',
        "s-unpadded": json.dumps({"v": "1", "s": good.rstrip("=")}),
        "s-base64url": json.dumps({"v": "1", "s": url_safe}),
        "s-whitespace": json.dumps({"v": "1", "s": good[:8] + " " + good[8:]}),
        "s-newline": json.dumps({"v": "1", "s": good + "\n"}),
        "s-non-ascii": json.dumps({"v": "1", "s": good[:-2] + "\u00e9="}, ensure_ascii=False),
        "s-empty": json.dumps({"v": "1", "s": ""}),
        "s-hex": json.dumps({"v": "1", "s": signature.hex()}),
        "s-ber": _header(b"\x30\x81" + bytes([len(body)]) + body),
        "s-trailing-byte": _header(signature + b"\x00"),
        "s-p1363": _header(bytes(64)),
        "deeply-nested": "[" * 5000 + "]" * 5000,
        "too-long": json.dumps({"v": "1", "s": good + "A" * 2000}),
    }


def test_the_fixed_signature_verifies_in_standard_base64() -> None:
    """The malformed variants below damage a header that is valid as written here."""
    ewc.verify_webhook_signature(_header(_fixed_signature()), BODY, PEM)


@pytest.mark.parametrize("variant", list(_malformed_headers()))
def test_malformed_headers(variant: str) -> None:
    assert _code(_malformed_headers()[variant]) == MALFORMED


def test_non_canonical_base64_padding_bits_are_malformed() -> None:
    checked = 0
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for index in range(16):
        body = f"body-{index}".encode()
        encoded = base64.b64encode(_fixed_signature(body)).decode()  # the same on every run
        ewc.verify_webhook_signature(json.dumps({"v": "1", "s": encoded}), body, PEM)
        if encoded.endswith("="):
            last = encoded.rstrip("=")[-1]
            changed = encoded.rstrip("=")[:-1] + alphabet[alphabet.index(last) | 1]
            changed += "=" * (len(encoded) - len(encoded.rstrip("=")))
            assert base64.b64decode(changed) == base64.b64decode(encoded), "same bytes decoded"
            assert _code(json.dumps({"v": "1", "s": changed}), body) == MALFORMED
            checked += 1
    assert checked > 0


def test_whitespace_around_json_tokens_is_fine() -> None:
    encoded = json.loads(ewc.sign_webhook(BODY, SENDER))["s"]
    ewc.verify_webhook_signature(f'{{ "s" : "{encoded}" ,\n "v" : "1" }}', BODY, PEM)


def _key_pem(private: object) -> bytes:
    return private.public_key().public_bytes(  # type: ignore[attr-defined, no-any-return]
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@pytest.mark.parametrize(
    ("key", "code"),
    [
        (_key_pem(ec.generate_private_key(ec.SECP384R1())), "UNSUPPORTED_CURVE"),
        (_key_pem(ec.generate_private_key(ec.SECP256K1())), "UNSUPPORTED_CURVE"),
        (
            _key_pem(rsa.generate_private_key(public_exponent=65537, key_size=2048)),
            "UNSUPPORTED_CURVE",
        ),
        (_key_pem(ed25519.Ed25519PrivateKey.generate()), "UNSUPPORTED_CURVE"),
        (SENDER.public_key_bytes(), "INVALID_KEY_ENCODING"),
        (SENDER.public_key_hex(), "INVALID_KEY_ENCODING"),
        (PEM.replace(b"PUBLIC KEY", b"PRIVATE KEY"), "INVALID_KEY_ENCODING"),
        (b"", "INVALID_KEY_ENCODING"),
        (DER[:-1], "INVALID_KEY_ENCODING"),
    ],
    ids=[
        "p384",
        "secp256k1",
        "rsa",
        "ed25519",
        "raw-sec1",
        "hex",
        "private-label",
        "empty",
        "short-der",
    ],
)
def test_keys_that_are_not_p256_spki_are_invalid(key: bytes | str, code: str) -> None:
    with pytest.raises(ewc.InvalidKey) as raised:
        ewc.verify_webhook_signature(ewc.sign_webhook(BODY, SENDER), BODY, key)
    assert raised.value.code == code


def test_the_key_is_checked_before_the_header() -> None:
    with pytest.raises(ewc.InvalidKey):
        ewc.verify_webhook_signature("not a header", BODY, b"not a key")
