"""Agents over real HTTP against ``ewc serve``: creation and device codes, redemption to a
Bearer token, the token's scope, the policy, AgentActions through every transition of the
interface's table, approval and rejection by the platform only, and the agent's lists with
their filters and cursors."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._server import SandboxServer

POLICY: dict[str, Any] = {
    "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES", "VIEW_TRANSACTIONS"],
    "defaultExecutionMode": "AUTO",
    "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000_000},
    "approvalThresholds": {"currency": "USD", "amount": 10_000},
}


class Agent:
    """An agent's view of the service: every request carries its Bearer token."""

    def __init__(self, base_url: str, created: dict[str, Any], token: str) -> None:
        self.id: str = created["agent"]["id"]
        self.customer_id: str = created["agent"]["customerId"]
        self.token = token
        self.http = httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )

    def get(self, path: str, **options: Any) -> httpx.Response:
        return self.http.get(path, **options)

    def post(self, path: str, body: Any = None, **options: Any) -> httpx.Response:
        return self.http.post(path, json=body, **options)


def create_agent(
    client: SandboxClient, customer_id: str | None = None, policy: dict[str, Any] | None = None
) -> dict[str, Any]:
    if customer_id is None:
        customer_id = client.create_customer()["id"]
    response = client.post(
        "/agents", {"name": "Payroll bot", "customerId": customer_id, "policy": policy or POLICY}
    )
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def redeem(server: SandboxServer, code: str) -> httpx.Response:
    # No platform credentials: the device code is the proof.
    return httpx.post(f"{server.base_url}/agents/device-codes/{code}/redeem", timeout=30)


@pytest.fixture
def agents(server: SandboxServer, client: SandboxClient) -> Iterator[list[Agent]]:
    """Connected agents made by ``connect``; their HTTP clients are closed afterwards."""
    made: list[Agent] = []
    yield made
    for agent in made:
        agent.http.close()


def connect(
    server: SandboxServer,
    client: SandboxClient,
    made: list[Agent],
    customer_id: str | None = None,
    policy: dict[str, Any] | None = None,
) -> Agent:
    created = create_agent(client, customer_id, policy)
    response = redeem(server, created["deviceCode"]["code"])
    assert response.status_code == 200, response.text
    agent = Agent(server.base_url, created, response.json()["accessToken"])
    made.append(agent)
    return agent


# --- agents and device codes -------------------------------------------------------------------


def test_create_redeem_and_me(server: SandboxServer, client: SandboxClient) -> None:
    created = create_agent(client)
    agent, code = created["agent"], created["deviceCode"]
    assert agent["id"].startswith("Agent:")
    assert agent["isConnected"] is False and agent["isPaused"] is False
    assert agent["policy"]["permissions"] == [
        "VIEW_TRANSACTIONS",
        "CREATE_QUOTES",
        "EXECUTE_QUOTES",
    ]
    assert agent["usage"]["dailyTransactionCount"] == 0
    assert code["agentId"] == agent["id"] and code["redeemed"] is False
    status = client.get(f"/agents/device-codes/{code['code']}/status").json()
    assert status == {"code": code["code"], "redeemed": False}

    response = redeem(server, code["code"])
    assert response.status_code == 200, response.text
    redeemed = response.json()
    assert redeemed["agentId"] == agent["id"] and redeemed["agentName"] == "Payroll bot"
    assert redeemed["policy"] == agent["policy"]
    token = redeemed["accessToken"]
    assert token.startswith("gat_")
    assert client.get(f"/agents/device-codes/{code['code']}/status").json()["redeemed"] is True

    again = redeem(server, code["code"])  # single use
    assert again.status_code == 400 and again.json()["code"] == "DEVICE_CODE_USED"
    unknown = redeem(server, "AGENT-NONE-NONE")
    assert unknown.status_code == 404

    me = httpx.get(
        f"{server.base_url}/agents/me", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert me["id"] == agent["id"] and me["isConnected"] is True
    assert me["customerId"] == agent["customerId"]
    assert client.get(f"/agents/{agent['id']}").json()["isConnected"] is True
    regenerate = client.post(f"/agents/{agent['id']}/device-codes")
    assert regenerate.status_code == 409  # connected already


def test_a_new_device_code_replaces_the_old(server: SandboxServer, client: SandboxClient) -> None:
    created = create_agent(client)
    fresh = client.post(f"/agents/{created['agent']['id']}/device-codes")
    assert fresh.status_code == 201, fresh.text
    old = redeem(server, created["deviceCode"]["code"])
    assert old.status_code == 400 and old.json()["code"] == "DEVICE_CODE_USED"
    assert redeem(server, fresh.json()["code"]).status_code == 200


def test_agent_creation_is_checked(client: SandboxClient) -> None:
    customer = client.create_customer()["id"]
    bad_policies = [
        {**POLICY, "permissions": ["FLY"]},
        {**POLICY, "defaultExecutionMode": "SOMETIMES"},
        {**POLICY, "spendingLimits": {"currency": "USD", "perTransactionLimit": -5}},
        {k: v for k, v in POLICY.items() if k != "spendingLimits"},
        "not an object",
    ]
    for policy in bad_policies:
        response = client.post("/agents", {"name": "x", "customerId": customer, "policy": policy})
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "INVALID_INPUT"
    missing = client.post("/agents", {"name": "x", "customerId": "Customer:none", "policy": POLICY})
    assert missing.status_code == 404
    assert client.get("/agents/Agent:none").status_code == 404


def test_list_update_policy_and_delete(
    server: SandboxServer, client: SandboxClient, agents: list[Agent]
) -> None:
    customer = client.create_customer()["id"]
    connected = connect(server, client, agents, customer)
    idle = create_agent(client, customer)["agent"]
    listed = client.get("/agents", params={"customerId": customer}).json()
    assert listed["totalCount"] == 2 and [a["id"] for a in listed["data"]] == [
        idle["id"],
        connected.id,
    ]  # newest first
    only = client.get("/agents", params={"customerId": customer, "isConnected": "true"}).json()
    assert [a["id"] for a in only["data"]] == [connected.id]
    page = client.get("/agents", params={"customerId": customer, "limit": 1}).json()
    assert page["hasMore"] is True and len(page["data"]) == 1
    rest = client.get(
        "/agents", params={"customerId": customer, "limit": 1, "cursor": page["nextCursor"]}
    ).json()
    assert rest["hasMore"] is False and rest["data"][0]["id"] == connected.id

    patched = client.request(
        "PATCH", f"/agents/{connected.id}/policy", json={"spendingLimits": {"dailyLimit": 5}}
    ).json()
    assert patched["policy"]["spendingLimits"]["dailyLimit"] == 5
    assert patched["policy"]["spendingLimits"]["perTransactionLimit"] == 1_000_000
    assert connected.get("/agents/me").json()["policy"] == patched["policy"]
    renamed = client.request("PATCH", f"/agents/{connected.id}", json={"name": "Renamed"})
    assert renamed.json()["name"] == "Renamed"
    assert client.request("PATCH", f"/agents/{connected.id}", json={}).status_code == 400

    assert client.request("DELETE", f"/agents/{connected.id}").status_code == 204
    gone = connected.get("/agents/me")
    assert gone.status_code == 401  # its token stops working at once
    assert client.get(f"/agents/{connected.id}").status_code == 404


# --- the Bearer token --------------------------------------------------------------------------


def test_bearer_auth_for_agents_me(server: SandboxServer, client: SandboxClient) -> None:
    url = f"{server.base_url}/agents/me"
    for headers in (
        {},
        {"Authorization": "Bearer gat_0000000000000000000000000000000000000000"},
        {"Authorization": "Bearer"},
        {"Authorization": "Token abc"},
    ):
        response = httpx.get(url, headers=headers)
        assert response.status_code == 401, headers
        assert response.json()["code"] == "UNAUTHORIZED"
        assert response.headers["www-authenticate"].startswith("Bearer")
    # Platform credentials are not an agent token.
    assert httpx.get(url, auth=server.auth).status_code == 401


def test_an_agent_token_is_not_a_platform_credential(
    server: SandboxServer, client: SandboxClient, agents: list[Agent]
) -> None:
    agent = connect(server, client, agents)
    for method, path in (
        ("GET", "/agents/approvals"),
        ("GET", f"/agents/{agent.id}"),
        ("POST", f"/agents/{agent.id}/actions/AgentAction:x/approve"),
        ("POST", f"/agents/{agent.id}/actions/AgentAction:x/reject"),
        ("GET", "/customers/internal-accounts"),
    ):
        response = agent.http.request(method, path)
        assert response.status_code in (401, 403), (path, response.text)


def test_device_codes_and_tokens_expire_on_the_scaled_clock(tmp_path: Path) -> None:
    # 24 hours of device-code life and 30 days of token life, at 1/200000: 0.43 s and 13 s.
    scaled = SandboxServer(tmp_path / "fast", time_scale=1 / 200_000)
    scaled.start()
    try:
        client = SandboxClient(scaled.base_url, scaled.auth)
        created = create_agent(client)
        expires = datetime.fromisoformat(created["deviceCode"]["expiresAt"].replace("Z", "+00:00"))
        assert expires - datetime.now(timezone.utc) < timedelta(seconds=5)
        wait_until(expires)
        late = redeem(scaled, created["deviceCode"]["code"])
        assert late.status_code == 400 and late.json()["code"] == "DEVICE_CODE_EXPIRED"
        client.close()
    finally:
        assert scaled.stop() == 0


def wait_until(moment: datetime) -> None:
    """Sleep until ``moment`` has passed (by the same wall clock the service uses)."""
    while datetime.now(timezone.utc) <= moment + timedelta(milliseconds=50):
        time.sleep(0.05)


# --- approvals without actions -----------------------------------------------------------------


def test_approvals_list_is_checked(client: SandboxClient) -> None:
    empty = client.get("/agents/approvals", params={"agentId": "Agent:none"}).json()
    assert empty == {"data": [], "hasMore": False, "totalCount": 0}
    for params in (
        {"limit": 0},
        {"limit": 101},
        {"sortOrder": "sideways"},
        {"startDate": "yesterday"},
        {"cursor": "not-a-cursor"},
    ):
        response = client.get("/agents/approvals", params=params)
        assert response.status_code == 400, params
        assert response.json()["code"] == "INVALID_INPUT"


def test_decisions_on_unknown_actions(
    server: SandboxServer, client: SandboxClient, agents: list[Agent]
) -> None:
    agent = connect(server, client, agents)
    for verb in ("approve", "reject"):
        missing = client.post(f"/agents/{agent.id}/actions/AgentAction:none/{verb}")
        assert missing.status_code == 404
        assert missing.json()["code"] == "ACTION_NOT_FOUND"
        no_agent = client.post(f"/agents/Agent:none/actions/AgentAction:none/{verb}")
        assert no_agent.json()["code"] == "AGENT_NOT_FOUND"
    assert agent.get("/agents/me/actions/AgentAction:none").status_code == 404
    assert agent.get("/agents/me/actions").json()["totalCount"] == 0
