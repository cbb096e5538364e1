"""The error contract over ``ewc.otp``: the encrypted-OTP functions, ``OneTimeCodes`` (its
constructor, ``issue`` and ``verify``) and ``OtpLogin`` (its constructor and both legs). Only
WalletCryptoError or TypeError escapes, an int is never a buffer size (see
``tests/_contract.py``)."""

from __future__ import annotations

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests
from embedded_wallet_crypto import otp, signed_retry

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


SANDBOX_SEALED = otp.encrypt_otp_code(
    TARGET_BUNDLE,
    otp.SANDBOX_CODE,
    CLIENT.public_key_hex(),
    signer_public_key=SIGNER.public_key_hex(),
    sandbox=False,
)
LOGIN_LEG_ONE: dict[str, object] = {
    "encrypted_otp_bundle": SANDBOX_SEALED,
    "target_key": TARGET,
    "credential_id": "credential",
    "account_id": "account",
    "organization_id": "org",
    "contact": "user@example.com",
}


def _login() -> otp.OtpLogin:
    codes = _codes(sandbox=True)  # the sandbox code: no code to learn from the store
    retries = signed_retry.SignedRetry(codes.store, clock=lambda: T0)  # type: ignore[arg-type]
    return otp.OtpLogin(codes=codes, signed_retry=retries, token_signer=SIGNER)


def _accept_code(**arguments: object) -> object:
    return _login().accept_code(**arguments)  # type: ignore[arg-type]


def _complete(**arguments: object) -> object:
    login = _login()
    answer = login.accept_code(**LOGIN_LEG_ONE)  # type: ignore[arg-type]
    given = dict(arguments)
    if given.get("request_id") == "issued":
        given["request_id"] = answer.challenge.request_id
    if given.get("stamp") == "stamped":
        given["stamp"] = ewc.create_stamp(answer.verification_token, CLIENT)
    return login.complete(**given)  # type: ignore[arg-type]


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
    Entry(
        "OtpLogin",
        otp.OtpLogin,
        {
            "codes": _codes(),
            "signed_retry": signed_retry.SignedRetry(),
            "token_signer": SIGNER,
            "verification_type": "OTP_TYPE_EMAIL",
        },
    ),
    Entry(
        "OtpLogin.accept_code",
        _accept_code,
        dict(LOGIN_LEG_ONE),
        frozenset({"encrypted_otp_bundle", "target_key"}),
    ),
    Entry(
        "OtpLogin.complete",
        _complete,
        {"request_id": "issued", "stamp": "stamped", "account_id": "account"},
    ),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
