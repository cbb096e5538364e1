"""What must hold alike on SQLite and PostgreSQL, under concurrency and across processes: text
PostgreSQL cannot store (NUL) is refused alike; concurrent executions of one quote (also on two
``ewc serve`` processes sharing the database) run it once; concurrent debits never overdraw;
an invitation is claimed once; a pending agent action is decided once; concurrent submissions
of one agent never pass its daily limits; and two processes deliver each webhook event once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._pair import outcome, race, running_pair
from ._payments import (
    Receiver,
    accounts,
    balance,
    fund,
    settled,
    usd_external,
    wait_for,
    webhook_receiver,
)
from ._server import SandboxServer
from .conftest import database_url

TIME_SCALE = 0.05


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with webhook_receiver() as running:
        yield running


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two ``ewc serve`` processes on one database."""
    with running_pair(
        tmp_path_factory.mktemp(f"backends-{backend}"),
        database_url(request, backend, "pair"),
        time_scale=TIME_SCALE,
    ) as servers:
        yield servers


def funded_customer(client: SandboxClient, eur: int = 0, usd: int = 0) -> dict[str, str]:
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    for name, amount in (("EUR", eur), ("USD", usd)):
        if amount:
            fund(client, found[name]["id"], amount)
    return {"id": made["id"], **{name: account["id"] for name, account in found.items()}}


def test_text_with_nul_is_refused_alike(clients: list[SandboxClient]) -> None:
    client = clients[0]
    customer = funded_customer(client)
    refused = [
        client.get("/customers/internal-accounts", params={"currency": "U\x00"}),
        client.get("/customers/internal-accounts", params={"customerId": "Customer:\x00"}),
        client.get("/transactions", params={"reference": "SBX-\x00"}),
        client.get("/customers/external-accounts", params={"customerId": "Customer:\x00"}),
        client.get("/agents", params={"customerId": "Customer:\x00"}),
        client.get("/quotes/Quote:%00"),
        client.get("/transactions/Transaction:%00"),
        client.get("/invitations/%00"),
        client.request("DELETE", "/auth/sessions/Session:%00"),
        client.post(
            "/quotes",
            {
                "source": {"accountId": "InternalAccount:\x00"},
                "destination": {"accountId": customer["USD"]},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": 100,
            },
        ),
        client.post("/customers", {"platformCustomerId": "c-\x00", "currencies": ["USD"]}),
    ]
    for response in refused:
        assert response.status_code == 400, (response.request.url, response.text)
        assert response.json()["code"] == "INVALID_INPUT"
    # Nothing was stored, and the same lookups without NUL answer as before.
    listed = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    assert listed.status_code == 200 and listed.json()["totalCount"] == 3
    assert client.get("/quotes/Quote:x").status_code == 404


def test_concurrent_executes_on_two_processes_run_the_quote_once(
    clients: list[SandboxClient],
) -> None:
    customer = funded_customer(clients[0], eur=1_000_000)
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer["EUR"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["USD"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 10_000,
    }
    for _ in range(3):
        quote = clients[0].post("/quotes", body).json()
        path = f"/quotes/{quote['id']}/execute"
        answers = race([lambda c=c, p=path: c.post(p) for c in clients * 4])
        outcomes = Counter(outcome(answer, 200) for answer in answers)
        assert outcomes == {"200": 1, "409 QUOTE_ALREADY_EXECUTED": 7}, outcomes
    assert balance(clients[1], customer["id"], "EUR") == 1_000_000 - 3 * 10_000
    listed = clients[1].get("/transactions", params={"customerId": customer["id"]}).json()
    assert listed["totalCount"] == 3


def test_concurrent_idempotent_executes_answer_alike(clients: list[SandboxClient]) -> None:
    customer = funded_customer(clients[0], eur=100_000)
    quote = (
        clients[0]
        .post(
            "/quotes",
            {
                "source": {"sourceType": "ACCOUNT", "accountId": customer["EUR"]},
                "destination": {"destinationType": "ACCOUNT", "accountId": customer["USD"]},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": 10_000,
            },
        )
        .json()
    )
    path = f"/quotes/{quote['id']}/execute"
    headers = {"Idempotency-Key": f"execute-{quote['id']}"}
    answers = race([lambda c=c: c.post(path, headers=headers) for c in clients * 4])
    # One execution; the other requests replay its answer or find it still running (409).
    executed = [r for r in answers if r.status_code == 200]
    assert len([r for r in executed if "Idempotent-Replayed" not in r.headers]) == 1
    assert len({response.json()["transactionId"] for response in executed}) == 1
    for response in answers:
        if response.status_code != 200:
            assert response.status_code == 409, response.text
            assert response.json()["code"] == "IDEMPOTENCY_REQUEST_IN_PROGRESS"
    assert balance(clients[0], customer["id"], "EUR") == 100_000 - 10_000


def test_concurrent_transfers_never_overdraw(clients: list[SandboxClient]) -> None:
    customer = funded_customer(clients[0], usd=1_000)
    external = usd_external(clients[0], customer["id"], "000")
    body = {
        "source": {"accountId": customer["USD"]},
        "destination": {"accountId": external["id"]},
        "amount": 300,
    }
    answers = race([lambda c=c: c.post("/transfer-out", body) for c in clients * 4])
    statuses = Counter(response.status_code for response in answers)
    assert statuses == {201: 3, 400: 5}, [r.text for r in answers]
    assert all(
        response.json()["code"] == "INSUFFICIENT_FUNDS"
        for response in answers
        if response.status_code == 400
    )
    assert balance(clients[1], customer["id"], "USD") == 100


def test_an_invitation_is_claimed_once(clients: list[SandboxClient]) -> None:
    clients[0].create_customer(umaAddress="$race.inviter@sandbox.test", currencies=["USD"])
    created = clients[0].post("/invitations", {"inviterUma": "$race.inviter@sandbox.test"})
    assert created.status_code == 201, created.text
    path = f"/invitations/{created.json()['code']}/claim"
    answers = race(
        [
            lambda c=c, i=i: c.post(path, {"inviteeUma": f"$race.invitee{i}@sandbox.test"})
            for i, c in enumerate(clients * 4)
        ]
    )
    statuses = Counter(response.status_code for response in answers)
    assert statuses == {200: 1, 400: 7}, [r.text for r in answers]
    winner = next(response.json() for response in answers if response.status_code == 200)
    stored = clients[1].get(f"/invitations/{created.json()['code']}").json()
    assert stored["status"] == "CLAIMED" and stored["inviteeUma"] == winner["inviteeUma"]


def test_a_pending_agent_action_is_decided_once(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    customer = funded_customer(clients[0], usd=1_000_00)
    policy = {
        "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES", "VIEW_TRANSACTIONS"],
        "defaultExecutionMode": "AUTO",
        "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000_000},
        "approvalThresholds": {"currency": "USD", "amount": 10_000},
    }
    created = clients[0].post(
        "/agents", {"name": "racer", "customerId": customer["id"], "policy": policy}
    )
    assert created.status_code == 201, created.text
    agent_id = created.json()["agent"]["id"]
    code = created.json()["deviceCode"]["code"]
    token = httpx.post(f"{pair[0].base_url}/agents/device-codes/{code}/redeem").json()
    with httpx.Client(
        base_url=pair[1].base_url, headers={"Authorization": f"Bearer {token['accessToken']}"}
    ) as agent:
        quote = agent.post(
            "/agents/me/quotes",
            json={
                "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
                "destination": {"destinationType": "ACCOUNT", "accountId": customer["EUR"]},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": 200_00,
            },
        ).json()
        action = agent.post(f"/agents/me/quotes/{quote['id']}/execute").json()
    assert action["status"] == "PENDING_APPROVAL"
    base = f"/agents/{agent_id}/actions/{action['id']}"
    calls = [lambda c=c: c.post(f"{base}/approve") for c in clients * 2]
    calls += [lambda c=c: c.post(f"{base}/reject", {"reason": "no"}) for c in clients * 2]
    answers = race(calls)
    outcomes = Counter(outcome(answer, 200) for answer in answers)
    assert outcomes == {"200": 1, "409 ACTION_NOT_PENDING": 7}, outcomes
    decided = next(response.json() for response in answers if response.status_code == 200)
    spent = 200_00 if decided["status"] == "APPROVED" else 0
    assert balance(clients[0], customer["id"], "USD") == 1_000_00 - spent
    listed = clients[1].get("/transactions", params={"customerId": customer["id"]}).json()
    # The quote's one transaction (it exists from the quote's creation): run once if approved,
    # still PENDING if rejected.
    assert listed["totalCount"] == 1
    assert (listed["data"][0]["status"] != "PENDING") == bool(spent), listed["data"][0]


def test_concurrent_agent_submissions_keep_the_daily_limits(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    """Eight transfers at once through both processes, with a daily limit of two transactions
    and of 250.00 USD: two run, the others are refused, whichever processes they reach."""
    customer = funded_customer(clients[0], usd=1_000_00)
    external = usd_external(clients[0], customer["id"], "000")["id"]
    policy = {
        "permissions": ["CREATE_TRANSFERS", "VIEW_TRANSACTIONS"],
        "defaultExecutionMode": "AUTO",
        "spendingLimits": {
            "currency": "USD",
            "perTransactionLimit": 1_000_00,
            "dailyLimit": 250_00,
            "dailyTransactionLimit": 2,
        },
        "approvalThresholds": {"currency": "USD", "amount": 1_000_00},
    }
    created = clients[0].post(
        "/agents", {"name": "spender", "customerId": customer["id"], "policy": policy}
    )
    assert created.status_code == 201, created.text
    code = created.json()["deviceCode"]["code"]
    token = httpx.post(f"{pair[0].base_url}/agents/device-codes/{code}/redeem").json()
    headers = {"Authorization": f"Bearer {token['accessToken']}"}
    body = {
        "source": {"accountId": customer["USD"]},
        "destination": {"accountId": external},
        "amount": 100_00,
    }
    agents = [httpx.Client(base_url=server.base_url, headers=headers) for server in pair]
    try:
        answers = race(
            [lambda a=a: a.post("/agents/me/transfer-out", json=body) for a in agents * 4]
        )
    finally:
        for agent in agents:
            agent.close()
    statuses = Counter(response.status_code for response in answers)
    assert statuses == {201: 2, 403: 6}, [r.text for r in answers]
    refused = [r.json() for r in answers if r.status_code == 403]
    assert {error["code"] for error in refused} == {"POLICY_LIMIT_EXCEEDED"}


def test_the_default_deposit_account_is_unique_under_concurrency(
    clients: list[SandboxClient],
) -> None:
    customer = funded_customer(clients[0])
    body = {
        "customerId": customer["id"],
        "currency": "USD",
        "defaultUmaDepositAccount": True,
        "accountInfo": {
            "accountType": "USD_ACCOUNT",
            "accountNumber": "1234567000",
            "routingNumber": "021000021",
            "bankAccountType": "CHECKING",
            "bankName": "Test Bank",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
        },
    }
    answers = race([lambda c=c: c.post("/customers/external-accounts", body) for c in clients * 3])
    assert {outcome(answer, 201) for answer in answers} <= {"201", "409 CONFLICT"}, answers
    assert any(response.status_code == 201 for response in answers)
    listed = (
        clients[1].get("/customers/external-accounts", params={"customerId": customer["id"]}).json()
    )
    defaults = [a for a in listed["data"] if a["defaultUmaDepositAccount"]]
    assert len(defaults) == 1, listed


def test_two_processes_deliver_each_event_once(
    clients: list[SandboxClient], receiver: Receiver
) -> None:
    # The last test of the module: the endpoint stays configured (PATCH cannot unset it).
    patched = clients[0].request("PATCH", "/config", json={"webhookEndpoint": receiver.url})
    assert patched.status_code == 200, patched.text
    customer = funded_customer(clients[0], usd=100_000)
    external = usd_external(clients[0], customer["id"], "000")
    body = {
        "source": {"accountId": customer["USD"]},
        "destination": {"accountId": external["id"]},
        "amount": 100,
    }
    made = race([lambda c=c: c.post("/transfer-out", body) for c in clients * 5])
    assert {response.status_code for response in made} == {201}
    ids = {response.json()["id"] for response in made}

    def mine() -> list[dict[str, Any]]:
        return [
            event
            for event in receiver.events()
            if event["type"].startswith("OUTGOING_PAYMENT.") and event["data"]["id"] in ids
        ]

    def completed(events: list[dict[str, Any]]) -> bool:
        done = {
            event["data"]["id"] for event in events if event["type"] == "OUTGOING_PAYMENT.COMPLETED"
        }
        return done == ids

    events = wait_for(lambda: {"events": mine()}, lambda value: completed(value["events"]))[
        "events"
    ]
    assert completed(events)
    counts = Counter(event["id"] for event in events)
    assert set(counts.values()) == {1}, counts
    with receiver.lock:
        headers = [dict(h) for h, _ in receiver.requests]
    seen = Counter(h.get("X-Grid-Webhook-Id") for h in headers)
    assert all(seen[event_id] == 1 for event_id in counts)


def test_a_held_incoming_payment_is_approved_once(
    clients: list[SandboxClient], receiver: Receiver
) -> None:
    # After the webhook test: the endpoint is configured; a 202 holds the payment.
    receiver.answers["INCOMING_PAYMENT.PENDING"] = [202]
    try:
        customer = clients[0].create_customer(currencies=["USD"])["id"]
        created = clients[0].post(
            "/sandbox/uma/receive",
            {
                "senderUmaAddress": "$carol@other.example",
                "receivingCurrencyCode": "USD",
                "receivingCurrencyAmount": 700,
                "customerId": customer,
            },
        )
        assert created.status_code == 200, created.text
        path = f"/transactions/{created.json()['id']}/approve"
        wait_for(
            lambda: {"events": receiver.events("INCOMING_PAYMENT.PENDING")},
            lambda value: any(
                event["data"]["id"] == created.json()["id"] for event in value["events"]
            ),
        )
        body = {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe"}}
        answers = race([lambda c=c: c.post(path, body) for c in clients * 4])
        outcomes = Counter(outcome(answer, 200) for answer in answers)
        assert outcomes == {"200": 1, "409 TRANSACTION_NOT_AWAITING_APPROVAL": 7}, outcomes
        assert balance(clients[1], customer, "USD") == 700
    finally:
        receiver.answers.pop("INCOMING_PAYMENT.PENDING", None)


def test_an_approving_webhook_and_approve_calls_credit_once(
    clients: list[SandboxClient], receiver: Receiver
) -> None:
    # The webhook answers 200 (approves) while the platform also calls approve: whichever
    # decides first, the payment completes once and is credited once.
    customer = clients[0].create_customer(currencies=["USD"])["id"]
    created = clients[0].post(
        "/sandbox/uma/receive",
        {
            "senderUmaAddress": "$dave@other.example",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 900,
            "customerId": customer,
        },
    )
    assert created.status_code == 200, created.text
    path = f"/transactions/{created.json()['id']}/approve"
    body = {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe"}}
    answers = race([lambda c=c: c.post(path, body) for c in clients * 4])
    assert Counter(response.status_code for response in answers)[200] <= 1
    done = settled(clients[1], created.json()["id"])
    assert done["status"] == "COMPLETED"
    assert balance(clients[0], customer, "USD") == 900
