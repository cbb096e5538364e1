"""The internal-account update of ewc.signed_retry (PATCH /internal-accounts/{id}, wallet
privacy): its parameters built one way (internal_account_update), checked by the operations
registry, and both legs through SignedRetry, where a retry whose body differs from the first
call's is refused with REQUEST_MISMATCH."""

from __future__ import annotations

import hashlib
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.signed_retry import (
    INTERNAL_ACCOUNT_UPDATE_FIELDS,
    RAW_PAYLOAD_ENCODINGS,
    RAW_PAYLOAD_HASH_FUNCTIONS,
    MemoryStore,
    Operation,
    SignedRetry,
    build_payload,
    internal_account_update,
)

ORG = "org-1234"
ACCOUNT = "InternalAccount:019542f5-b3e7-1d02-0000-000000000002"
SESSION = ewc.hpke.derive_key_pair(b"account update test session ikm1")


def invalid(call: Any) -> ewc.SignedRetryError:
    with pytest.raises(ewc.SignedRetryError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == ("INVALID_PARAMETERS", 400)
    return raised.value


def test_the_parameters_bind_the_fields() -> None:
    parameters = internal_account_update(wallet_id=ACCOUNT, fields={"privateEnabled": True})
    digest = hashlib.sha256(b'{"privateEnabled":true}').hexdigest()
    assert parameters == {
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
        "payload": digest,
        "signWith": ACCOUNT,
    }
    off = internal_account_update(wallet_id=ACCOUNT, fields={"privateEnabled": False})
    assert off["payload"] == hashlib.sha256(b'{"privateEnabled":false}').hexdigest()
    assert Operation.UPDATE_INTERNAL_ACCOUNT.activity_type == "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
    assert not Operation.UPDATE_INTERNAL_ACCOUNT.binds_client_key
    assert dict(INTERNAL_ACCOUNT_UPDATE_FIELDS) == {"privateEnabled": bool}
    assert RAW_PAYLOAD_ENCODINGS == ("PAYLOAD_ENCODING_HEXADECIMAL",)
    assert RAW_PAYLOAD_HASH_FUNCTIONS == ("HASH_FUNCTION_NO_OP",)


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"privateEnabled": 1},
        {"privateEnabled": "true"},
        {"privateEnabled": None},
        {"nickname": "x"},
        {1: True},
        ["privateEnabled"],
        None,
    ],
)
def test_bad_fields(fields: Any) -> None:
    invalid(lambda: internal_account_update(wallet_id=ACCOUNT, fields=fields))


@pytest.mark.parametrize("wallet_id", ["", 5, None, "x" * 201])
def test_bad_wallet_id(wallet_id: Any) -> None:
    invalid(lambda: internal_account_update(wallet_id=wallet_id, fields={"privateEnabled": True}))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("encoding", "PAYLOAD_ENCODING_TEXT_UTF8"),
        ("hashFunction", "HASH_FUNCTION_SHA256"),
        ("payload", "ab" * 31),
        ("payload", "AB" * 32),
        ("payload", 5),
        ("signWith", ""),
    ],
)
def test_the_registry_refuses_broken_parameters(name: str, value: Any) -> None:
    parameters = internal_account_update(wallet_id=ACCOUNT, fields={"privateEnabled": True})
    parameters[name] = value
    error = invalid(
        lambda: build_payload(Operation.UPDATE_INTERNAL_ACCOUNT, parameters, organization_id=ORG)
    )
    assert f"parameters.{name}" in error.reason


def test_both_legs_and_a_changed_body() -> None:
    """Leg one binds {"privateEnabled": true}; a retry carrying false is REQUEST_MISMATCH and
    leaves the id usable; the same body is accepted once; a replay is REQUEST_ID_USED."""
    retry = SignedRetry(MemoryStore())
    sessions = [SESSION.public_key_hex()]

    def update(enabled: bool) -> dict[str, Any]:
        return internal_account_update(wallet_id=ACCOUNT, fields={"privateEnabled": enabled})

    challenge = retry.issue(
        account_id=ACCOUNT,
        operation=Operation.UPDATE_INTERNAL_ACCOUNT,
        parameters=update(True),
        organization_id=ORG,
    )
    stamp = ewc.create_stamp(challenge.payload_to_sign, SESSION)

    def answer(enabled: bool) -> Any:
        return retry.verify(
            request_id=challenge.request_id,
            stamp=stamp,
            account_session_keys=sessions,
            account_id=ACCOUNT,
            expected_operation=Operation.UPDATE_INTERNAL_ACCOUNT,
            expected_parameters=update(enabled),
        )

    with pytest.raises(ewc.SignedRetryError) as mismatch:
        answer(False)
    assert (mismatch.value.code, mismatch.value.status) == ("REQUEST_MISMATCH", 401)
    verified = answer(True)
    assert verified.operation is Operation.UPDATE_INTERNAL_ACCOUNT
    assert verified.parameters == update(True)
    with pytest.raises(ewc.SignedRetryError) as replay:
        answer(True)
    assert replay.value.code == "REQUEST_ID_USED"
