"""The delegated-key operations of ewc.signed_retry: their parameters built one way
(delegated_key_user, delegated_key_policies, delegated_key_revocation), checked by the
operations registry (hostile shapes refused with INVALID_PARAMETERS), and the three legs of
POST /auth/delegated-keys through SignedRetry, with the revocation stamped by the service-held
key itself."""

from __future__ import annotations

import copy
import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.signed_retry import (
    API_KEY_CURVES,
    POLICY_EFFECTS,
    MemoryStore,
    Operation,
    SignedRetry,
    build_payload,
    delegated_key_policies,
    delegated_key_revocation,
    delegated_key_user,
)

ORG = "org-1234"
ACCOUNT = "InternalAccount:019542f5-b3e7-1d02-0000-000000000002"
SESSION = ewc.hpke.derive_key_pair(b"delegated key test session ikm 1")
DELEGATED = ewc.hpke.derive_key_pair(b"delegated key test service ikm 1")
DELEGATED_HEX = DELEGATED.public_key_hex(compressed=True)
USER_ID = "User:019542f5-b3e7-1d02-0000-000000000031"
WALLET_ID = "Wallet:019542f5-b3e7-1d02-0000-000000000007"


def invalid(call: Any) -> ewc.SignedRetryError:
    with pytest.raises(ewc.SignedRetryError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == ("INVALID_PARAMETERS", 400)
    return raised.value


def test_the_user_parameters() -> None:
    parameters = delegated_key_user(user_name="Card payments key", public_key=DELEGATED_HEX)
    assert parameters == {
        "users": [
            {
                "userName": "Card payments key",
                "apiKeys": [
                    {
                        "apiKeyName": "Card payments key",
                        "publicKey": DELEGATED_HEX,
                        "curveType": "API_KEY_CURVE_P256",
                    }
                ],
                "authenticators": [],
                "oauthProviders": [],
                "userTags": [],
            }
        ]
    }
    # any form of the key gives the compressed hex of the interface's DelegatedKey.publicKey
    for form in (DELEGATED.public_key_hex(), DELEGATED.public_key_bytes(), DELEGATED_HEX.upper()):
        again = delegated_key_user(user_name="Card payments key", public_key=form)
        assert again == parameters


def test_the_policy_and_revocation_parameters() -> None:
    policies = delegated_key_policies(user_id=USER_ID, wallet_id=WALLET_ID, name="Card key")
    assert [p["effect"] for p in policies["policies"]] == ["EFFECT_ALLOW", "EFFECT_ALLOW"]
    consensus = {p["consensus"] for p in policies["policies"]}
    assert consensus == {f"approvers.any(user, user.id == '{USER_ID}')"}
    sign, revoke = (p["condition"] for p in policies["policies"])
    assert sign == f"activity.action == 'SIGN' && wallet.id == '{WALLET_ID}'"
    assert revoke == "activity.resource == 'USER' && activity.action == 'DELETE'"
    assert delegated_key_revocation(user_id=USER_ID) == {"userIds": [USER_ID]}
    for operation, parameters in (
        (Operation.ACTIVATE_DELEGATED_KEY, policies),
        (Operation.REVOKE_DELEGATED_KEY, delegated_key_revocation(user_id=USER_ID)),
    ):
        payload = json.loads(build_payload(operation, parameters, organization_id=ORG))
        assert payload["parameters"] == parameters


@pytest.mark.parametrize("user_name", ["", "   ", "x" * 257, None, 7])
def test_a_bad_user_name(user_name: Any) -> None:
    invalid(lambda: delegated_key_user(user_name=user_name, public_key=DELEGATED_HEX))


@pytest.mark.parametrize("public_key", ["", "02" + "ff" * 32, "04" + "ab" * 64, "not hex"])
def test_a_key_that_is_not_p256(public_key: str) -> None:
    with pytest.raises(ewc.InvalidKey):
        delegated_key_user(user_name="Card payments key", public_key=public_key)


@pytest.mark.parametrize(
    "identifier", ["", "x' || true || 'x", "a\\b", "a b", "-leading", "x" * 201, None, "ü"]
)
def test_ids_that_cannot_be_quoted_in_a_policy(identifier: Any) -> None:
    invalid(lambda: delegated_key_policies(user_id=identifier, wallet_id=WALLET_ID, name="k"))
    invalid(lambda: delegated_key_policies(user_id=USER_ID, wallet_id=identifier, name="k"))
    invalid(lambda: delegated_key_revocation(user_id=identifier))


def _user() -> dict[str, Any]:
    return delegated_key_user(user_name="Card payments key", public_key=DELEGATED_HEX)


def _broken(path: list[Any], value: Any) -> dict[str, Any]:
    parameters = copy.deepcopy(_user())
    target: Any = parameters
    for step in path[:-1]:
        target = target[step]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return parameters


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["users"], []),
        (["users"], {}),
        (["users", 0], "user"),
        (["users", 0, "userName"], ""),
        (["users", 0, "apiKeys"], []),
        (["users", 0, "apiKeys"], KeyError),
        (["users", 0, "apiKeys", 0, "curveType"], "API_KEY_CURVE_P384"),
        (["users", 0, "apiKeys", 0, "curveType"], KeyError),
        (["users", 0, "apiKeys", 0, "publicKey"], 7),
        (["users", 0, "authenticators"], None),
        (["users", 0, "oauthProviders"], ["provider"]),
        (["users", 0, "userTags"], [1]),
        (["users", 0, "userTags"], KeyError),
        (["users", 0, "userEmail"], ""),
    ],
)
def test_the_registry_refuses_a_broken_user(path: list[Any], value: Any) -> None:
    broken = _broken(path, value)
    invalid(lambda: build_payload(Operation.CREATE_DELEGATED_KEY, broken, organization_id=ORG))


@pytest.mark.parametrize(
    "policies",
    [
        [],
        [{"policyName": "p"}],
        [{"effect": "EFFECT_ALLOW"}],
        [{"policyName": "p", "effect": "ALLOW"}],
        [{"policyName": "p", "effect": "EFFECT_ALLOW", "condition": 7}],
        [{"policyName": "p", "effect": "EFFECT_ALLOW", "notes": None}],
        "policies",
    ],
)
def test_the_registry_refuses_broken_policies(policies: Any) -> None:
    invalid(
        lambda: build_payload(
            Operation.ACTIVATE_DELEGATED_KEY, {"policies": policies}, organization_id=ORG
        )
    )


@pytest.mark.parametrize("parameters", [{"userIds": []}, {"userIds": [""]}, {"userIds": "u"}, {}])
def test_the_registry_refuses_a_broken_revocation(parameters: Any) -> None:
    invalid(lambda: build_payload(Operation.REVOKE_DELEGATED_KEY, parameters, organization_id=ORG))


def test_the_enumerations_are_the_infrastructures() -> None:
    assert API_KEY_CURVES == (
        "API_KEY_CURVE_P256",
        "API_KEY_CURVE_SECP256K1",
        "API_KEY_CURVE_ED25519",
    )
    assert POLICY_EFFECTS == ("EFFECT_ALLOW", "EFFECT_DENY")
    assert Operation.CREATE_DELEGATED_KEY.activity_type == "ACTIVITY_TYPE_CREATE_USERS_V3"
    assert Operation.ACTIVATE_DELEGATED_KEY.activity_type == "ACTIVITY_TYPE_CREATE_POLICIES"
    assert Operation.REVOKE_DELEGATED_KEY.activity_type == "ACTIVITY_TYPE_DELETE_USERS"
    assert not any(op.binds_client_key for op in Operation if "DELEGATED" in op.name)


def test_the_three_legs_and_the_revocation() -> None:
    """Leg one issues the user's challenge; leg two accepts its stamp (the same request body:
    the same parameters) and issues the policies' challenge; leg three accepts that one. Each
    request id is used once; the policies' id does not answer the user's request. The
    revocation is stamped by the delegated key itself."""
    retry = SignedRetry(MemoryStore())
    sessions = [SESSION.public_key_hex()]
    user = _user()
    first = retry.issue(
        account_id=ACCOUNT,
        operation=Operation.CREATE_DELEGATED_KEY,
        parameters=user,
        organization_id=ORG,
    )
    first_stamp = ewc.create_stamp(first.payload_to_sign, SESSION)
    created = retry.verify(
        request_id=first.request_id,
        stamp=first_stamp,
        account_session_keys=sessions,
        account_id=ACCOUNT,
        expected_operation=Operation.CREATE_DELEGATED_KEY,
        expected_parameters=_user(),  # rebuilt from the same body on the second leg
    )
    assert created.operation is Operation.CREATE_DELEGATED_KEY
    assert created.parameters == user
    policies = delegated_key_policies(user_id=USER_ID, wallet_id=WALLET_ID, name="Card key")
    second = retry.issue(
        account_id=ACCOUNT,
        operation=Operation.ACTIVATE_DELEGATED_KEY,
        parameters=policies,
        organization_id=ORG,
    )
    with pytest.raises(ewc.SignedRetryError) as mismatch:
        retry.verify(
            request_id=second.request_id,
            stamp=ewc.create_stamp(second.payload_to_sign, SESSION),
            account_session_keys=sessions,
            expected_operation=Operation.CREATE_DELEGATED_KEY,
            expected_parameters=user,
        )
    assert mismatch.value.code == "REQUEST_MISMATCH"
    activated = retry.verify(
        request_id=second.request_id,
        stamp=ewc.create_stamp(second.payload_to_sign, SESSION),
        account_session_keys=sessions,
        expected_operation=Operation.ACTIVATE_DELEGATED_KEY,
        expected_parameters=policies,
    )
    assert activated.parameters == policies
    with pytest.raises(ewc.SignedRetryError) as replay:
        retry.verify(request_id=first.request_id, stamp=first_stamp, account_session_keys=sessions)
    assert replay.value.code == "REQUEST_ID_USED"

    revocation = build_payload(
        Operation.REVOKE_DELEGATED_KEY,
        delegated_key_revocation(user_id=USER_ID),
        organization_id=ORG,
    )
    stamp = ewc.create_stamp(revocation, DELEGATED)
    assert ewc.verify_stamp(stamp, revocation, expected_public_key=DELEGATED_HEX)
    with pytest.raises(ewc.StampError) as other_key:
        ewc.verify_stamp(stamp, revocation, expected_public_key=SESSION.public_key_hex())
    assert other_key.value.code == "WALLET_SIGNATURE_KEY_MISMATCH"
