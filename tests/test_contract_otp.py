"""The error contract over ``ewc.otp``: the encrypted-OTP functions and ``OneTimeCodes`` (its
constructor, ``issue`` and ``verify``). Only WalletCryptoError or TypeError escapes, an int is
never a buffer size (see ``tests/_contract.py``)."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests
from embedded_wallet_crypto import otp

TARGET = ewc.KeyPair.from_private_hex("55" * 32)
CLIENT = ewc.KeyPair.from_private_hex("66" * 32)
SIGNER = ewc.KeyPair.from_private_hex("77" * 32)
T0 = 1_700_000_000.0
HASH_KEY = b"k" * 32
TARGET_BUNDLE = otp.seal_target_bundle(
    TARGET.public_key_hex(), organization_id="org", user_id="user", signer=SIGNER
)
SEALED = otp.encrypt_otp_code(
    TARGET_BUNDLE,
    "123456",
    CLIENT.public_key_hex(),
    signer_public_key=SIGNER.public_key_hex(),
    sandbox=False,
)


def _codes(**options: object) -> otp.OneTimeCodes:
    arguments: dict[str, object] = {"hash_key": HASH_KEY, "clock": lambda: T0, "sandbox": False}
    arguments.update(options)
    return otp.OneTimeCodes(otp.MemoryStore(), **arguments)  # type: ignore[arg-type]


def _issue(credential_id: object) -> object:
    return _codes().issue(credential_id)  # type: ignore[arg-type]


def _verify(credential_id: object, code: object) -> object:
    codes = _codes()
    issued = codes.issue("credential")
    given_code = issued.code if code == "issued" else code
    return codes.verify(credential_id, given_code)  # type: ignore[arg-type]


ENTRIES = [
    Entry(
        "otp.seal_target_bundle",
        otp.seal_target_bundle,
        {
            "target_public_key": TARGET.public_key_hex(),
            "organization_id": "org",
            "user_id": "user",
            "signer": SIGNER,
        },
        frozenset({"target_public_key"}),
    ),
    Entry(
        "otp.encrypt_otp_code",
        otp.encrypt_otp_code,
        {
            "target_bundle": TARGET_BUNDLE,
            "otp_code": "123456",
            "client_public_key": CLIENT.public_key_hex(),
            "signer_public_key": SIGNER.public_key_hex(),
            "sandbox": False,
            "organization_id": "org",
            "user_id": "user",
        },
        frozenset({"target_bundle", "client_public_key", "signer_public_key"}),
    ),
    Entry(
        "otp.decrypt_otp_bundle",
        otp.decrypt_otp_bundle,
        {"encrypted_otp_bundle": SEALED, "target_key": TARGET},
        frozenset({"encrypted_otp_bundle", "target_key"}),
    ),
    Entry(
        "otp.OneTimeCodes",
        otp.OneTimeCodes,
        {
            "store": otp.MemoryStore(),
            "hash_key": HASH_KEY,
            "ttl_seconds": 300,
            "max_attempts": 5,
            "min_reissue_interval_seconds": 30,
            "max_issues": 5,
            "issue_window_seconds": 3600,
            "sandbox": False,
        },
        frozenset({"hash_key"}),
    ),
    Entry("OneTimeCodes.issue", _issue, {"credential_id": "credential"}),
    Entry("OneTimeCodes.verify", _verify, {"credential_id": "credential", "code": "issued"}),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
