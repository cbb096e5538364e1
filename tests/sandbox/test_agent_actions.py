"""AgentActions over real HTTP against ``ewc serve``: the approvals list checked and decisions
on unknown actions; then, over real quotes on a server whose lifetimes run at 1/100 (a quote
lives 3 seconds), every transition of the interface's table, approval and rejection by the
platform only, the policy enforced, idempotent execution, the approvals list with its filters
and cursors, and the agent's own transactions with every filter. The agents themselves, their
device codes and tokens are ``test_agents``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from ._agents import POLICY, Agent, Customer, agents, connect, execute, quote, wait_until
from ._client import SandboxClient
from ._server import SandboxServer
from .conftest import database_url

__all__ = ["agents"]  # the fixture, used here


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
