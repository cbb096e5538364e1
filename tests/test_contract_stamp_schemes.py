"""The error contract over the stamp schemes beyond P-256 (formats.md section 15): the two key
pair classes, ``create_stamp`` with them and with a StampSigner (whose answers are the hostile
values too), ``verify_stamp`` / ``verify_stamps`` with ``schemes=``, ``der_to_p1363`` and
``p1363_to_der``. Only WalletCryptoError or TypeError escapes (see ``tests/_contract.py``)."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests

K1 = ewc.Secp256k1KeyPair.from_private_bytes(b"\x11" * 32)
ED = ewc.Ed25519KeyPair.from_private_bytes(b"\x22" * 32)
P256 = ewc.KeyPair.from_private_hex("33" * 32)
ALL = [ewc.STAMP_SCHEME_P256, ewc.STAMP_SCHEME_SECP256K1, ewc.STAMP_SCHEME_ED25519]
K1_STAMP = ewc.create_stamp("payload", K1)
ED_STAMP = ewc.create_stamp("payload", ED)
DER = P256.sign(b"message")


class Signer:
    """A StampSigner whose answers are the entry's arguments."""

    def __init__(self, scheme: object, public_key: object, signature: object) -> None:
        self.scheme, self._public_key, self._signature = scheme, public_key, signature

    def public_key_hex(self) -> object:
        return self._public_key

    def sign(self, message: bytes) -> object:
        return self._signature


ENTRIES = [
    Entry(
        "Secp256k1KeyPair.from_private_bytes",
        ewc.Secp256k1KeyPair.from_private_bytes,
        {"private_key": b"\x11" * 32},
        frozenset({"private_key"}),
    ),
    Entry(
        "Ed25519KeyPair.from_private_bytes",
        ewc.Ed25519KeyPair.from_private_bytes,
        {"private_key": b"\x22" * 32},
        frozenset({"private_key"}),
    ),
    Entry(
        "Secp256k1KeyPair.sign",
        lambda message: K1.sign(message),
        {"message": b"m"},
        frozenset({"message"}),
    ),
    Entry(
        "Ed25519KeyPair.sign",
        lambda message: ED.sign(message),
        {"message": b"m"},
        frozenset({"message"}),
    ),
    Entry(
        "create_stamp (secp256k1)",
        ewc.create_stamp,
        {"payload": "payload", "key": K1},
        frozenset({"payload"}),
    ),
    Entry(
        "create_stamp (ed25519)",
        ewc.create_stamp,
        {"payload": b"payload", "key": ED},
        frozenset({"payload"}),
    ),
    Entry(
        "create_stamp (StampSigner answers)",
        lambda payload, scheme, public_key, signature: ewc.create_stamp(
            payload,
            Signer(scheme, public_key, signature),  # type: ignore[arg-type]
        ),
        {
            "payload": b"payload",
            "scheme": ewc.STAMP_SCHEME_ED25519,
            "public_key": ED.public_key_hex(),
            "signature": ED.sign(b"payload"),
        },
        frozenset({"payload"}),
    ),
    Entry(
        "verify_stamp (schemes)",
        ewc.verify_stamp,
        {
            "stamp": K1_STAMP,
            "payload": "payload",
            "expected_public_key": K1.public_key_hex(),
            "sandbox": False,
            "schemes": ALL,
        },
        frozenset({"payload", "expected_public_key"}),
    ),
    Entry(
        "verify_stamp (ed25519 expected key)",
        lambda stamp, key: ewc.verify_stamp(
            stamp, b"payload", expected_public_key=key, schemes=ALL
        ),
        {"stamp": ED_STAMP, "key": ED.public_key_bytes()},
        frozenset({"key"}),
    ),
    Entry(
        "verify_stamps (schemes)",
        ewc.verify_stamps,
        {
            "stamps": [K1_STAMP, ED_STAMP],
            "payloads": ["payload", b"payload"],
            "expected_public_keys": [K1.public_key_hex(), None],
            "schemes": ALL,
        },
    ),
    Entry(
        "verify_stamps (scheme names)",
        lambda name: ewc.verify_stamps([K1_STAMP], ["payload"], schemes=[name]),
        {"name": ewc.STAMP_SCHEME_SECP256K1},
    ),
    Entry("der_to_p1363", ewc.der_to_p1363, {"signature": DER}, frozenset({"signature"})),
    Entry(
        "p1363_to_der",
        ewc.p1363_to_der,
        {"signature": ewc.der_to_p1363(DER)},
        frozenset({"signature"}),
    ),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
