"""Delegated signing keys over real HTTP, both environments, SQLite and PostgreSQL: created by
three legs, each a signed retry stamped with a session key of the wallet, the payloads being
the library's delegated-key operations over the service-held key's public key; then revoked,
which a second process sees at once; the rules (one ACTIVE key per funding source, the same
body on every leg, a replayed leg, a stranger's stamp) with their codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._server import SandboxServer

PATH = "/auth/delegated-keys"


@pytest.fixture(scope="module")
def other(server: SandboxServer) -> Iterator[SandboxClient]:
    """A client of a second process on the same database."""
    second = server.start_another("delegated-second")
    api = SandboxClient(second.base_url, second.auth)
    yield api
    api.close()
    assert second.stop() == 0


def _leg(
    client: SandboxClient, body: dict[str, Any], challenge: dict[str, Any], key: ewc.KeyPair
) -> Any:
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    return client.retry("POST", PATH, body, challenge, stamp)


def three_legs(
    client: SandboxClient, body: dict[str, Any], key: ewc.KeyPair
) -> tuple[list[dict[str, Any]], Any]:
    first = client.post(PATH, body)
    assert first.status_code == 202, first.text
    second = _leg(client, body, first.json(), key)
    assert second.status_code == 202, second.text
    third = _leg(client, body, second.json(), key)
    return [first.json(), second.json()], third


def test_three_signed_legs_then_revoked(
    client: SandboxClient, server: SandboxServer, other: SandboxClient
) -> None:
    wallet = Wallet(client, server)
    _, session_key = wallet.first_login()
    body = {"cardId": "Card:test-1", "internalAccountId": wallet.account_id, "nickname": "Card key"}
    challenges, created = three_legs(client, body, session_key)
    assert created.status_code == 201, created.text
    key = created.json()
    assert key["status"] == "ACTIVE" and key["accountId"] == wallet.account_id
    assert set(key) == {
        "id", "cardId", "fundingSourceId", "accountId", "publicKey", "nickname", "status",
        "createdAt", "updatedAt",
    }  # fmt: skip
    first, second = (json.loads(c["payloadToSign"]) for c in challenges)
    assert first["type"] == "ACTIVITY_TYPE_CREATE_USERS_V3"
    (user,) = first["parameters"]["users"]
    assert user["apiKeys"][0]["publicKey"] == key["publicKey"]  # the service-held key
    ewc.parse_public_key(key["publicKey"])
    assert second["type"] == "ACTIVITY_TYPE_CREATE_POLICIES"
    assert wallet.account_id in second["parameters"]["policies"][0]["condition"]
    # A replayed third leg is refused; a second key for the funding source is refused.
    replay = _leg(client, body, challenges[1], session_key)
    assert replay.status_code == 401, replay.text
    _, again = three_legs(client, body, session_key)
    assert (again.status_code, again.json()["code"]) == (409, "DELEGATED_KEY_ALREADY_ACTIVE")
    listed = other.get(PATH, params={"accountId": wallet.account_id}).json()["data"]
    assert sorted(k["status"] for k in listed) == ["ACTIVE", "PENDING"]
    # Revoked through one process: the other sees it at once; a second revoke is refused.
    revoked = client.request("DELETE", f"{PATH}/{key['id']}")
    assert revoked.status_code == 204, revoked.text
    assert other.get(f"{PATH}/{key['id']}").json()["status"] == "REVOKED"
    twice = other.request("DELETE", f"{PATH}/{key['id']}")
    assert (twice.status_code, twice.json()["code"]) == (400, "DELEGATED_KEY_NOT_ACTIVE")
    _, renewed = three_legs(client, body, session_key)  # a new ACTIVE key after the revoke
    assert renewed.status_code == 201, renewed.text
    by_source = client.get(PATH, params={"fundingSourceId": key["fundingSourceId"]}).json()
    assert len(by_source["data"]) == 3


def test_the_legs_are_checked(client: SandboxClient, server: SandboxServer) -> None:
    wallet = Wallet(client, server)
    _, session_key = wallet.first_login()
    body = {"cardId": "Card:test-2", "internalAccountId": wallet.account_id, "nickname": "Key"}
    first = client.post(PATH, body).json()
    stranger = _leg(client, body, first, ewc.KeyPair.generate())
    assert stranger.status_code == 401, stranger.text
    changed = _leg(client, {**body, "nickname": "Other"}, first, session_key)
    assert (changed.status_code, changed.json()["code"]) == (401, "UNAUTHORIZED"), changed.text
    unknown = client.retry("POST", PATH, body, {"requestId": "Request:nope"}, "x")
    assert unknown.status_code == 401, unknown.text


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("POST", PATH, {"cardId": "nocard", "internalAccountId": "x", "nickname": "k"}, 400, None),
        ("POST", PATH, {"cardId": "Card:1", "internalAccountId": "x", "nickname": ""}, 400, None),
        (
            "POST",
            PATH,
            {"cardId": "Card:1", "internalAccountId": "InternalAccount:x", "nickname": "k"},
            404,
            "NOT_FOUND",
        ),
        ("GET", PATH, None, 400, "INVALID_INPUT"),
        ("GET", f"{PATH}/DelegatedKey:none", None, 404, "NOT_FOUND"),
        ("DELETE", f"{PATH}/DelegatedKey:none", None, 404, "NOT_FOUND"),
    ],
)
def test_bad_requests(
    client: SandboxClient, method: str, path: str, body: Any, status: int, code: str | None
) -> None:
    answer = client.request(method, path, json=body)
    assert answer.status_code == status, answer.text
    assert set(answer.json()) == {"status", "code", "reason"}
    if code is not None:
        assert answer.json()["code"] == code


def test_first_legs_in_flight_are_bounded(client: SandboxClient, server: SandboxServer) -> None:
    """At most 10 first legs of an account wait for their retry (429 RATE_LIMITED after)."""
    wallet = Wallet(client, server)
    wallet.first_login()
    body = {"cardId": "Card:many", "internalAccountId": wallet.account_id, "nickname": "Key"}
    for _ in range(10):
        assert client.post(PATH, body).status_code == 202
    refused = client.post(PATH, body)
    assert (refused.status_code, refused.json()["code"]) == (429, "RATE_LIMITED"), refused.text
    assert int(refused.headers["Retry-After"]) >= 1
