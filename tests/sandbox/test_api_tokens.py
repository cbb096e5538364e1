"""API tokens over real HTTP, in both environments, on SQLite and PostgreSQL: created, listed,
read and deleted as the published document writes them; a created token authenticates as
HTTP Basic ``clientId:clientSecret`` with its permissions; the secret is shown once, never
listed, never logged; and across two ``ewc serve`` processes on one database a deleted token is
refused by both the moment the delete has answered, and of two deletes at once exactly one
answers 204.

``EWC_RACE_ROUNDS`` sets the rounds of the races (20 by default).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._pair import clients_of, race, running_pair
from ._server import SandboxServer
from .conftest import database_url

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "20"))


def _create(client: SandboxClient, *permissions: str, name: str = "ci") -> dict[str, Any]:
    response = client.post("/tokens", {"name": name, "permissions": list(permissions)})
    assert response.status_code == 201, response.text
    token: dict[str, Any] = response.json()
    return token


def _as(server: SandboxServer, token: dict[str, Any]) -> SandboxClient:
    return SandboxClient(server.base_url, (token["clientId"], token["clientSecret"]))


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["code"]


def test_create_list_get_delete(client: SandboxClient, server: SandboxServer) -> None:
    token = _create(client, "VIEW", "MANAGE", name="ops")
    assert set(token) == {
        "id", "name", "permissions", "clientId", "clientSecret", "createdAt", "updatedAt"
    }  # fmt: skip
    assert token["id"].startswith("Token:") and token["permissions"] == ["VIEW", "MANAGE"]
    assert len(token["clientSecret"]) >= 32
    read = client.get(f"/tokens/{token['id']}")
    assert read.status_code == 200
    assert "clientSecret" not in read.json() and read.json()["clientId"] == token["clientId"]
    listed = client.get("/tokens", params={"name": "ops"}).json()
    assert [item["id"] for item in listed["data"]] == [token["id"]]
    assert all("clientSecret" not in item for item in listed["data"])
    later = client.get("/tokens", params={"createdAfter": "2999-01-01T00:00:00Z"}).json()
    assert later["data"] == [] and later["totalCount"] == 0
    assert client.request("DELETE", f"/tokens/{token['id']}").status_code == 204
    assert _code(client.get(f"/tokens/{token['id']}")) == (404, "TOKEN_NOT_FOUND")
    assert _code(client.request("DELETE", f"/tokens/{token['id']}")) == (404, "TOKEN_NOT_FOUND")
    assert token["clientSecret"] not in server.log_path.read_text()


def test_a_token_authenticates_with_its_permissions(
    client: SandboxClient, server: SandboxServer
) -> None:
    viewer = _as(server, _create(client, "VIEW"))
    manager = _as(server, _create(client, "MANAGE"))
    payer = _as(server, _create(client, "TRANSACT"))
    try:
        assert _code(payer.post("/quotes", {})) == (400, "INVALID_INPUT")  # past the gate
        assert _code(payer.post("/customers", {"customerType": "INDIVIDUAL"})) == (
            403,
            "FORBIDDEN",
        )
        assert viewer.get("/config").status_code == 200
        assert viewer.get("/tokens").status_code == 200
        refused = viewer.post("/tokens", {"name": "x", "permissions": ["VIEW"]})
        assert _code(refused) == (403, "FORBIDDEN")
        assert _code(viewer.post("/quotes", {})) == (403, "FORBIDDEN")  # before the body
        assert manager.post("/tokens", {"name": "y", "permissions": ["VIEW"]}).status_code == 201
        assert _code(manager.post("/quotes", {})) == (403, "FORBIDDEN")
    finally:
        viewer.close()
        manager.close()
        payer.close()


def test_wrong_secrets_and_names_are_401(client: SandboxClient, server: SandboxServer) -> None:
    token = _create(client, "VIEW")
    for auth in (
        (token["clientId"], token["clientSecret"] + "x"),
        (token["clientId"], ""),
        (token["clientId"].upper(), token["clientSecret"]),
        ("0" * 32, token["clientSecret"]),
    ):
        other = SandboxClient(server.base_url, auth)
        try:
            assert _code(other.get("/tokens")) == (401, "UNAUTHORIZED"), auth
        finally:
            other.close()


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "INVALID_INPUT"),
        ({"name": "x"}, "INVALID_INPUT"),
        ({"name": "x", "permissions": []}, "INVALID_INPUT"),
        ({"name": "x", "permissions": ["VIEW", "VIEW"]}, "INVALID_INPUT"),
        ({"name": "x", "permissions": ["ROOT"]}, "INVALID_INPUT"),
        ({"name": "", "permissions": ["VIEW"]}, "INVALID_INPUT"),
        ({"name": "x" * 201, "permissions": ["VIEW"]}, "INVALID_INPUT"),
        ({"name": "a\x00b", "permissions": ["VIEW"]}, "INVALID_INPUT"),
        ({"name": 5, "permissions": ["VIEW"]}, "INVALID_INPUT"),
        ([], "INVALID_INPUT"),
    ],
)
def test_bad_creations_are_400(client: SandboxClient, body: Any, code: str) -> None:
    assert _code(client.post("/tokens", body)) == (400, code)


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    "params",
    [
        {"limit": "0"},
        {"limit": "101"},
        {"cursor": "not-a-cursor"},
        {"createdBefore": "yesterday"},
        {"updatedAfter": "1700000000"},
    ],
)
def test_bad_lists_are_400(client: SandboxClient, params: dict[str, str]) -> None:
    assert _code(client.get("/tokens", params=params)) == (400, "INVALID_INPUT")


def test_pages_of_tokens(client: SandboxClient) -> None:
    made = {_create(client, "VIEW", name="paged")["id"] for _ in range(3)}
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"name": "paged", "limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = client.get("/tokens", params=params).json()
        assert page["totalCount"] == 3
        seen += [item["id"] for item in page["data"]]
        if not page["hasMore"]:
            break
        cursor = page["nextCursor"]
    assert len(seen) == 3 and set(seen) == made


def test_the_platform_holds_at_most_100_tokens(client: SandboxClient) -> None:
    """The platform's tokens are capped (409 COLLECTION_LIMIT_REACHED, counted under the
    platform's lock); a deleted one makes room again."""
    held = client.get("/tokens", params={"limit": 1}).json()["totalCount"]
    made = [_create(client, "VIEW", name="cap")["id"] for _ in range(100 - held)]
    try:
        over = client.post("/tokens", {"name": "cap", "permissions": ["VIEW"]})
        assert _code(over) == (409, "COLLECTION_LIMIT_REACHED"), over.text
        assert client.get("/tokens", params={"limit": 1}).json()["totalCount"] == 100
        assert client.request("DELETE", f"/tokens/{made.pop()}").status_code == 204
        made.append(_create(client, "VIEW", name="cap")["id"])
    finally:
        for token_id in made:
            client.request("DELETE", f"/tokens/{token_id}")


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two ``ewc serve`` processes on one database."""
    with running_pair(
        tmp_path_factory.mktemp(f"token-races-{backend}"), database_url(request, backend, "tok")
    ) as servers:
        yield servers


def test_a_deleted_token_is_refused_by_every_process_at_once(
    pair: tuple[SandboxServer, SandboxServer],
) -> None:
    """A token used through process B (so that B has seen it valid), deleted through process A:
    the first request after the 204, through either process, is 401."""
    still_valid = 0
    with clients_of(pair) as (one, _):
        for _ in range(ROUNDS):
            token = _create(one, "VIEW")
            users = [_as(server, token) for server in pair]
            try:
                assert users[1].get("/tokens").status_code == 200
                assert users[0].get("/tokens").status_code == 200
                assert one.request("DELETE", f"/tokens/{token['id']}").status_code == 204
                after = [user.get("/tokens") for user in (users[1], users[0])]
                still_valid += sum(response.status_code != 401 for response in after)
                for response in after:
                    if response.status_code == 401:
                        assert response.json()["code"] == "UNAUTHORIZED"
            finally:
                for user in users:
                    user.close()
    assert still_valid == 0, f"{still_valid} requests passed with a deleted token"


def test_two_deletes_at_once_delete_once(pair: tuple[SandboxServer, SandboxServer]) -> None:
    """The same token deleted through both processes at the same moment: one 204, one 404
    TOKEN_NOT_FOUND, every round."""
    outcomes: Counter[tuple[int, ...]] = Counter()
    with clients_of(pair) as clients:
        for _ in range(ROUNDS):
            token = _create(clients[0], "VIEW")
            path = f"/tokens/{token['id']}"
            answers = race([lambda c=c, p=path: c.request("DELETE", p) for c in clients])  # type: ignore[misc]
            outcomes[tuple(sorted(answer.status_code for answer in answers))] += 1
            for answer in answers:
                if answer.status_code == 404:
                    assert answer.json()["code"] == "TOKEN_NOT_FOUND"
    assert outcomes == Counter({(204, 404): ROUNDS}), outcomes
