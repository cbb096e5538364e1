"""ewc.signed_retry, leg one: the payloads of every operation and their parameters; an account
keeps a credential; the public names; vectors/signed_retry.json (the rules of leg two are in
test_signed_retry_rules.py; tests/test_stores.py covers the shared stores,
tests/test_stores_restarts.py their restarts and tests/test_stores_race.py the cross-process
claim race)."""

from __future__ import annotations

import copy
import json
import re
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _signed_retry_support import (
    ACCOUNT,
    ATTESTATION,
    CLIENT,
    ORG,
    PARAMETERS,
    PAYLOADS,
    T0,
    Clock,
    fails,
    issue,
)
from conftest import VECTORS_DIR
from embedded_wallet_crypto import vectors
from embedded_wallet_crypto.signed_retry import (
    Operation,
    SignedRetry,
    ensure_credential_remains,
)

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
