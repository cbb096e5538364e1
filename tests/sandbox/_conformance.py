"""What the interface conformance modules (``test_interface_conformance_*``) share: their
time-scaled server (``env_server``, one per module, backend and environment: a quote lives 3 s,
a transfer settles in 20 ms), its platform client (``api``), the agent clients they connect
(``bearer``, ``connect_agent``), a completed transfer-in (``transfer_in``), a customer funded by
one (``funded_customer``), the agent policy of the transfer tests (``TRANSFER_POLICY``) and an
UMA address the sandbox knows (``RECEIVER``).

A module binds the fixtures with ``env_server, api, bearer = conformance_fixtures()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._payments import accounts, settled, usd_external
from ._server import SandboxServer
from .conftest import database_url

#: A quote lives 5 simulated minutes: 3 s here; a transfer settles in 20 ms.
TIME_SCALE = 0.01


def conformance_fixtures() -> tuple[Any, Any, Any]:
    """A conformance module's fixtures ``env_server``, ``api`` and ``bearer``: a module binds
    them with ``env_server, api, bearer = conformance_fixtures()``."""

    @pytest.fixture(scope="module")
    def env_server(
        backend: str,
        environment: str,
        request: pytest.FixtureRequest,
        tmp_path_factory: pytest.TempPathFactory,
    ) -> Iterator[SandboxServer]:
        """A time-scaled server per backend (SQLite, PostgreSQL) and environment (sandbox,
        production)."""
        running = SandboxServer(
            tmp_path_factory.mktemp(f"conformance-{backend}-{environment}"),
            database=database_url(request, backend, environment),
            environment=environment,
            time_scale=TIME_SCALE,
        )
        running.start()
        yield running
        assert running.stop() == 0

    @pytest.fixture
    def api(env_server: SandboxServer) -> Iterator[SandboxClient]:
        client = SandboxClient(env_server.base_url, env_server.auth)
        yield client
        client.close()

    @pytest.fixture
    def bearer(env_server: SandboxServer) -> Iterator[list[httpx.Client]]:
        """Agent clients made by ``connect_agent``, closed afterwards."""
        made: list[httpx.Client] = []
        yield made
        for agent in made:
            agent.close()

    return env_server, api, bearer


def connect_agent(
    server: SandboxServer,
    api: SandboxClient,
    made: list[httpx.Client],
    customer_id: str,
    policy: dict[str, Any],
) -> tuple[str, httpx.Client]:
    """Create an agent, redeem its device code; its id and a client with its Bearer token."""
    created = api.post("/agents", {"name": "Bot", "customerId": customer_id, "policy": policy})
    assert created.status_code == 201, created.text
    code = created.json()["deviceCode"]["code"]
    redeemed = httpx.post(f"{server.base_url}/agents/device-codes/{code}/redeem", timeout=30)
    assert redeemed.status_code == 200, redeemed.text
    agent = httpx.Client(
        base_url=server.base_url,
        headers={"Authorization": f"Bearer {redeemed.json()['accessToken']}"},
        timeout=30,
    )
    made.append(agent)
    agent_id: str = created.json()["agent"]["id"]
    return agent_id, agent


def transfer_in(api: SandboxClient, source: str, destination: str, amount: int) -> dict[str, Any]:
    body = {"source": {"accountId": source}, "destination": {"accountId": destination}}
    response = api.post("/transfer-in", {**body, "amount": amount})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def funded_customer(api: SandboxClient, amount: int, currencies: list[str]) -> dict[str, Any]:
    """A customer whose USD account got ``amount`` by a completed transfer-in (which works in
    production too), and its external USD account (suffix 010: success everywhere)."""
    customer = api.create_customer(currencies=currencies)
    found = {name: a["id"] for name, a in accounts(api, customer["id"]).items()}
    external = usd_external(api, customer["id"], "010")
    if amount:
        done = settled(api, transfer_in(api, external["id"], found["USD"], amount)["id"])
        assert done["status"] == "COMPLETED"
    return {"id": customer["id"], "external": external["id"], **found}


TRANSFER_POLICY: dict[str, Any] = {
    "permissions": ["CREATE_TRANSFERS", "VIEW_TRANSACTIONS"],
    "defaultExecutionMode": "AUTO",
    "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000_00},
    "approvalThresholds": {"currency": "USD", "amount": 100_00},
}

#: An UMA address the sandbox knows (a EUR receiver).
RECEIVER = "$success.eur@sandbox.uma.invalid"
