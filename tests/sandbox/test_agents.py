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
from .conftest import database_url

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


# --- AgentActions through every transition, over real quotes -----------------------------------


@pytest.fixture(scope="module")
def fast(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    """A sandbox server whose lifetimes run at 1/100: a quote lives 3 seconds."""
    running = SandboxServer(
        tmp_path_factory.mktemp(f"agents-fast-{backend}"),
        database=database_url(request, backend, "fast"),
        time_scale=0.01,
    )
    running.start()
    yield running
    assert running.stop() == 0


@pytest.fixture
def platform(fast: SandboxServer) -> Iterator[SandboxClient]:
    api = SandboxClient(fast.base_url, fast.auth)
    yield api
    api.close()


class Customer:
    def __init__(self, platform: SandboxClient, fund: int = 0) -> None:
        self.id: str = platform.create_customer(currencies=["USD", "EUR"])["id"]
        listed = platform.get(
            "/customers/internal-accounts", params={"customerId": self.id, "type": "INTERNAL_FIAT"}
        ).json()["data"]
        by_code = {a["balance"]["currency"]["code"]: a["id"] for a in listed}
        self.usd: str = by_code["USD"]
        self.eur: str = by_code["EUR"]
        if fund:
            funded = platform.post(f"/sandbox/internal-accounts/{self.usd}/fund", {"amount": fund})
            assert funded.status_code == 200, funded.text


def quote(agent: Agent, customer: Customer, usd_cents: int, **headers: str) -> dict[str, Any]:
    response = agent.post(
        "/agents/me/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": customer.usd},
            "destination": {"destinationType": "ACCOUNT", "accountId": customer.eur},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": usd_cents,
        },
        headers=headers,
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def execute(agent: Agent, quote_id: str, **headers: str) -> httpx.Response:
    return agent.post(f"/agents/me/quotes/{quote_id}/execute", headers=headers)


def test_none_to_approved_when_the_policy_permits(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=1_000_00)
    agent = connect(fast, platform, agents, customer.id)
    q = quote(agent, customer, 50_00)  # under the 100.00 USD threshold
    assert q["source"]["accountId"] == customer.usd
    assert agent.get(f"/agents/me/quotes/{q['id']}").json()["id"] == q["id"]
    response = execute(agent, q["id"])
    assert response.status_code == 200, response.text
    action = response.json()
    assert action["id"].startswith("AgentAction:")
    assert (action["status"], action["type"]) == ("APPROVED", "EXECUTE_QUOTE")
    assert action["agentId"] == agent.id and action["customerId"] == customer.id
    assert action["quote"]["id"] == q["id"]
    assert action["transaction"]["id"] == q["transactionId"]
    assert "rejectionReason" not in action
    assert agent.get(f"/agents/me/actions/{action['id']}").json()["status"] == "APPROVED"
    again = execute(agent, q["id"])  # an executed quote cannot run (or be cancelled) again
    assert again.status_code == 409
    decided = platform.post(f"/agents/{agent.id}/actions/{action['id']}/approve")
    assert decided.status_code == 409 and decided.json()["code"] == "ACTION_NOT_PENDING"
    me = agent.get("/agents/me").json()
    assert me["usage"]["dailyTransactionCount"] == 1 and me["usage"]["dailySpend"] == 50_00


def test_pending_approval_then_approved_by_the_platform_only(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=1_000_00)
    agent = connect(fast, platform, agents, customer.id)
    q = quote(agent, customer, 200_00)  # above the threshold
    action = execute(agent, q["id"]).json()
    assert action["status"] == "PENDING_APPROVAL"
    assert "transaction" not in action
    assert execute(agent, q["id"]).status_code == 409  # already waiting
    queue = platform.get("/agents/approvals", params={"agentId": agent.id}).json()
    assert [a["id"] for a in queue["data"]] == [action["id"]]

    path = f"/agents/{agent.id}/actions/{action['id']}/approve"
    for attempt in (agent.post(path), httpx.post(f"{fast.base_url}{path}")):
        assert attempt.status_code in (401, 403)  # never the agent, never anonymous
    assert agent.get(f"/agents/me/actions/{action['id']}").json()["status"] == "PENDING_APPROVAL"

    approved = platform.post(path)
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert body["status"] == "APPROVED"
    assert body["transaction"]["id"] == q["transactionId"]
    assert agent.get(f"/agents/me/actions/{action['id']}").json()["status"] == "APPROVED"
    assert platform.get("/agents/approvals", params={"agentId": agent.id}).json()["data"] == []
    for verb in ("approve", "reject"):
        late = platform.post(f"/agents/{agent.id}/actions/{action['id']}/{verb}")
        assert late.status_code == 409


def test_pending_approval_then_rejected(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=1_000_00)
    agent = connect(fast, platform, agents, customer.id)
    action = execute(agent, quote(agent, customer, 200_00)["id"]).json()
    path = f"/agents/{agent.id}/actions/{action['id']}/reject"
    assert agent.post(path, {"reason": "mine"}).status_code in (401, 403)
    rejected = platform.post(path, {"reason": "Above the customer's risk limit."})
    assert rejected.status_code == 200, rejected.text
    body = rejected.json()
    assert body["status"] == "REJECTED"
    assert body["rejectionReason"] == "Above the customer's risk limit."
    assert "transaction" not in body
    balance = platform.get(
        "/customers/internal-accounts", params={"customerId": customer.id, "currency": "USD"}
    ).json()["data"][0]["balance"]["amount"]
    assert balance == 1_000_00  # nothing ran
    assert platform.post(f"/agents/{agent.id}/actions/{action['id']}/approve").status_code == 409


def test_pending_approval_then_failed_when_the_quote_expired(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=1_000_00)
    agent = connect(fast, platform, agents, customer.id)
    q = quote(agent, customer, 200_00)
    action = execute(agent, q["id"]).json()
    assert action["status"] == "PENDING_APPROVAL"
    wait_until(datetime.fromisoformat(q["expiresAt"].replace("Z", "+00:00")))
    failed = platform.post(f"/agents/{agent.id}/actions/{action['id']}/approve").json()
    assert failed["status"] == "FAILED"
    assert "transaction" not in failed
    assert failed["quote"]["status"] == "EXPIRED"


def test_failed_when_execution_fails(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform)  # no funds
    agent = connect(fast, platform, agents, customer.id)
    auto = execute(agent, quote(agent, customer, 50_00)["id"]).json()
    assert auto["status"] == "FAILED"  # none -> APPROVED -> FAILED at once
    pending = execute(agent, quote(agent, customer, 200_00)["id"]).json()
    assert pending["status"] == "PENDING_APPROVAL"
    failed = platform.post(f"/agents/{agent.id}/actions/{pending['id']}/approve").json()
    assert failed["status"] == "FAILED"  # PENDING_APPROVAL -> APPROVED -> FAILED


def test_the_policy_is_enforced(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=1_000_00)
    no_execute = connect(
        fast, platform, agents, customer.id, {**POLICY, "permissions": ["CREATE_QUOTES"]}
    )
    q = quote(no_execute, customer, 10_00)
    refused = execute(no_execute, q["id"])
    assert refused.status_code == 403 and refused.json()["code"] == "POLICY_PERMISSION_DENIED"

    no_quotes = connect(
        fast, platform, agents, customer.id, {**POLICY, "permissions": ["EXECUTE_QUOTES"]}
    )
    response = no_quotes.post("/agents/me/quotes", {})
    assert response.status_code in (400, 403)

    small = {**POLICY, "spendingLimits": {"currency": "USD", "perTransactionLimit": 20_00}}
    limited = connect(fast, platform, agents, customer.id, small)
    over = execute(limited, quote(limited, customer, 30_00)["id"])
    assert over.status_code == 403 and over.json()["code"] == "POLICY_LIMIT_EXCEEDED"

    always = connect(
        fast, platform, agents, customer.id, {**POLICY, "defaultExecutionMode": "APPROVAL_REQUIRED"}
    )
    assert execute(always, quote(always, customer, 1_00)["id"]).json()["status"] == (
        "PENDING_APPROVAL"
    )

    agent = connect(fast, platform, agents, customer.id)
    paused_quote = quote(agent, customer, 1_00)
    platform.request("PATCH", f"/agents/{agent.id}", json={"isPaused": True})
    paused = execute(agent, paused_quote["id"])
    assert paused.status_code == 403 and paused.json()["code"] == "AGENT_PAUSED"

    # Another customer's account, another agent's quote.
    stranger = Customer(platform)
    other = connect(fast, platform, agents, stranger.id)
    foreign = other.post(
        "/agents/me/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": customer.usd},
            "destination": {"destinationType": "ACCOUNT", "accountId": customer.eur},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 1_00,
        },
    )
    assert foreign.status_code == 403
    assert other.get(f"/agents/me/quotes/{q['id']}").status_code == 404
    assert execute(other, q["id"]).status_code == 404


def test_idempotent_execution(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=1_000_00)
    agent = connect(fast, platform, agents, customer.id)
    q = quote(agent, customer, 10_00, **{"Idempotency-Key": "q-1"})
    assert quote(agent, customer, 10_00, **{"Idempotency-Key": "q-1"})["id"] == q["id"]
    first = execute(agent, q["id"], **{"Idempotency-Key": "x-1"}).json()
    second = execute(agent, q["id"], **{"Idempotency-Key": "x-1"}).json()
    assert first["id"] == second["id"] and second["status"] == "APPROVED"


def test_approvals_filters_and_pages(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=10_000_00)
    first = connect(fast, platform, agents, customer.id)
    second = connect(fast, platform, agents, customer.id)
    made = [
        execute(agent, quote(agent, customer, 200_00)["id"]).json()
        for agent in (first, second, first)
    ]
    ids = [a["id"] for a in made]
    mine = platform.get("/agents/approvals", params={"customerId": customer.id}).json()
    assert mine["totalCount"] == 3
    assert [a["id"] for a in mine["data"]] == ids[::-1]  # newest first
    asc = platform.get(
        "/agents/approvals", params={"customerId": customer.id, "sortOrder": "asc"}
    ).json()
    assert [a["id"] for a in asc["data"]] == ids
    by_agent = platform.get("/agents/approvals", params={"agentId": first.id}).json()
    assert [a["id"] for a in by_agent["data"]] == [ids[2], ids[0]]
    middle = made[1]["createdAt"]
    since = platform.get(
        "/agents/approvals", params={"customerId": customer.id, "startDate": middle}
    ).json()
    assert [a["id"] for a in since["data"]] == [ids[2], ids[1]]  # inclusive
    until = platform.get(
        "/agents/approvals", params={"customerId": customer.id, "endDate": middle}
    ).json()
    assert [a["id"] for a in until["data"]] == [ids[1], ids[0]]  # inclusive
    seen: list[str] = []
    params: dict[str, Any] = {"customerId": customer.id, "limit": 1}
    while True:
        page = platform.get("/agents/approvals", params=params).json()
        assert page["totalCount"] == 3 and len(page["data"]) == 1
        seen += [a["id"] for a in page["data"]]
        if not page["hasMore"]:
            break
        params["cursor"] = page["nextCursor"]
    assert seen == ids[::-1]
    mine_only = first.get("/agents/me/actions", params={"status": "PENDING_APPROVAL"}).json()
    assert [a["id"] for a in mine_only["data"]] == [ids[2], ids[0]]
    assert first.get(f"/agents/me/actions/{ids[1]}").status_code == 404  # the other agent's


def test_my_transactions_with_every_filter(
    fast: SandboxServer, platform: SandboxClient, agents: list[Agent]
) -> None:
    customer = Customer(platform, fund=10_000_00)
    agent = connect(fast, platform, agents, customer.id)
    made = []
    for cents in (10_00, 20_00, 30_00):
        q = quote(agent, customer, cents)
        action = execute(agent, q["id"]).json()
        made.append(action["transaction"])
    ids = [t["id"] for t in made]

    def listed(**params: Any) -> list[str]:
        response = agent.get("/agents/me/transactions", params=params)
        assert response.status_code == 200, response.text
        return [t["id"] for t in response.json()["data"]]

    assert listed() == ids[::-1]  # default desc
    assert listed(sortOrder="asc") == ids
    assert listed(accountIdentifier=customer.usd, sortOrder="asc") == ids
    assert listed(senderAccountIdentifier=customer.usd, sortOrder="asc") == ids
    assert listed(receiverAccountIdentifier=customer.eur, sortOrder="asc") == ids
    assert listed(receiverAccountIdentifier=customer.usd) == []
    assert listed(type="OUTGOING", sortOrder="asc") == ids
    assert listed(type="INCOMING") == []
    status = agent.get(f"/agents/me/transactions/{ids[0]}").json()["status"]
    assert (
        ids[0] in listed(status=status, limit=100)
        or status != agent.get(f"/agents/me/transactions/{ids[0]}").json()["status"]
    )  # unless the sandbox moved it on meanwhile
    other = next(s for s in ("CREATED", "REFUNDED") if s != status)
    assert listed(status=other) == []
    reference = agent.get(f"/agents/me/transactions/{ids[1]}").json()
    ref = (reference.get("reconciliationInstructions") or {}).get("reference")
    if ref is not None:
        assert listed(reference=ref) == [ids[1]]
    assert listed(startDate=made[1]["createdAt"], sortOrder="asc") == ids[1:]
    assert listed(endDate=made[1]["createdAt"], sortOrder="asc") == ids[:2]
    first_page = agent.get("/agents/me/transactions", params={"limit": 2}).json()
    assert first_page["hasMore"] is True and first_page["totalCount"] == 3
    rest = agent.get(
        "/agents/me/transactions", params={"limit": 2, "cursor": first_page["nextCursor"]}
    ).json()
    assert [t["id"] for t in first_page["data"] + rest["data"]] == ids[::-1]
    for bad in ({"limit": 0}, {"limit": 101}, {"status": "DONE"}, {"sortOrder": "up"}):
        assert agent.get("/agents/me/transactions", params=bad).status_code == 400

    # Scoped to the agent's customer: another customer's transaction is 404.
    stranger = Customer(platform, fund=1_000_00)
    other = connect(fast, platform, agents, stranger.id)
    foreign = execute(other, quote(other, stranger, 10_00)["id"]).json()["transaction"]["id"]
    assert agent.get(f"/agents/me/transactions/{foreign}").status_code == 404
    assert foreign not in listed(limit=100)
    assert other.get(f"/agents/me/transactions/{foreign}").status_code == 200
