"""The interface's list envelope on every list endpoint, over real HTTP against ``ewc serve`` on
both backends and in both environments (sandbox and production): ``data``, ``hasMore``,
``nextCursor`` and ``totalCount`` on every page, the limit's bounds, and the sort order of the
sortable lists (asc is desc reversed, desc the default)."""

from __future__ import annotations

import httpx

from ._client import SandboxClient
from ._conformance import (
    TRANSFER_POLICY,
    conformance_fixtures,
    connect_agent,
    funded_customer,
    transfer_in,
)
from ._payments import usd_external
from ._server import SandboxServer

env_server, api, bearer = conformance_fixtures()


# --- the list envelope on every list endpoint --------------------------------------------------


def walk(client: httpx.Client, path: str, params: dict[str, str]) -> list[str]:
    """Every id of a list, one item a page: the envelope holds on each page."""
    ids: list[str] = []
    cursor: str | None = None
    total = None
    while True:
        query = {**params, "limit": "1", **({"cursor": cursor} if cursor else {})}
        response = client.get(path, params=query)
        assert response.status_code == 200, (path, response.text)
        body = response.json()
        assert set(body) <= {"data", "hasMore", "nextCursor", "totalCount"}, path
        assert len(body["data"]) <= 1
        total = body["totalCount"] if total is None else total
        assert body["totalCount"] == total, path
        ids += [item["id"] for item in body["data"]]
        assert ("nextCursor" in body) is body["hasMore"], path
        if not body["hasMore"]:
            break
        cursor = body["nextCursor"]
    assert len(ids) == len(set(ids)) == total, path
    for limit in ("0", "101"):
        refused = client.get(path, params={**params, "limit": limit})
        assert refused.status_code == 400, (path, limit)
        assert refused.json()["code"] == "INVALID_INPUT"
    everything = client.get(path, params={**params, "limit": "100"}).json()
    assert [item["id"] for item in everything["data"]] == ids
    assert client.get(path, params=params).json()["data"] == everything["data"][:20]
    return ids


def test_every_list_has_the_envelope(
    env_server: SandboxServer, api: SandboxClient, bearer: list[httpx.Client]
) -> None:
    customer = funded_customer(api, 30_00, ["USD", "EUR"])
    usd_external(api, customer["id"], "011")
    usd_external(api, None, "012")
    usd_external(api, None, "013")
    transfer_in(api, customer["external"], customer["USD"], 5_00)
    waiting = {**TRANSFER_POLICY, "defaultExecutionMode": "APPROVAL_REQUIRED"}
    agent_id, agent = connect_agent(env_server, api, bearer, customer["id"], waiting)
    connect_agent(env_server, api, bearer, customer["id"], waiting)
    pull = {
        "source": {"accountId": customer["external"]},
        "destination": {"accountId": customer["USD"]},
    }
    for amount in (1_00, 2_00, 3_00):
        submitted = agent.post("/agents/me/transfer-in", json={**pull, "amount": amount})
        assert submitted.json()["status"] == "PENDING_APPROVAL", submitted.text
    mine = {"customerId": customer["id"]}
    lists: list[tuple[httpx.Client, str, dict[str, str], int]] = [
        (api.http, "/customers/internal-accounts", mine, 3),
        (api.http, "/customers/external-accounts", mine, 2),
        (api.http, "/platform/external-accounts", {"currency": "USD"}, 2),
        (api.http, "/transactions", mine, 2),
        (api.http, "/agents", mine, 2),
        (api.http, "/agents/approvals", {"agentId": agent_id}, 3),
        (agent, "/agents/me/actions", {}, 3),
        (agent, "/agents/me/transactions", {}, 2),
    ]
    for client, path, params, at_least in lists:
        ids = walk(client, path, params)
        assert len(ids) >= at_least, path
    # The sortable lists: asc is desc reversed (desc is the default).
    for client, path, params, _ in lists:
        if path not in ("/transactions", "/agents/approvals", "/agents/me/transactions"):
            continue
        desc = walk(client, path, {**params, "sortOrder": "desc"})
        assert walk(client, path, {**params, "sortOrder": "asc"}) == desc[::-1], path
        assert walk(client, path, params) == desc, path
