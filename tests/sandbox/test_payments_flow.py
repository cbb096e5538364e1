"""The main payment flow on SQLite and on PostgreSQL: fund, quote, concurrent duplicate
executions with one Idempotency-Key, settlement by the background worker, a transfer out that
fails after a delay, and one default UMA deposit account."""

from __future__ import annotations

import threading
from typing import Any

from ._client import SandboxClient
from ._payments import accounts, balance, fund, settled, usd_external
from ._server import SandboxServer
from .conftest import server_fixture

server = server_fixture("payments", time_scale=0.05)


def test_the_main_flow(server: SandboxServer, client: SandboxClient) -> None:
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    fund(client, found["EUR"]["id"], 500_000)
    quote = client.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": found["EUR"]["id"]},
            "destination": {"destinationType": "ACCOUNT", "accountId": found["USD"]["id"]},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 100_000,
        },
    ).json()
    answers: list[dict[str, Any]] = []
    barrier = threading.Barrier(5)

    def execute() -> None:
        api = SandboxClient(server.base_url, server.auth)
        barrier.wait()
        response = api.post(
            f"/quotes/{quote['id']}/execute", headers={"Idempotency-Key": "flow-execute"}
        )
        api.close()
        if response.status_code == 409:  # the first execution is still running
            assert response.json()["code"] == "IDEMPOTENCY_REQUEST_IN_PROGRESS", response.text
            return
        assert response.status_code == 200, response.text
        answers.append(response.json())

    threads = [threading.Thread(target=execute) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers and all(a == answers[0] for a in answers)  # the execution and its replays
    assert settled(client, quote["transactionId"])["status"] == "COMPLETED"
    assert balance(client, made["id"], "EUR") == 400_000  # taken once
    assert balance(client, made["id"], "USD") == quote["totalReceivingAmount"]

    external = usd_external(client, made["id"], "005", defaultUmaDepositAccount=True)
    second = usd_external(client, made["id"], "010", defaultUmaDepositAccount=True)
    listed = client.get("/customers/external-accounts", params={"customerId": made["id"]}).json()
    assert [a["id"] for a in listed["data"] if a["defaultUmaDepositAccount"]] == [second["id"]]
    created = client.post(
        "/transfer-out",
        {
            "source": {"accountId": found["USD"]["id"]},
            "destination": {"accountId": external["id"]},
            "amount": 1_000,
        },
    ).json()
    assert created["status"] == "PENDING"
    done = settled(client, created["id"])
    assert done["status"] == "FAILED"
    assert balance(client, made["id"], "USD") == quote["totalReceivingAmount"]


def test_concurrent_executions_without_a_key_run_once(
    server: SandboxServer, client: SandboxClient
) -> None:
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    fund(client, found["EUR"]["id"], 50_000)
    quote = client.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": found["EUR"]["id"]},
            "destination": {"destinationType": "ACCOUNT", "accountId": found["USD"]["id"]},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 10_000,
        },
    ).json()
    statuses: list[int] = []
    barrier = threading.Barrier(4)

    def execute() -> None:
        api = SandboxClient(server.base_url, server.auth)
        barrier.wait()
        statuses.append(api.post(f"/quotes/{quote['id']}/execute").status_code)
        api.close()

    threads = [threading.Thread(target=execute) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 409, 409, 409]
    assert balance(client, made["id"], "EUR") == 40_000
