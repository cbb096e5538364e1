"""The error contract over the package's top-level functions (``ewc.__all__``), ``ewc.hpke``
(with its SetupBaseS seam in ``testing``), ``KeyPair`` and the webhooks: only WalletCryptoError
or TypeError escapes, an int is never a buffer size (see ``tests/_contract.py``)."""

from __future__ import annotations

import json

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from embedded_wallet_crypto import hpke, testing

KEY = ewc.KeyPair.from_private_hex("11" * 32)
PUB = KEY.public_key_hex()
SIGNER = ewc.KeyPair.from_private_hex("22" * 32)
SESSION = ewc.KeyPair.from_private_hex("33" * 32)
EPHEMERAL = ewc.KeyPair.from_private_hex("44" * 32)
STAMP = ewc.create_stamp("payload", KEY)
SEALED_SESSION = ewc.seal_session_key(PUB, SESSION)
BUNDLE = ewc.seal_export_bundle(PUB, b"\x01" * 32, organization_id="org", signer=SIGNER)
BINDING = json.dumps({"parameters": {"targetPublicKey": PUB}})
ENC, CIPHERTEXT = hpke.seal_deterministic_for_tests(
    PUB, b"plaintext", ephemeral_key=EPHEMERAL, info=b"info", aad=b"aad"
)
SIGNATURE = KEY.sign(b"message")
WEBHOOK_HEADER = ewc.sign_webhook(b"body", KEY)
WEBHOOK_KEY_PEM = ec.EllipticCurvePublicKey.from_encoded_point(
    ec.SECP256R1(), KEY.public_key_bytes()
).public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _sender_seal(aad: object, plaintext: object) -> object:
    _, context = testing.setup_sender_deterministic_for_tests(PUB, ephemeral_key=EPHEMERAL)
    return context.seal(aad, plaintext)  # type: ignore[arg-type]


def _receiver_open(aad: object, ciphertext: object) -> object:
    enc, sender = testing.setup_sender_deterministic_for_tests(PUB, ephemeral_key=EPHEMERAL)
    sealed = sender.seal(b"aad", b"plaintext")
    receiver = hpke.setup_receiver(KEY, enc)
    return receiver.open(aad, sealed if ciphertext == "sealed" else ciphertext)  # type: ignore[arg-type]


def _export(exporter_context: object, length: object) -> object:
    _, context = testing.setup_sender_deterministic_for_tests(PUB, ephemeral_key=EPHEMERAL)
    return context.export(exporter_context, length)  # type: ignore[arg-type]


ENTRIES = [
    Entry("b58encode", ewc.b58encode, {"data": b"\x00ab"}, frozenset({"data"})),
    Entry("b58decode", ewc.b58decode, {"text": "1Ldp"}),
    Entry("b58check_encode", ewc.b58check_encode, {"data": b"ab"}, frozenset({"data"})),
    Entry("b58check_decode", ewc.b58check_decode, {"text": ewc.b58check_encode(b"ab")}),
    Entry("parse_public_key", ewc.parse_public_key, {"key": PUB}, frozenset({"key"})),
    Entry("compress_public_key", ewc.compress_public_key, {"key": PUB}, frozenset({"key"})),
    Entry(
        "create_stamp",
        ewc.create_stamp,
        {"payload": "payload", "key": KEY},
        frozenset({"payload"}),
    ),
    Entry(
        "verify_stamp",
        ewc.verify_stamp,
        {"stamp": STAMP, "payload": "payload", "expected_public_key": PUB, "sandbox": False},
        frozenset({"payload", "expected_public_key"}),
    ),
    Entry(
        "Stamp.signer_among",
        ewc.verify_stamp(STAMP, "payload").signer_among,
        {"candidate_public_keys": [PUB]},
    ),
    Entry(
        "verify_stamps",
        ewc.verify_stamps,
        {"stamps": [STAMP], "payloads": ["payload"], "expected_public_keys": [PUB]},
    ),
    Entry(
        "verify_stamps (elements)",
        lambda stamp, payload, key: ewc.verify_stamps([stamp], [payload], [key]),
        {"stamp": STAMP, "payload": b"payload", "key": PUB},
        frozenset({"payload", "key"}),
    ),
    Entry(
        "check_payload_binding",
        ewc.check_payload_binding,
        {"payload_to_sign": BINDING, "client_public_key": PUB},
        frozenset({"payload_to_sign", "client_public_key"}),
    ),
    Entry(
        "verify_signature",
        ewc.verify_signature,
        {"public_key": PUB, "message": b"message", "signature_der": SIGNATURE},
        frozenset({"public_key", "message", "signature_der"}),
    ),
    Entry(
        "seal_session_key",
        ewc.seal_session_key,
        {"client_public_key": PUB, "session_key": SESSION},
        frozenset({"client_public_key"}),
    ),
    Entry(
        "open_session_key",
        ewc.open_session_key,
        {"encrypted_session_signing_key": SEALED_SESSION, "client_key": KEY},
        frozenset({"client_key"}),
    ),
    Entry(
        "seal_export_bundle",
        ewc.seal_export_bundle,
        {
            "client_public_key": PUB,
            "secret": b"\x01" * 32,
            "organization_id": "org",
            "signer": SIGNER,
        },
        frozenset({"client_public_key", "secret"}),
    ),
    Entry(
        "open_export_bundle",
        ewc.open_export_bundle,
        {
            "bundle": BUNDLE,
            "client_key": KEY,
            "organization_id": "org",
            "signer_public_key": SIGNER.public_key_hex(),
            "sandbox": False,
        },
        frozenset({"bundle", "client_key", "signer_public_key"}),
    ),
    Entry(
        "set_default_environment",
        ewc.set_default_environment,
        {"environment": ewc.Environment.PRODUCTION},
    ),
    Entry("KeyPair.from_private_hex", ewc.KeyPair.from_private_hex, {"private_key_hex": "11" * 32}),
    Entry(
        "KeyPair.from_private_bytes",
        ewc.KeyPair.from_private_bytes,
        {"private_key": b"\x11" * 32},
        frozenset({"private_key"}),
    ),
    Entry(
        "KeyPair.sign", lambda message: KEY.sign(message), {"message": b"m"}, frozenset({"message"})
    ),
    Entry(
        "KeyPair.public_key_bytes",
        lambda compressed: KEY.public_key_bytes(compressed),
        {"compressed": True},
    ),
    Entry("sign_webhook", ewc.sign_webhook, {"body": b"body", "key": KEY}, frozenset({"body"})),
    Entry(
        "verify_webhook_signature",
        ewc.verify_webhook_signature,
        {"header": WEBHOOK_HEADER, "body": b"body", "public_key_pem_or_der": WEBHOOK_KEY_PEM},
        frozenset({"body", "public_key_pem_or_der"}),
    ),
    # ewc.hpke
    Entry("hpke.derive_key_pair", hpke.derive_key_pair, {"ikm": b"i" * 32}, frozenset({"ikm"})),
    Entry(
        "hpke.seal",
        hpke.seal,
        {"recipient_public_key": PUB, "plaintext": b"p", "info": b"info", "aad": b"aad"},
        frozenset({"recipient_public_key", "plaintext", "info", "aad"}),
    ),
    Entry(
        "hpke.seal_deterministic_for_tests",
        hpke.seal_deterministic_for_tests,
        {
            "recipient_public_key": PUB,
            "plaintext": b"p",
            "ephemeral_key": EPHEMERAL,
            "info": b"info",
            "aad": b"aad",
        },
        frozenset({"recipient_public_key", "plaintext", "info", "aad"}),
    ),
    Entry(
        "hpke.open",
        hpke.open,
        {
            "recipient_key": KEY,
            "enc": ENC,
            "ciphertext": CIPHERTEXT,
            "info": b"info",
            "aad": b"aad",
        },
        frozenset({"recipient_key", "enc", "ciphertext", "info", "aad"}),
    ),
    Entry(
        "hpke.setup_sender",
        hpke.setup_sender,
        {"recipient_public_key": PUB, "info": b"info", "aead": hpke.AEAD_AES_256_GCM},
        frozenset({"recipient_public_key", "info"}),
    ),
    Entry(
        "testing.setup_sender_deterministic_for_tests",
        testing.setup_sender_deterministic_for_tests,
        {"recipient_public_key": PUB, "ephemeral_key": EPHEMERAL, "info": b"info"},
        frozenset({"recipient_public_key", "info"}),
    ),
    Entry(
        "hpke.setup_receiver",
        hpke.setup_receiver,
        {"recipient_key": KEY, "enc": ENC, "info": b"info", "aead": hpke.AEAD_AES_256_GCM},
        frozenset({"recipient_key", "enc", "info"}),
    ),
    Entry(
        "hpke.Context.seal",
        _sender_seal,
        {"aad": b"aad", "plaintext": b"p"},
        frozenset({"aad", "plaintext"}),
    ),
    Entry(
        "hpke.Context.open",
        _receiver_open,
        {"aad": b"aad", "ciphertext": "sealed"},
        frozenset({"aad"}),
    ),
    Entry(
        "hpke.Context.export",
        _export,
        {"exporter_context": b"ctx", "length": 32},
        frozenset({"exporter_context"}),
    ),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
