"""ewc.signed_retry: the payloads of every operation and every rule of the two-step protocol,
each failure with its code and HTTP status (MemoryStore; tests/test_stores.py covers the
shared stores, their restarts and the cross-process claim race)."""

from __future__ import annotations

import copy
import json
import re
import threading
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import VECTORS_DIR
from embedded_wallet_crypto import vectors
from embedded_wallet_crypto.signed_retry import (
    ChallengeRecord,
    MemoryStore,
    Operation,
    SignedRequestChallenge,
    SignedRetry,
    VerifiedRetry,
    ensure_credential_remains,
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


# --- leg one: payloads ----------------------------------------------------------------------


@pytest.mark.parametrize(("operation", "parameters", "bound", "payload"), PAYLOADS)
def test_issue_builds_the_exact_payload(
    retry: SignedRetry, operation: Operation, parameters: Any, bound: bool, payload: str
) -> None:
    challenge = issue(retry, operation)
    assert challenge.payload_to_sign == payload
    body = json.loads(payload)
    assert list(body) == ["organizationId", "parameters", "timestampMs", "type"]
    assert body["type"] == operation.activity_type
    assert json.dumps(body, separators=(",", ":"), sort_keys=True) == payload
    assert operation.binds_client_key is bound


@pytest.mark.parametrize("operation", list(Operation))
def test_challenge_fields(retry: SignedRetry, operation: Operation) -> None:
    challenge = issue(retry, operation)
    match = re.fullmatch(r"Request:([0-9a-f-]{36})", challenge.request_id)
    assert match is not None and uuid.UUID(match.group(1)).version == 4
    issued = datetime.fromtimestamp(T0, tz=timezone.utc)
    assert challenge.expires_at == issued + timedelta(seconds=300)
    assert challenge.expires_at.tzinfo is timezone.utc
    fixed = {
        "ADD_OAUTH": "OAUTH",
        "ADD_PASSKEY": "PASSKEY",
        "ADD_EMAIL_OTP": "EMAIL_OTP",
        "ADD_SMS_OTP": "SMS_OTP",
    }
    expected_type = next((t for p, t in fixed.items() if operation.name.startswith(p)), None)
    assert challenge.type == expected_type
    response = challenge.to_response()
    assert response["expiresAt"] == "2023-11-14T22:18:20.000Z"
    assert (response["payloadToSign"], response["requestId"]) == (
        challenge.payload_to_sign,
        challenge.request_id,
    )
    assert response.get("type") == expected_type


def test_request_ids_are_fresh(retry: SignedRetry) -> None:
    ids = {issue(retry).request_id for _ in range(50)}
    assert len(ids) == 50


def test_ttl_and_clock_are_honoured(clock: Clock) -> None:
    clock.now = T0 + 0.1234
    retry = SignedRetry(ttl_seconds=60, clock=clock)
    challenge = issue(retry)
    assert json.loads(challenge.payload_to_sign)["timestampMs"] == "1700000000123"
    assert challenge.expires_at == datetime.fromtimestamp(T0 + 60.123, tz=timezone.utc)


@pytest.mark.parametrize("ttl", [0, -1])
def test_ttl_must_be_positive(ttl: float) -> None:
    fails(lambda: SignedRetry(ttl_seconds=ttl), "INVALID_PARAMETERS")


def test_credential_type_of_revocations(retry: SignedRetry) -> None:
    challenge = issue(retry, Operation.REVOKE_SESSION, credential_type="PASSKEY")
    assert challenge.type == "PASSKEY" and challenge.to_response()["type"] == "PASSKEY"
    assert issue(retry, Operation.ADD_OAUTH_CREDENTIAL, credential_type="OAUTH").type == "OAUTH"
    for wrong in ("PASSWORD", "oauth"):
        fails(
            lambda: issue(retry, Operation.REVOKE_CREDENTIAL, credential_type=wrong),  # noqa: B023
            "INVALID_PARAMETERS",
        )
    fails(
        lambda: issue(retry, Operation.ADD_OAUTH_CREDENTIAL, credential_type="PASSKEY"),
        "INVALID_PARAMETERS",
    )


def test_operation_by_name(retry: SignedRetry) -> None:
    challenge = issue(retry, operation="EXPORT_WALLET")  # type: ignore[arg-type]
    assert challenge.operation is Operation.EXPORT_WALLET
    for unknown in ("export_wallet", "DELETE_EVERYTHING", 7):
        fails(
            lambda: retry.issue(
                account_id=ACCOUNT,
                operation=unknown,  # type: ignore[arg-type]  # noqa: B023
                parameters={},
                organization_id=ORG,
            ),
            "UNKNOWN_OPERATION",
        )


MISSING = [(op, name) for op, params, _, _ in PAYLOADS for name in params]


@pytest.mark.parametrize(("operation", "name"), MISSING)
def test_each_required_parameter(retry: SignedRetry, operation: Operation, name: str) -> None:
    parameters = dict(PARAMETERS[operation][0])
    del parameters[name]
    error = fails(lambda: issue(retry, operation, parameters=parameters), "INVALID_PARAMETERS")
    assert f"parameters.{name}" in error.reason


@pytest.mark.parametrize(
    ("operation", "parameters"),
    [
        (Operation.ADD_EMAIL_OTP_CREDENTIAL, {"userEmail": "", "userId": "u1"}),
        (Operation.ADD_EMAIL_OTP_CREDENTIAL, {"userEmail": 5, "userId": "u1"}),
        (Operation.ADD_EMAIL_OTP_CREDENTIAL, {"userEmail": "a@b", "userId": "u1", "x": 1}),
        (Operation.REVOKE_CREDENTIAL, {"authenticatorIds": [], "userId": "u1"}),
        (Operation.REVOKE_CREDENTIAL, {"authenticatorIds": "AuthMethod:2", "userId": "u1"}),
        (Operation.REVOKE_SESSION, {"apiKeyIds": ["ok", ""], "userId": "u1"}),
        (Operation.ADD_OAUTH_CREDENTIAL, {"oauthProviders": [{"oidcToken": "t"}], "userId": "u"}),
        (Operation.ADD_OAUTH_CREDENTIAL, {"oauthProviders": ["t"], "userId": "u"}),
        (Operation.EXECUTE_QUOTE, {"signWith": "a", "unsignedTransaction": b"\x02", "type": "t"}),
        (Operation.EXPORT_WALLET, {"walletId": "w", "targetPublicKey": "04" + "00" * 64}),
        (Operation.ADD_PASSKEY_CREDENTIAL, ["not", "a", "mapping"]),
    ],
)
def test_malformed_parameters(retry: SignedRetry, operation: Operation, parameters: Any) -> None:
    fails(lambda: issue(retry, operation, parameters=parameters), "INVALID_PARAMETERS")


def test_values_that_are_not_json(retry: SignedRetry) -> None:
    attestation = {**ATTESTATION, "extra": b"raw bytes"}
    authenticators = [
        {"attestation": attestation, "authenticatorName": "n", "challenge": "c", "transports": []}
    ]
    for value in (attestation, {**ATTESTATION, "nan": float("nan")}, {1: "int key", "a": 2}):
        authenticators[0]["attestation"] = value
        fails(
            lambda: issue(
                retry,
                Operation.ADD_PASSKEY_CREDENTIAL,
                parameters={"authenticators": authenticators, "userId": "u"},
            ),
            "INVALID_PARAMETERS",
        )


@pytest.mark.parametrize("field", ["account_id", "organization_id"])
@pytest.mark.parametrize("value", ["", None, 5])
def test_account_and_organization_are_required(retry: SignedRetry, field: str, value: Any) -> None:
    fails(lambda: issue(retry, **{field: value}), "INVALID_PARAMETERS")


@pytest.mark.parametrize("operation", [Operation.EXPORT_WALLET, Operation.REFRESH_SESSION])
def test_export_and_refresh_bind_the_client_key(retry: SignedRetry, operation: Operation) -> None:
    given = CLIENT.public_key_hex().upper()
    challenge = issue(retry, operation, bound_client_public_key=given)
    target = json.loads(challenge.payload_to_sign)["parameters"]["targetPublicKey"]
    assert target == given.lower()
    ewc.check_payload_binding(challenge.payload_to_sign, CLIENT.public_key_hex())
    compressed = CLIENT.public_key_hex(compressed=True)
    challenge = issue(retry, operation, bound_client_public_key=compressed)
    assert json.loads(challenge.payload_to_sign)["parameters"]["targetPublicKey"] == compressed
    as_bytes = issue(retry, operation, bound_client_public_key=CLIENT.public_key_bytes())
    assert CLIENT.public_key_hex() in as_bytes.payload_to_sign
    fails(lambda: issue(retry, operation, bound_client_public_key=None), "INVALID_PARAMETERS")
    fails(
        lambda: issue(retry, operation, bound_client_public_key="04" + "00" * 64), "INVALID_POINT"
    )


def test_other_operations_bind_no_key(retry: SignedRetry) -> None:
    fails(
        lambda: issue(
            retry, Operation.REVOKE_SESSION, bound_client_public_key=CLIENT.public_key_hex()
        ),
        "INVALID_PARAMETERS",
    )


# --- leg two: the rules ---------------------------------------------------------------------


@pytest.mark.parametrize("operation", list(Operation))
def test_each_operation_verifies_once(retry: SignedRetry, operation: Operation) -> None:
    adds = operation.name.startswith("ADD_")
    challenge = issue(retry, operation, credential_type=None if adds else "EMAIL_OTP")
    sessions = {SESSION.public_key_hex(): "AuthMethod:1"}
    verified = answer(retry, challenge, account_session_keys=sessions, account_id=ACCOUNT)
    assert verified.request_id == challenge.request_id
    assert verified.account_id == ACCOUNT and verified.operation is operation
    assert verified.type == challenge.type
    assert verified.payload_to_sign == challenge.payload_to_sign
    assert verified.parameters == json.loads(challenge.payload_to_sign)["parameters"]
    assert verified.session_public_key == SESSION.public_key_hex(compressed=True)
    assert verified.session_credential_id == "AuthMethod:1"
    expected_bound = CLIENT.public_key_hex() if operation.binds_client_key else None
    assert verified.bound_client_public_key == expected_bound
    fails(lambda: answer(retry, challenge, account_session_keys=sessions), "REQUEST_ID_USED")


def test_stamp_without_request_id(retry: SignedRetry) -> None:
    challenge = issue(retry)
    for missing in (None, ""):
        fails(
            lambda: answer(retry, challenge, request_id=missing),  # noqa: B023
            "REQUEST_ID_MISSING",
        )
    answer(retry, challenge)  # the id was not consumed


def test_request_id_without_stamp(retry: SignedRetry) -> None:
    challenge = issue(retry)
    for missing in (None, ""):
        fails(
            lambda: answer(retry, challenge, stamp=missing),  # noqa: B023
            "WALLET_SIGNATURE_MISSING",
        )
    fails(lambda: answer(retry, challenge, stamp=None, request_id=None), "WALLET_SIGNATURE_MISSING")
    answer(retry, challenge)


@pytest.mark.parametrize("request_id", ["Request:" + str(uuid.UUID(int=0)), "x" * 10_000])
def test_unknown_request_id(retry: SignedRetry, request_id: str) -> None:
    challenge = issue(retry)
    fails(lambda: answer(retry, challenge, request_id=request_id), "REQUEST_ID_UNKNOWN")


def test_expiry_is_exclusive(retry: SignedRetry, clock: Clock) -> None:
    late, on_time = issue(retry), issue(retry)
    clock.now = T0 + 300
    fails(lambda: answer(retry, late), "REQUEST_ID_EXPIRED")
    clock.now = T0 + 299.999
    answer(retry, on_time)
    clock.now = T0 + 10_000
    fails(lambda: answer(retry, on_time), "REQUEST_ID_USED")


def test_signature_over_other_bytes_is_rejected_without_consuming(retry: SignedRetry) -> None:
    challenge = issue(retry)
    payload = challenge.payload_to_sign
    changed = [
        payload.replace("org-1234", "org-1235"),
        payload.replace(",", ", ", 1),
        json.dumps(json.loads(payload)),
        payload + "\n",
    ]
    for other in changed:
        stamp = ewc.create_stamp(other, SESSION)
        fails(
            lambda: answer(retry, challenge, stamp=stamp),  # noqa: B023
            "WALLET_SIGNATURE_INVALID",
        )
    fails(lambda: answer(retry, challenge, stamp="not a stamp"), "WALLET_SIGNATURE_MALFORMED")
    assert answer(retry, challenge).request_id == challenge.request_id


def test_stamp_key_must_be_an_active_session_of_the_account(retry: SignedRetry) -> None:
    challenge = issue(retry)
    fails(lambda: answer(retry, challenge, key=STRANGER), "WALLET_SIGNATURE_KEY_MISMATCH")
    fails(
        lambda: answer(retry, challenge, account_session_keys=[]), "WALLET_SIGNATURE_KEY_MISMATCH"
    )
    assert answer(retry, challenge, key=SECOND_SESSION).session_public_key == (
        SECOND_SESSION.public_key_hex(compressed=True)
    )


@pytest.mark.parametrize(
    "sessions",
    [
        [SESSION.public_key_hex()],
        [SESSION.public_key_hex(compressed=True)],
        [SESSION.public_key_hex().upper()],
        [SESSION.public_key_bytes()],
        (key for key in [STRANGER.public_key_hex(), SESSION.public_key_hex()]),
        SESSION.public_key_hex(),
        {SESSION.public_key_hex(compressed=True).upper(): None},
    ],
    ids=["uncompressed", "compressed", "upper", "bytes", "generator", "one-string", "mapping"],
)
def test_session_keys_in_any_encoding(retry: SignedRetry, sessions: Any) -> None:
    answer(retry, issue(retry), account_session_keys=sessions)


def test_malformed_session_key_is_the_callers_error(retry: SignedRetry) -> None:
    challenge = issue(retry)
    fails(lambda: answer(retry, challenge, account_session_keys=["zz"]), "INVALID_KEY_ENCODING")


def test_request_id_of_another_account(retry: SignedRetry) -> None:
    challenge = issue(retry)
    fails(
        lambda: answer(retry, challenge, account_id="InternalAccount:other"),
        "REQUEST_ID_ACCOUNT_MISMATCH",
    )
    answer(retry, challenge, account_id=ACCOUNT)


@pytest.mark.parametrize("operation", [Operation.EXPORT_WALLET, Operation.REFRESH_SESSION])
def test_bound_client_key_must_not_change(retry: SignedRetry, operation: Operation) -> None:
    challenge = issue(retry, operation)
    for swapped in (OTHER_CLIENT.public_key_hex(), None, "04" + "00" * 64, "nonsense"):
        fails(
            lambda: answer(
                retry,
                challenge,
                request_body_client_public_key=swapped,  # noqa: B023
            ),
            "CLIENT_PUBLIC_KEY_MISMATCH",
        )
    same_key = CLIENT.public_key_hex(compressed=True).upper()
    answer(retry, challenge, request_body_client_public_key=same_key)


def test_client_key_is_ignored_where_nothing_is_bound(retry: SignedRetry) -> None:
    challenge = issue(retry, Operation.REVOKE_SESSION)
    answer(retry, challenge, request_body_client_public_key=OTHER_CLIENT.public_key_hex())


def test_revoking_a_credential_needs_a_session_of_another_credential(retry: SignedRetry) -> None:
    challenge = issue(retry, Operation.REVOKE_CREDENTIAL)  # revokes AuthMethod:2
    sessions = {
        SESSION.public_key_hex(): "AuthMethod:1",
        SECOND_SESSION.public_key_hex(): "AuthMethod:2",
    }
    fails(
        lambda: answer(retry, challenge, key=SECOND_SESSION, account_session_keys=sessions),
        "SESSION_OF_REVOKED_CREDENTIAL",
    )
    for unknown in ([SESSION.public_key_hex()], {SESSION.public_key_hex(): None}):
        fails(
            lambda: answer(retry, challenge, account_session_keys=unknown),  # noqa: B023
            "SESSION_CREDENTIAL_UNKNOWN",
        )
    verified = answer(retry, challenge, account_session_keys=sessions)
    assert verified.session_credential_id == "AuthMethod:1"
    assert verified.parameters["authenticatorIds"] == ["AuthMethod:2"]


def test_revoking_a_session_may_use_any_session_of_the_account(retry: SignedRetry) -> None:
    challenge = issue(retry, Operation.REVOKE_SESSION)
    answer(retry, challenge, key=SECOND_SESSION)


def test_sandbox_stamp_only_in_sandbox(clock: Clock) -> None:
    production = SignedRetry(clock=clock)
    challenge = issue(production)
    fails(
        lambda: answer(production, challenge, stamp="sandbox-valid-signature"),
        "WALLET_SIGNATURE_MALFORMED",
    )
    sandbox = SignedRetry(clock=clock, sandbox=True)
    challenge = issue(sandbox)
    verified = answer(sandbox, challenge, stamp="sandbox-valid-signature")
    assert verified.session_public_key == "" and verified.session_credential_id is None
    fails(lambda: answer(sandbox, challenge, stamp="sandbox-valid-signature"), "REQUEST_ID_USED")


@pytest.mark.parametrize(("operation", "payload"), [("NOPE", "{}"), ("EXPORT_WALLET", "[1]")])
def test_a_corrupt_record_is_a_store_error(operation: str, payload: str) -> None:
    store = MemoryStore()
    retry = SignedRetry(store)
    store.put(ChallengeRecord("Request:x", ACCOUNT, operation, None, payload, None, 2**53), 60)
    fails(
        lambda: retry.verify(
            request_id="Request:x",
            stamp=ewc.create_stamp(payload, SESSION),
            account_session_keys=[SESSION.public_key_hex()],
        ),
        "STORE_CORRUPT",
    )


def test_memory_store_forgets_late_and_only_late() -> None:
    monotonic = Clock()
    store = MemoryStore(clock=monotonic)
    retry = SignedRetry(store, ttl_seconds=10, keep_expired_seconds=5, clock=Clock())
    first = issue(retry)
    monotonic.now += 14.9
    issue(retry)
    assert store.get(first.request_id) is not None
    monotonic.now += 0.2
    issue(retry)
    assert store.get(first.request_id) is None and len(store) == 2


def test_threads_race_for_one_request_id(retry: SignedRetry) -> None:
    rounds, threads = 200, 8
    challenges = [issue(retry) for _ in range(rounds)]
    stamps = [ewc.create_stamp(c.payload_to_sign, SESSION) for c in challenges]
    wins = [0] * rounds
    codes: list[str] = []
    barrier = threading.Barrier(threads)
    lock = threading.Lock()

    def contend() -> None:
        for index, (challenge, stamp) in enumerate(zip(challenges, stamps, strict=True)):
            barrier.wait()
            try:
                answer(retry, challenge, stamp=stamp)
                with lock:
                    wins[index] += 1
            except ewc.WalletCryptoError as error:
                with lock:
                    codes.append(error.code)

    workers = [threading.Thread(target=contend) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert wins == [1] * rounds
    assert codes == ["REQUEST_ID_USED"] * (rounds * (threads - 1))


# --- an account keeps a credential ----------------------------------------------------------


def test_the_only_credential_cannot_be_revoked() -> None:
    fails(lambda: ensure_credential_remains(["AuthMethod:1"], ["AuthMethod:1"]), "LAST_CREDENTIAL")
    fails(
        lambda: ensure_credential_remains(
            [{"id": "AuthMethod:1"}, {"id": "AuthMethod:2"}], ["AuthMethod:1", "AuthMethod:2"]
        ),
        "LAST_CREDENTIAL",
    )
    fails(lambda: ensure_credential_remains([], []), "LAST_CREDENTIAL")


def test_revoking_one_of_several_credentials() -> None:
    ensure_credential_remains(["AuthMethod:1", "AuthMethod:2"], "AuthMethod:2")
    ensure_credential_remains([{"id": "AuthMethod:1", "type": "OAUTH"}], ["AuthMethod:9"])
    ensure_credential_remains(iter(["AuthMethod:1", "AuthMethod:2"]), iter(["AuthMethod:1"]))


def test_public_names() -> None:
    assert ewc.signed_retry.SignedRetry is SignedRetry
    assert "signed_retry" in ewc.__all__
    assert {"SignedRetry", "MemoryStore", "SqliteStore", "RedisStore"} <= set(
        ewc.signed_retry.__all__
    )
    assert {o.activity_type for o in Operation} == {
        "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
        "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
        "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
        "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
        "ACTIVITY_TYPE_DELETE_API_KEYS",
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        "ACTIVITY_TYPE_EXPORT_WALLET",
        "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        "ACTIVITY_TYPE_CREATE_USERS_V3",
        "ACTIVITY_TYPE_CREATE_POLICIES",
        "ACTIVITY_TYPE_DELETE_USERS",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    }


# --- vectors/signed_retry.json --------------------------------------------------------------


def test_signed_retry_vectors_cover_every_operation_and_code() -> None:
    document = json.loads((VECTORS_DIR / "signed_retry.json").read_text())
    outcomes = [o for case in document["cases"] for o in case["expected"]["outcomes"]]
    codes = {o["error"] for o in outcomes if "error" in o}
    verified = {o["verified"]["operation"] for o in outcomes if "verified" in o}
    assert verified == set(Operation.__members__)
    assert codes >= {
        "INVALID_PARAMETERS",
        "UNKNOWN_OPERATION",
        "REQUEST_ID_MISSING",
        "REQUEST_ID_UNKNOWN",
        "REQUEST_ID_ACCOUNT_MISMATCH",
        "REQUEST_ID_USED",
        "REQUEST_ID_EXPIRED",
        "CLIENT_PUBLIC_KEY_MISMATCH",
        "SESSION_OF_REVOKED_CREDENTIAL",
        "SESSION_CREDENTIAL_UNKNOWN",
        "WALLET_SIGNATURE_MISSING",
        "WALLET_SIGNATURE_MALFORMED",
        "WALLET_SIGNATURE_INVALID",
        "WALLET_SIGNATURE_KEY_MISMATCH",
    }
    for case in document["cases"]:
        assert vectors.run_case(case) is None, case["id"]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["expected", "outcomes", 2, "error"], "REQUEST_ID_EXPIRED", "outcomes"),
        (["expected", "outcomes", 0, "challenge", "expiresAt"], "2023-11-14T22:18:20.001Z", ""),
        (["inputs", "steps", 1, "now_ms"], 1_700_000_300_000, "outcomes"),
        (["inputs", "request_ids"], [], "malformed case"),
        (["inputs", "steps", 1, "verify", "session"], "x", "malformed case"),
    ],
)
def test_a_lying_signed_retry_vector_is_reported(path: list[Any], value: Any, message: str) -> None:
    document = json.loads((VECTORS_DIR / "signed_retry.json").read_text())
    (case,) = [c for c in document["cases"] if c["id"] == "export-wallet-once"]
    lying = copy.deepcopy(case)
    target = lying
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    failure = vectors.run_case(lying)
    assert failure is not None and message in failure
