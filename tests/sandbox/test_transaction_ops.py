"""The platform's later decisions on transactions and external accounts over real HTTP, in both
environments, on SQLite and PostgreSQL: reject a held incoming payment, cancel a bank transfer
before it settles (refunded once), confirm a receipt's delivery; delete an external account,
ownership challenge and verify (409 for every bank account); the accounts of an agent's
customer under ``/agents/me``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._agents import POLICY, Agent, connect
from ._client import SandboxClient
from ._identity import oidc_arguments
from ._payments import Receiver, accounts, balance, fund, usd_external, webhook_receiver
from ._server import SandboxServer
from .conftest import database_url

#: Transfers settle after 2 simulated seconds: 40 s here, so a cancellation comes first.
TIME_SCALE = 20.0


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with webhook_receiver() as running:
        yield running


@pytest.fixture(scope="module")
def server(
    backend: str,
    environment: str,
    jwks_url: str,
    receiver: Receiver,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path_factory.mktemp(f"transaction-ops-{backend}-{environment}"),
        database=database_url(request, backend, f"txops{environment}"),
        environment=environment,
        time_scale=TIME_SCALE,
        extra=oidc_arguments(jwks_url),
    )
    running.start()
    api = SandboxClient(running.base_url, running.auth)
    receiver.answers["INCOMING_PAYMENT"] = [202]  # hold every incoming payment
    patched = api.request("PATCH", "/config", json={"webhookEndpoint": receiver.url})
    assert patched.status_code == 200, patched.text
    api.close()
    yield running
    assert running.stop() == 0


def _error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["code"] == code, response.text


def held_payment(client: SandboxClient, customer_id: str) -> dict[str, Any]:
    """An incoming UMA payment held for the platform's approval (sandbox only)."""
    response = client.post(
        "/sandbox/uma/receive",
        {
            "senderUmaAddress": "$sender@other.test",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 1_000,
            "customerId": customer_id,
        },
    )
    assert response.status_code == 200, response.text
    held: dict[str, Any] = response.json()
    assert held["status"] == "PENDING", held
    return held


def test_reject_a_held_payment(client: SandboxClient, environment: str) -> None:
    _error(client.post("/transactions/Transaction:nope/reject"), 404, "NOT_FOUND")
    if environment == "production":
        return  # no incoming payment can be simulated in production
    customer = client.create_customer(currencies=["USD"])
    held = held_payment(client, customer["id"])
    path = f"/transactions/{held['id']}/reject"
    _error(client.post(path, {"reason": ""}), 400, "INVALID_INPUT")
    rejected = client.post(path, {"reason": "RESTRICTED_JURISDICTION"})
    assert rejected.status_code == 200, rejected.text
    assert rejected.json()["status"] == "REJECTED" and rejected.json()["type"] == "INCOMING"
    _error(client.post(path), 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
    approve = client.post(f"/transactions/{held['id']}/approve", {"receiverCustomerInfo": {}})
    assert approve.status_code == 409, approve.text
    assert balance(client, customer["id"], "USD") == 0  # nothing credited
    # An approved payment can no longer be rejected.
    other = held_payment(client, customer["id"])
    info = {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe", "BIRTH_DATE": "1990-01-01"}}
    approved = client.post(f"/transactions/{other['id']}/approve", info)
    assert approved.status_code == 200, approved.text
    _error(
        client.post(f"/transactions/{other['id']}/reject"),
        409,
        "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
    )


def _transfer(client: SandboxClient, environment: str, customer_id: str) -> dict[str, Any]:
    """A transfer that has not settled: out (refundable) in sandbox, in (pulled) in production
    (where internal accounts cannot be funded)."""
    usd = accounts(client, customer_id)["USD"]["id"]
    external = usd_external(client, customer_id, "010")
    if environment == "sandbox":
        fund(client, usd, 5_000)
        body = {"source": {"accountId": usd}, "destination": {"accountId": external["id"]}}
        response = client.post("/transfer-out", {**body, "amount": 1_200})
    else:
        body = {"source": {"accountId": external["id"]}, "destination": {"accountId": usd}}
        response = client.post("/transfer-in", {**body, "amount": 1_200})
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    assert made["status"] in ("PENDING", "PROCESSING"), made
    return made


def test_cancel_a_transfer_before_it_settles(client: SandboxClient, environment: str) -> None:
    customer = client.create_customer(currencies=["USD"])
    made = _transfer(client, environment, customer["id"])
    path = f"/transactions/{made['id']}/cancel"
    cancelled = client.post(path, {"reason": "REQUESTED_AFTER_HOURS"})
    assert cancelled.status_code == 200, cancelled.text
    if environment == "sandbox":
        assert cancelled.json()["status"] == "REFUNDED"
        refund = cancelled.json()["refund"]
        assert (refund["status"], refund["reason"]) == ("COMPLETED", "USER_CANCELLATION")
        assert balance(client, customer["id"], "USD") == 5_000  # the amount is back, once
    else:
        assert cancelled.json()["status"] == "FAILED"
        assert balance(client, customer["id"], "USD") == 0  # nothing was credited
    _error(client.post(path), 409, "TRANSACTION_NOT_CANCELLABLE")
    # A retry of the cancellation with its Idempotency-Key gets the first answer.
    other = _transfer(client, environment, customer["id"])
    key = {"Idempotency-Key": f"cancel-{other['id']}"}
    once, again = (
        client.post(f"/transactions/{other['id']}/cancel", headers=key) for _ in range(2)
    )
    assert once.status_code == again.status_code == 200, again.text
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == once.json()
    if environment == "sandbox":
        assert balance(client, customer["id"], "USD") == 2 * 5_000  # both refunded, once each
    assert client.get(f"/transactions/{made['id']}").json()["status"] == cancelled.json()["status"]
    _error(client.post("/transactions/Transaction:nope/cancel"), 404, "NOT_FOUND")


def test_only_bank_transfers_can_be_cancelled(client: SandboxClient, environment: str) -> None:
    if environment == "production":
        return
    customer = client.create_customer(currencies=["USD"])
    held = held_payment(client, customer["id"])
    _error(
        client.post(f"/transactions/{held['id']}/cancel"), 400, "TRANSACTION_NOT_CANCELLABLE_TYPE"
    )


def test_confirm_a_receipt(client: SandboxClient, environment: str) -> None:
    customer = client.create_customer(currencies=["USD"])
    made = _transfer(client, environment, customer["id"])
    path = f"/transactions/{made['id']}/confirm"
    now = client.post(path)
    assert now.status_code == 200, now.text
    assert now.json()["receiptDeliveryConfirmedAt"].endswith("Z")
    given = client.post(path, {"receiptDeliveryConfirmedAt": "2025-08-15T14:31:00+02:00"})
    assert given.json()["receiptDeliveryConfirmedAt"] == "2025-08-15T12:31:00.000Z"
    fetched = client.get(f"/transactions/{made['id']}").json()
    assert fetched["receiptDeliveryConfirmedAt"] == "2025-08-15T12:31:00.000Z"
    for bad in ("yesterday", "1700000000", "0001-01-01T00:00:00+01:00"):
        _error(client.post(path, {"receiptDeliveryConfirmedAt": bad}), 400, "INVALID_INPUT")
    _error(client.post("/transactions/Transaction:nope/confirm"), 404, "NOT_FOUND")


def test_delete_and_ownership_of_external_accounts(client: SandboxClient) -> None:
    customer = client.create_customer(currencies=["USD"])
    for owner in (customer["id"], None):
        account = usd_external(client, owner, "010")
        prefix = "/customers" if owner else "/platform"
        path = f"{prefix}/external-accounts/{account['id']}"
        other = "/platform" if owner else "/customers"
        _error(
            client.request("DELETE", f"{other}/external-accounts/{account['id']}"), 404, "NOT_FOUND"
        )
        _error(client.post(f"{path}/challenge", {"method": "SELFIE"}), 400, "INVALID_INPUT")
        _error(
            client.post(f"{path}/challenge", {"method": "WALLET_SIGNATURE"}),
            409,
            "OWNERSHIP_VERIFICATION_NOT_APPLICABLE",
        )
        _error(client.post(f"{path}/verify", {}), 400, "INVALID_INPUT")
        _error(client.post(f"{path}/verify", {"signature": "0x00"}), 409, "NO_OWNERSHIP_CHALLENGE")
        deleted = client.request("DELETE", path)
        assert deleted.status_code == 204 and deleted.content == b""
        _error(client.get(path), 404, "NOT_FOUND")
        _error(client.request("DELETE", path), 404, "NOT_FOUND")
        _error(client.post(f"{path}/verify", {"signature": "0x00"}), 404, "NOT_FOUND")


def test_agent_accounts(server: SandboxServer, client: SandboxClient) -> None:
    made: list[Agent] = []
    try:
        customer = client.create_customer(currencies=["USD", "EUR"])
        stranger = client.create_customer(currencies=["USD"])
        mine = usd_external(client, customer["id"], "010")
        theirs = usd_external(client, stranger["id"], "010")
        manage = {**POLICY, "permissions": ["VIEW_TRANSACTIONS", "MANAGE_EXTERNAL_ACCOUNTS"]}
        agent = connect(server, client, made, customer["id"], manage)
        listed = agent.get("/agents/me/internal-accounts")
        assert listed.status_code == 200, listed.text
        own = {a["id"] for a in accounts(client, customer["id"]).values()}
        assert {a["id"] for a in listed.json()["data"]} == own
        wallets = agent.get("/agents/me/internal-accounts", params={"type": "EMBEDDED_WALLET"})
        assert [a["type"] for a in wallets.json()["data"]] == ["EMBEDDED_WALLET"]
        externals = agent.get("/agents/me/external-accounts").json()
        assert [a["id"] for a in externals["data"]] == [mine["id"]]
        assert agent.get(f"/agents/me/external-accounts/{mine['id']}").json()["id"] == mine["id"]
        _error(agent.get(f"/agents/me/external-accounts/{theirs['id']}"), 404, "NOT_FOUND")
        foreign = agent.http.delete(f"/agents/me/external-accounts/{theirs['id']}")
        _error(foreign, 404, "NOT_FOUND")
        info = {
            "accountType": "USD_ACCOUNT",
            "accountNumber": "5554443010",
            "routingNumber": "021000021",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
        }
        added = agent.post("/agents/me/external-accounts", {"currency": "USD", "accountInfo": info})
        assert added.status_code == 201, added.text
        assert added.json()["customerId"] == customer["id"]
        stray = {"currency": "USD", "accountInfo": info, "customerId": stranger["id"]}
        _error(agent.post("/agents/me/external-accounts", stray), 400, "INVALID_INPUT")
        removed = agent.http.delete(f"/agents/me/external-accounts/{added.json()['id']}")
        assert removed.status_code == 204, removed.text
        gone = agent.http.delete(f"/agents/me/external-accounts/{mine['id']}")
        assert gone.status_code == 204, gone.text
        assert agent.get("/agents/me/external-accounts").json()["data"] == []
        _error(agent.get("/agents/me/internal-accounts", params={"limit": 0}), 400, "INVALID_INPUT")
        # Without MANAGE_EXTERNAL_ACCOUNTS: the internal accounts only.
        viewer = connect(server, client, made, customer["id"], POLICY)
        assert viewer.get("/agents/me/internal-accounts").status_code == 200
        _error(viewer.get("/agents/me/external-accounts"), 403, "POLICY_PERMISSION_DENIED")
        anonymous = httpx.get(f"{server.base_url}/agents/me/internal-accounts", timeout=30)
        assert anonymous.status_code == 401
    finally:
        for agent in made:
            agent.http.close()
