"""What the signed-retry test files share (loaded by conftest.py as a pytest plugin): the keys,
every operation's exact payload at T0, a settable clock, the ``clock`` and ``retry`` fixtures,
and ``issue``/``answer``/``fails``, which run one leg of the protocol or assert one failure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.signed_retry import (
    Operation,
    SignedRequestChallenge,
    SignedRetry,
    VerifiedRetry,
)

T0 = 1_700_000_000.0  # 2023-11-14T22:13:20Z
ORG = "org-1234"
ACCOUNT = "InternalAccount:acct-1"
CLIENT = ewc.hpke.derive_key_pair(b"signed-retry test client key ikm!")
OTHER_CLIENT = ewc.hpke.derive_key_pair(b"signed-retry test other client k!")
SESSION = ewc.hpke.derive_key_pair(b"signed-retry test session key ikm")
SECOND_SESSION = ewc.hpke.derive_key_pair(b"signed-retry test second session!")
STRANGER = ewc.hpke.derive_key_pair(b"signed-retry test stranger key!!!")
CLIENT_HEX = CLIENT.public_key_hex()
ATTESTATION = {
    "credentialId": "Y3JlZA",
    "clientDataJson": "e30",
    "attestationObject": "o2Nm",
    "transports": ["internal"],
}
DELEGATED_USER = {
    "userName": "Card payments key",
    "apiKeys": [
        {
            "apiKeyName": "Card payments key",
            "publicKey": "02" + "ab" * 32,
            "curveType": "API_KEY_CURVE_P256",
        }
    ],
    "authenticators": [],
    "oauthProviders": [],
    "userTags": [],
}

# (operation, parameters given, bound key?, the exact payloadToSign at T0)
PAYLOADS: list[tuple[Operation, dict[str, Any], bool, str]] = [
    (
        Operation.ADD_OAUTH_CREDENTIAL,
        {"userId": "u1", "oauthProviders": [{"providerName": "google", "oidcToken": "a.b.c"}]},
        False,
        '{"organizationId":"org-1234","parameters":{"oauthProviders":[{"oidcToken":"a.b.c",'
        '"providerName":"google"}],"userId":"u1"},"timestampMs":"1700000000000",'
        '"type":"ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS"}',
    ),
    (
        Operation.ADD_PASSKEY_CREDENTIAL,
        {
            "userId": "u1",
            "authenticators": [
                {
                    "authenticatorName": "laptop",
                    "challenge": "Y2hhbGxlbmdl",
                    "attestation": ATTESTATION,
                    "transports": ["internal", "hybrid"],
                }
            ],
        },
        False,
        '{"organizationId":"org-1234","parameters":{"authenticators":[{"attestation":'
        '{"attestationObject":"o2Nm","clientDataJson":"e30","credentialId":"Y3JlZA",'
        '"transports":["internal"]},"authenticatorName":"laptop","challenge":"Y2hhbGxlbmdl",'
        '"transports":["internal","hybrid"]}],"userId":"u1"},"timestampMs":"1700000000000",'
        '"type":"ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2"}',
    ),
    (
        Operation.ADD_EMAIL_OTP_CREDENTIAL,
        {"userEmail": "a@example.com", "userId": "u1"},
        False,
        '{"organizationId":"org-1234","parameters":{"userEmail":"a@example.com","userId":"u1"},'
        '"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_UPDATE_USER_EMAIL"}',
    ),
    (
        Operation.ADD_SMS_OTP_CREDENTIAL,
        {"userPhoneNumber": "+14155550100", "userId": "u1"},
        False,
        '{"organizationId":"org-1234","parameters":{"userId":"u1","userPhoneNumber":'
        '"+14155550100"},"timestampMs":"1700000000000",'
        '"type":"ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER"}',
    ),
    (
        Operation.REVOKE_CREDENTIAL,
        {"authenticatorIds": ["AuthMethod:2"], "userId": "u1"},
        False,
        '{"organizationId":"org-1234","parameters":{"authenticatorIds":["AuthMethod:2"],'
        '"userId":"u1"},"timestampMs":"1700000000000",'
        '"type":"ACTIVITY_TYPE_DELETE_AUTHENTICATORS"}',
    ),
    (
        Operation.REVOKE_SESSION,
        {"apiKeyIds": ["Session:9"], "userId": "u1"},
        False,
        '{"organizationId":"org-1234","parameters":{"apiKeyIds":["Session:9"],"userId":"u1"},'
        '"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_DELETE_API_KEYS"}',
    ),
    (
        Operation.REFRESH_SESSION,
        {},
        True,
        f'{{"organizationId":"org-1234","parameters":{{"targetPublicKey":"{CLIENT_HEX}"}},'
        '"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"}',
    ),
    (
        Operation.EXPORT_WALLET,
        {"walletId": "Wallet:7"},
        True,
        f'{{"organizationId":"org-1234","parameters":{{"targetPublicKey":"{CLIENT_HEX}",'
        '"walletId":"Wallet:7"},"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_EXPORT_WALLET"}',
    ),
    (
        Operation.EXECUTE_QUOTE,
        {
            "signWith": "0xabc",
            "unsignedTransaction": "02f0",
            "type": "TRANSACTION_TYPE_ETHEREUM",
        },
        False,
        '{"organizationId":"org-1234","parameters":{"signWith":"0xabc","type":'
        '"TRANSACTION_TYPE_ETHEREUM","unsignedTransaction":"02f0"},"timestampMs":'
        '"1700000000000","type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}',
    ),
    (
        Operation.CREATE_DELEGATED_KEY,
        {"users": [DELEGATED_USER]},
        False,
        '{"organizationId":"org-1234","parameters":{"users":[{"apiKeys":[{"apiKeyName":'
        f'"Card payments key","curveType":"API_KEY_CURVE_P256","publicKey":"02{"ab" * 32}"}}],'
        '"authenticators":[],'
        '"oauthProviders":[],"userName":"Card payments key","userTags":[]}]},"timestampMs":'
        '"1700000000000","type":"ACTIVITY_TYPE_CREATE_USERS_V3"}',
    ),
    (
        Operation.ACTIVATE_DELEGATED_KEY,
        {
            "policies": [
                {
                    "policyName": "sign",
                    "effect": "EFFECT_ALLOW",
                    "consensus": "approvers.any(user, user.id == 'u2')",
                    "condition": "wallet.id == 'Wallet:7'",
                }
            ]
        },
        False,
        '{"organizationId":"org-1234","parameters":{"policies":[{"condition":"wallet.id == '
        '\'Wallet:7\'","consensus":"approvers.any(user, user.id == \'u2\')","effect":'
        '"EFFECT_ALLOW","policyName":"sign"}]},"timestampMs":"1700000000000","type":'
        '"ACTIVITY_TYPE_CREATE_POLICIES"}',
    ),
    (
        Operation.REVOKE_DELEGATED_KEY,
        {"userIds": ["u2"]},
        False,
        '{"organizationId":"org-1234","parameters":{"userIds":["u2"]},"timestampMs":'
        '"1700000000000","type":"ACTIVITY_TYPE_DELETE_USERS"}',
    ),
    (
        Operation.UPDATE_INTERNAL_ACCOUNT,
        {
            "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
            "hashFunction": "HASH_FUNCTION_NO_OP",
            "payload": "7ef9478c0e8c11fbfe3e551152a28dbec8a5b0a16d102d18cbcf4dbc6a787da2",
            "signWith": "InternalAccount:1",
        },
        False,
        '{"organizationId":"org-1234","parameters":{"encoding":"PAYLOAD_ENCODING_HEXADECIMAL",'
        '"hashFunction":"HASH_FUNCTION_NO_OP","payload":"7ef9478c0e8c11fbfe3e551152a28dbec8a5b0'
        'a16d102d18cbcf4dbc6a787da2","signWith":"InternalAccount:1"},"timestampMs":'
        '"1700000000000","type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"}',
    ),
]
PARAMETERS = {operation: (parameters, bound) for operation, parameters, bound, _ in PAYLOADS}


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def retry(clock: Clock) -> SignedRetry:
    return SignedRetry(clock=clock)


def issue(retry: SignedRetry, operation: Operation = Operation.EXPORT_WALLET, **extra: Any) -> Any:
    parameters, bound = PARAMETERS[operation]
    arguments: dict[str, Any] = {
        "account_id": ACCOUNT,
        "operation": operation,
        "parameters": parameters,
        "organization_id": ORG,
    }
    if bound:
        arguments["bound_client_public_key"] = CLIENT.public_key_hex()
    arguments.update(extra)
    return retry.issue(**arguments)


def answer(
    retry: SignedRetry,
    challenge: SignedRequestChallenge,
    *,
    key: ewc.KeyPair = SESSION,
    **extra: Any,
) -> VerifiedRetry:
    arguments: dict[str, Any] = {
        "request_id": challenge.request_id,
        "stamp": ewc.create_stamp(challenge.payload_to_sign, key),
        "account_session_keys": [SESSION.public_key_hex(), SECOND_SESSION.public_key_hex()],
    }
    if challenge.operation.binds_client_key:
        arguments["request_body_client_public_key"] = CLIENT.public_key_hex()
    arguments.update(extra)
    return retry.verify(**arguments)


# Every failure of the protocol: its HTTP status and its exception family.
FAILURES: dict[str, tuple[int, type[ewc.WalletCryptoError]]] = {
    "INVALID_PARAMETERS": (400, ewc.SignedRetryError),
    "UNKNOWN_OPERATION": (400, ewc.SignedRetryError),
    "INVALID_POINT": (400, ewc.InvalidKey),
    "INVALID_KEY_ENCODING": (400, ewc.InvalidKey),
    "LAST_CREDENTIAL": (400, ewc.SignedRetryError),
    "REQUEST_ID_MISSING": (401, ewc.SignedRetryError),
    "REQUEST_ID_UNKNOWN": (401, ewc.SignedRetryError),
    "REQUEST_ID_ACCOUNT_MISMATCH": (401, ewc.SignedRetryError),
    "REQUEST_ID_USED": (401, ewc.SignedRetryError),
    "REQUEST_ID_EXPIRED": (401, ewc.SignedRetryError),
    "CLIENT_PUBLIC_KEY_MISMATCH": (401, ewc.SignedRetryError),
    "SESSION_OF_REVOKED_CREDENTIAL": (401, ewc.SignedRetryError),
    "SESSION_CREDENTIAL_UNKNOWN": (401, ewc.SignedRetryError),
    "WALLET_SIGNATURE_MISSING": (401, ewc.StampError),
    "WALLET_SIGNATURE_MALFORMED": (401, ewc.StampError),
    "WALLET_SIGNATURE_INVALID": (401, ewc.StampError),
    "WALLET_SIGNATURE_KEY_MISMATCH": (401, ewc.StampError),
    "STORE_CORRUPT": (500, ewc.SignedRetryError),
}


def fails(call: Callable[[], object], code: str) -> ewc.WalletCryptoError:
    """``call`` raises ``code`` with the status and exception family of ``FAILURES``."""
    status, family = FAILURES[code]
    with pytest.raises(family) as caught:
        call()
    error = caught.value
    assert (error.code, error.status) == (code, status), repr(error)
    assert error.reason and str(error) == error.reason
    return error
