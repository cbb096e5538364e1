"""The error contract over ``ewc.passkeys``: registration, assertion, the session challenge and
the software authenticator. Only WalletCryptoError or TypeError escapes, an int is never a
buffer size (see ``tests/_contract.py``)."""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
from _contract import Entry, contract_tests
from embedded_wallet_crypto import passkeys
from embedded_wallet_crypto.passkeys import SoftwareAuthenticator

RP_ID, ORIGIN = "wallet.example", "https://wallet.example"
KEY = ewc.KeyPair.from_private_hex("aa" * 32)
CLIENT = ewc.KeyPair.from_private_hex("bb" * 32).public_key_hex()
CHALLENGE = b"c" * 32
CREDENTIAL_ID = b"credential-id-16"
BODY = passkeys.session_creation_body(
    client_public_key=CLIENT,
    request_id="req-1",
    organization_id="org",
    account_id="acct",
    timestamp_ms=1_700_000_000_000,
)


def _authenticator() -> SoftwareAuthenticator:
    return SoftwareAuthenticator(KEY, credential_id=CREDENTIAL_ID)


ATTESTATION = _authenticator().register(rp_id=RP_ID, origin=ORIGIN, challenge=CHALLENGE)
COSE_KEY = _authenticator().public_key
ASSERTION = _authenticator().authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=CHALLENGE)
SESSION_ASSERTION = _authenticator().authenticate(
    rp_id=RP_ID, origin=ORIGIN, challenge=passkeys.session_challenge(BODY).encode("ascii")
)


def _register(**changes: Any) -> object:
    arguments = {"rp_id": RP_ID, "origin": ORIGIN, "challenge": CHALLENGE, **changes}
    return _authenticator().register(**arguments)


def _authenticate(**changes: Any) -> object:
    arguments = {"rp_id": RP_ID, "origin": ORIGIN, "challenge": CHALLENGE, **changes}
    return _authenticator().authenticate(**arguments)


ENTRIES = [
    Entry(
        "verify_registration",
        passkeys.verify_registration,
        {
            "attestation": ATTESTATION,
            "expected_challenge": CHALLENGE,
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "require_user_verification": True,
            "require_user_presence": True,
            "supported_algorithms": (-7,),
            "pem_root_certs_by_fmt": None,
        },
        frozenset({"expected_challenge"}),
    ),
    Entry(
        "verify_registration (fields)",
        lambda credential_id, client_data, attestation_object: passkeys.verify_registration(
            {
                **ATTESTATION,
                "credentialId": credential_id,
                "clientDataJson": client_data,
                "attestationObject": attestation_object,
            },
            expected_challenge=CHALLENGE,
            rp_id=RP_ID,
            origin=ORIGIN,
        ),
        {
            "credential_id": ATTESTATION["credentialId"],
            "client_data": ATTESTATION["clientDataJson"],
            "attestation_object": ATTESTATION["attestationObject"],
        },
    ),
    Entry(
        "verify_assertion",
        passkeys.verify_assertion,
        {
            "assertion": ASSERTION,
            "credential_public_key": COSE_KEY,
            "expected_challenge": CHALLENGE,
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "current_sign_count": 0,
            "require_user_verification": True,
            "sandbox": False,
        },
        frozenset({"credential_public_key", "expected_challenge"}),
    ),
    Entry(
        "verify_assertion (fields)",
        lambda credential_id, client_data, authenticator_data, signature: passkeys.verify_assertion(
            {
                **ASSERTION,
                "credentialId": credential_id,
                "clientDataJson": client_data,
                "authenticatorData": authenticator_data,
                "signature": signature,
            },
            credential_public_key=COSE_KEY,
            expected_challenge=CHALLENGE,
            rp_id=RP_ID,
            origin=ORIGIN,
            current_sign_count=0,
        ),
        {
            "credential_id": ASSERTION["credentialId"],
            "client_data": ASSERTION["clientDataJson"],
            "authenticator_data": ASSERTION["authenticatorData"],
            "signature": ASSERTION["signature"],
        },
    ),
    Entry(
        "verify_session_assertion",
        passkeys.verify_session_assertion,
        {
            "assertion": SESSION_ASSERTION,
            "session_creation_body": BODY,
            "request_id": "req-1",
            "credential_public_key": COSE_KEY,
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "current_sign_count": 0,
            "require_user_verification": True,
            "sandbox": False,
        },
        frozenset({"credential_public_key"}),
    ),
    Entry(
        "session_challenge",
        passkeys.session_challenge,
        {"session_creation_body": BODY},
        frozenset({"session_creation_body"}),
    ),
    Entry(
        "session_creation_body",
        passkeys.session_creation_body,
        {
            "client_public_key": CLIENT,
            "request_id": "req-1",
            "organization_id": "org",
            "account_id": "acct",
            "timestamp_ms": 1_700_000_000_000,
        },
        frozenset({"client_public_key"}),
    ),
    Entry(
        "issue_session_challenge",
        passkeys.issue_session_challenge,
        {
            "client_public_key": CLIENT,
            "organization_id": "org",
            "account_id": "acct",
            "request_id": "req-1",
            "timestamp_ms": 1_700_000_000_000,
        },
        frozenset({"client_public_key"}),
    ),
    Entry(
        "SoftwareAuthenticator",
        SoftwareAuthenticator,
        {
            "key": KEY,
            "credential_id": CREDENTIAL_ID,
            "attestation": "packed",
            "aaguid": bytes(16),
            "sign_count": 0,
        },
        frozenset({"credential_id", "aaguid"}),
    ),
    Entry(
        "SoftwareAuthenticator.register",
        _register,
        {
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "challenge": CHALLENGE,
            "user_verified": True,
            "user_present": True,
            "transports": ("internal",),
        },
        frozenset({"challenge"}),
    ),
    Entry(
        "SoftwareAuthenticator.authenticate",
        _authenticate,
        {
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "challenge": CHALLENGE,
            "user_verified": True,
            "user_present": True,
            "user_handle": b"user",
        },
        frozenset({"challenge", "user_handle"}),
    ),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
