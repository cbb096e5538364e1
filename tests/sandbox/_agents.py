"""An agent's side of the sandbox over real HTTP, for the agent tests and the modules that drive
agents (hostile requests, transaction operations, webhooks, the API fuzz): the default policy,
an agent's client (its Bearer token on every request), agents created and connected by their
device code (the ``agents`` fixture closes their clients), a customer with USD and EUR accounts,
and an agent's quote and its execution."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._server import SandboxServer

__all__ = [
    "POLICY",
    "Agent",
    "Customer",
    "agents",
    "connect",
    "create_agent",
    "execute",
    "quote",
    "redeem",
    "wait_until",
]


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


def wait_until(moment: datetime) -> None:
    """Sleep until ``moment`` has passed (by the same wall clock the service uses)."""
    while datetime.now(timezone.utc) <= moment + timedelta(milliseconds=50):
        time.sleep(0.05)


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
