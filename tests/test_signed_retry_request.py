"""``ewc.signed_retry.build_payload`` (an operation's payloadToSign without a stored challenge)
and ``SignedRetry.verify`` told the request it answers (``expected_operation``,
``expected_parameters``): a request id issued for one request never authorizes another, the
refusal comes before the claim, and every refusal has its code."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.signed_retry import (
    MAX_TIMESTAMP_MS,
    MemoryStore,
    Operation,
    SignedRetry,
    VerifiedRetry,
    build_payload,
)

T0 = 1_700_000_000.0
ORG = "org-1234"
ACCOUNT = "InternalAccount:acct-1"
SESSION = ewc.hpke.derive_key_pair(b"signed-retry request session ikm!")
CLIENT = ewc.hpke.derive_key_pair(b"signed-retry request client ikm!!")
OTHER = ewc.hpke.derive_key_pair(b"signed-retry request other key!!!")
REVOKE = {"apiKeyIds": ["Session:a"], "userId": "u1"}
EXPORT = {"walletId": "InternalAccount:acct-1"}


def fails(call: Callable[[], object], code: str, status: int) -> ewc.WalletCryptoError:
    with pytest.raises(ewc.WalletCryptoError) as caught:
        call()
    assert (caught.value.code, caught.value.status) == (code, status), caught.value
    return caught.value


def engine() -> SignedRetry:
    return SignedRetry(MemoryStore(), clock=lambda: T0, sandbox=False)


# --- build_payload ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "parameters", "bound"),
    [
        (Operation.REVOKE_SESSION, REVOKE, None),
        ("EXPORT_WALLET", EXPORT, CLIENT.public_key_hex()),
        (Operation.REFRESH_SESSION, {}, CLIENT.public_key_hex(compressed=True).upper()),
        (
            Operation.EXECUTE_QUOTE,
            {"signWith": ACCOUNT, "unsignedTransaction": "00ff", "type": "TRANSACTION_TYPE_QUOTE"},
            None,
        ),
    ],
)
def test_build_payload_is_the_payload_issue_stores(
    operation: Operation | str, parameters: dict[str, Any], bound: str | None
) -> None:
    challenge = engine().issue(
        account_id=ACCOUNT,
        operation=operation,
        parameters=parameters,
        organization_id=ORG,
        bound_client_public_key=bound,
    )
    built = build_payload(
        operation,
        parameters,
        organization_id=ORG,
        timestamp_ms=round(T0 * 1000),
        bound_client_public_key=bound,
    )
    assert built == challenge.payload_to_sign
    body = json.loads(built)
    assert list(body) == ["organizationId", "parameters", "timestampMs", "type"]
    assert body["timestampMs"] == "1700000000000"
    if bound is not None:
        assert body["parameters"]["targetPublicKey"] == bound.lower()


def test_build_payload_timestamps() -> None:
    before = round(time.time() * 1000)
    body = json.loads(build_payload(Operation.REVOKE_SESSION, REVOKE, organization_id=ORG))
    assert before <= int(body["timestampMs"]) <= round(time.time() * 1000)
    for edge in (0, MAX_TIMESTAMP_MS):
        text = build_payload("REVOKE_SESSION", REVOKE, organization_id=ORG, timestamp_ms=edge)
        assert json.loads(text)["timestampMs"] == str(edge)


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"operation": "DELETE_EVERYTHING"}, "UNKNOWN_OPERATION"),
        ({"operation": 3}, "UNKNOWN_OPERATION"),
        ({"parameters": {"userId": "u1"}}, "INVALID_PARAMETERS"),  # apiKeyIds missing
        ({"parameters": {**REVOKE, "extra": 1}}, "INVALID_PARAMETERS"),
        ({"parameters": {**REVOKE, "apiKeyIds": []}}, "INVALID_PARAMETERS"),
        ({"parameters": ["not", "an", "object"]}, "INVALID_PARAMETERS"),
        ({"organization_id": ""}, "INVALID_PARAMETERS"),
        ({"organization_id": None}, "INVALID_PARAMETERS"),
        ({"timestamp_ms": -1}, "INVALID_PARAMETERS"),
        ({"timestamp_ms": MAX_TIMESTAMP_MS + 1}, "INVALID_PARAMETERS"),
        ({"timestamp_ms": True}, "INVALID_PARAMETERS"),
        ({"timestamp_ms": 1.5}, "INVALID_PARAMETERS"),
        ({"bound_client_public_key": CLIENT.public_key_hex()}, "INVALID_PARAMETERS"),
    ],
)
def test_build_payload_refusals(changes: dict[str, Any], code: str) -> None:
    arguments: dict[str, Any] = {
        "operation": Operation.REVOKE_SESSION,
        "parameters": REVOKE,
        "organization_id": ORG,
        "timestamp_ms": 0,
        **changes,
    }
    fails(lambda: build_payload(**arguments), code, 400)


def test_build_payload_key_binding_refusals() -> None:
    unbound = lambda: build_payload("EXPORT_WALLET", EXPORT, organization_id=ORG)  # noqa: E731
    fails(unbound, "INVALID_PARAMETERS", 400)
    fails(
        lambda: build_payload(
            "EXPORT_WALLET", EXPORT, organization_id=ORG, bound_client_public_key="02" + "ff" * 32
        ),
        "INVALID_POINT",
        400,
    )
    fails(
        lambda: build_payload(
            "EXPORT_WALLET",
            {**EXPORT, "targetPublicKey": OTHER.public_key_hex()},
            organization_id=ORG,
            bound_client_public_key=CLIENT.public_key_hex(),
        ),
        "INVALID_PARAMETERS",
        400,
    )


def test_build_payload_refuses_parameters_that_are_not_json() -> None:
    quote = {"signWith": ACCOUNT, "unsignedTransaction": "00", "type": "T"}
    for value in (float("nan"), {1, 2}, b"bytes"):
        fails(
            lambda value=value: build_payload(
                "EXECUTE_QUOTE", {**quote, "unsignedTransaction": value}, organization_id=ORG
            ),
            "INVALID_PARAMETERS",
            400,
        )


# --- verify, told the request it answers -------------------------------------------------------


def _challenge(
    retry: SignedRetry, operation: Operation, parameters: dict[str, Any], bound: str | None = None
) -> tuple[str, str]:
    challenge = retry.issue(
        account_id=ACCOUNT,
        operation=operation,
        parameters=parameters,
        organization_id=ORG,
        bound_client_public_key=bound,
    )
    return challenge.request_id, ewc.create_stamp(challenge.payload_to_sign, SESSION)


def _verify(retry: SignedRetry, request_id: str, stamp: str, **expected: Any) -> VerifiedRetry:
    return retry.verify(
        request_id=request_id,
        stamp=stamp,
        account_session_keys=[SESSION.public_key_hex()],
        account_id=ACCOUNT,
        **expected,
    )


@pytest.mark.parametrize(
    "expected",
    [
        {"expected_operation": "REVOKE_CREDENTIAL"},
        {"expected_operation": Operation.REVOKE_CREDENTIAL, "expected_parameters": REVOKE},
        {"expected_parameters": {**REVOKE, "apiKeyIds": ["Session:b"]}},
        {"expected_parameters": {"userId": "u1"}},
        {"expected_parameters": {**REVOKE, "extra": "x"}},
        {"expected_parameters": {**REVOKE, "userId": "u2"}},
    ],
    ids=["operation", "operation-with-parameters", "other-id", "fewer", "more", "other-user"],
)
def test_a_request_id_answers_only_its_request_and_stays_usable(expected: dict[str, Any]) -> None:
    retry = engine()
    request_id, stamp = _challenge(retry, Operation.REVOKE_SESSION, REVOKE)
    fails(lambda: _verify(retry, request_id, stamp, **expected), "REQUEST_MISMATCH", 401)
    # Refused before the claim: the identical request is still accepted, once.
    verified = _verify(
        retry, request_id, stamp, expected_operation="REVOKE_SESSION", expected_parameters=REVOKE
    )
    assert (verified.operation, verified.parameters) == (Operation.REVOKE_SESSION, REVOKE)
    fails(lambda: _verify(retry, request_id, stamp), "REQUEST_ID_USED", 401)


def test_the_parameters_compare_as_json() -> None:
    retry = engine()
    request_id, stamp = _challenge(retry, Operation.REVOKE_SESSION, REVOKE)
    as_tuple = {"userId": "u1", "apiKeyIds": ("Session:a",)}  # the same JSON, another order
    verified = _verify(retry, request_id, stamp, expected_parameters=as_tuple)
    assert verified.parameters == REVOKE


def test_a_bound_key_may_be_left_out_or_given_in_another_encoding() -> None:
    retry = engine()
    bound = CLIENT.public_key_hex()
    for target in (None, CLIENT.public_key_hex(compressed=True).upper(), bound):
        request_id, stamp = _challenge(retry, Operation.EXPORT_WALLET, EXPORT, bound)
        parameters = EXPORT if target is None else {**EXPORT, "targetPublicKey": target}
        verified = retry.verify(
            request_id=request_id,
            stamp=stamp,
            account_session_keys=[SESSION.public_key_hex()],
            request_body_client_public_key=bound,
            expected_operation=Operation.EXPORT_WALLET,
            expected_parameters=parameters,
        )
        assert verified.parameters == {**EXPORT, "targetPublicKey": bound}
    request_id, stamp = _challenge(retry, Operation.EXPORT_WALLET, EXPORT, bound)
    for target in (OTHER.public_key_hex(), "not a key", 7):
        fails(
            lambda target=target: retry.verify(
                request_id=request_id,
                stamp=stamp,
                account_session_keys=[SESSION.public_key_hex()],
                request_body_client_public_key=bound,
                expected_parameters={**EXPORT, "targetPublicKey": target},
            ),
            "REQUEST_MISMATCH",
            401,
        )


def test_an_unusable_expectation_is_the_callers_error_before_any_header() -> None:
    retry = engine()
    request_id, stamp = _challenge(retry, Operation.REVOKE_SESSION, REVOKE)
    for expected, code in (
        ({"expected_operation": "DELETE_EVERYTHING"}, "UNKNOWN_OPERATION"),
        ({"expected_parameters": ["apiKeyIds"]}, "INVALID_PARAMETERS"),
        ({"expected_parameters": {"x": float("nan")}}, "INVALID_PARAMETERS"),
        ({"expected_parameters": {"x": object()}}, "INVALID_PARAMETERS"),
    ):
        fails(lambda expected=expected: _verify(retry, "", "", **expected), code, 400)
    assert _verify(retry, request_id, stamp, expected_operation=None, expected_parameters=None)


def test_the_other_checks_keep_their_order_and_codes() -> None:
    retry = engine()
    request_id, stamp = _challenge(retry, Operation.REVOKE_SESSION, REVOKE)
    wrong = {"expected_operation": "EXPORT_WALLET"}
    fails(lambda: _verify(retry, request_id, "", **wrong), "WALLET_SIGNATURE_MISSING", 401)
    fails(lambda: _verify(retry, "Request:nope", stamp, **wrong), "REQUEST_ID_UNKNOWN", 401)
    other = ewc.create_stamp("another payload", SESSION)
    fails(
        lambda: _verify(retry, request_id, other, expected_operation="REVOKE_SESSION"),
        "WALLET_SIGNATURE_INVALID",
        401,
    )
