"""Agents over real HTTP against ``ewc serve``: creation and device codes, redemption to a
Bearer token, the agent's list, policy update and deletion, the token's scope, and device codes
and tokens expiring on the scaled clock. AgentActions and their approval are
``test_agent_actions``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest

from ._agents import POLICY, Agent, agents, connect, create_agent, redeem, wait_until
from ._client import SandboxClient
from ._server import SandboxServer
from .conftest import database_url

__all__ = ["agents"]  # the fixture, used here


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


def test_device_codes_and_tokens_expire_on_the_scaled_clock(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # 24 hours of device-code life and 30 days of token life, at 1/200000: 0.43 s and 13 s.
    scaled = SandboxServer(
        tmp_path / "fast",
        database=database_url(request, backend, "scaled"),
        time_scale=1 / 200_000,
    )
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
