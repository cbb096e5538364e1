"""The interface's rules that no other module proves, over real HTTP against ``ewc serve`` in
both environments (sandbox and production) where the interface allows both: the holding-account
types and their funding instructions, the agent's same-currency transfers as TRANSFER_OUT and
TRANSFER_IN AgentActions, every transfer-in suffix row, the quote lifetime and the answers to
executing a quote twice or too late, receiver lookups and the lookupId of a quote, the
per-currency configuration on transfers, and the list envelope of every list endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._hostile import INVALID, NOT_FOUND, Answers, Outcome, send, variants
from ._payments import (
    Receiver,
    accounts,
    balance,
    settled,
    usd_external,
    wait_for,
    webhook_receiver,
)
from ._server import SandboxServer
from .conftest import database_url

#: A quote lives 5 simulated minutes: 3 s here; a transfer settles in 20 ms.
TIME_SCALE = 0.01


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


# --- holding accounts --------------------------------------------------------------------------


def test_holding_accounts_and_their_funding_instructions(api: SandboxClient) -> None:
    customer = api.create_customer(currencies=["USD", "EUR", "USDC"])

    def listed(**params: str) -> list[dict[str, Any]]:
        response = api.get(
            "/customers/internal-accounts", params={"customerId": customer["id"], **params}
        )
        assert response.status_code == 200, response.text
        data: list[dict[str, Any]] = response.json()["data"]
        return data

    every = listed()
    kinds = sorted((a["type"], a["balance"]["currency"]["code"]) for a in every)
    assert kinds == [
        ("EMBEDDED_WALLET", "USDC"),
        ("INTERNAL_CRYPTO", "USDC"),
        ("INTERNAL_FIAT", "EUR"),
        ("INTERNAL_FIAT", "USD"),
    ]
    assert [a["type"] for a in listed(type="INTERNAL_CRYPTO")] == ["INTERNAL_CRYPTO"]
    assert len(listed(currency="USDC")) == 2
    assert [a["type"] for a in listed(currency="USD", type="INTERNAL_FIAT")] == ["INTERNAL_FIAT"]
    assert listed(currency="GBP") == []
    for account in every:
        assert account["id"].startswith("InternalAccount:")
        assert account["customerId"] == customer["id"]
        assert account["balance"]["amount"] == 0
        assert set(account["balance"]["currency"]) == {"code", "name", "symbol", "decimals"}
        datetime.fromisoformat(account["createdAt"].replace("Z", "+00:00"))
        datetime.fromisoformat(account["updatedAt"].replace("Z", "+00:00"))
        (instruction,) = account["fundingPaymentInstructions"]
        assert isinstance(instruction["isPlatformAccount"], bool)
        info = instruction["accountOrWalletInfo"]
        if account["balance"]["currency"]["code"] == "USD":
            assert info["accountType"] == "USD_ACCOUNT"
            assert info["paymentRails"] and info["routingNumber"] and info["reference"]
            assert info["accountNumber"] and info["bankName"]
        if account["type"] != "INTERNAL_FIAT":
            assert info["accountType"] == "SPARK_WALLET"
            assert info["assetType"] == "USDC" and info["address"]
    # The same account always shows the same instructions.
    assert listed() == every


def test_an_internal_crypto_source_may_execute_immediately(api: SandboxClient) -> None:
    customer = funded_customer(api, 50_00, ["USD", "USDC"])
    quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["USDC"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 20_00,
        "immediatelyExecute": True,
    }
    executed = api.post("/quotes", quote)
    assert executed.status_code == 201, executed.text
    assert settled(api, executed.json()["transactionId"])["status"] == "COMPLETED"
    back = {
        **quote,
        "source": {"sourceType": "ACCOUNT", "accountId": customer["USDC"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["USD"]},
        "lockedCurrencyAmount": executed.json()["totalReceivingAmount"],
    }
    returned = api.post("/quotes", back)  # from INTERNAL_CRYPTO: allowed too
    assert returned.status_code == 201, returned.text
    assert settled(api, returned.json()["transactionId"])["status"] == "COMPLETED"


# --- an embedded wallet pays, in both environments ----------------------------------------------


def test_an_embedded_wallet_source_signs_its_execution(
    env_server: SandboxServer, api: SandboxClient, environment: str
) -> None:
    wallet = Wallet(api, env_server)
    _, key = wallet.first_login("EMAIL_OTP")
    owner = next(
        a["customerId"]
        for a in api.get(
            "/customers/internal-accounts", params={"type": "EMBEDDED_WALLET", "limit": 100}
        ).json()["data"]
        if a["id"] == wallet.account_id
    )
    usd = accounts(api, owner)["USD"]["id"]
    external = usd_external(api, owner, "010")
    settled(api, transfer_in(api, external["id"], usd, 100_00)["id"])
    # Fill the wallet (USDC) from the USD account: no signature, the source is INTERNAL_FIAT.
    filled = api.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": usd},
            "destination": {"destinationType": "ACCOUNT", "accountId": wallet.account_id},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 80_00,
            "immediatelyExecute": True,
        },
    )
    assert filled.status_code == 201, filled.text
    assert settled(api, filled.json()["transactionId"])["status"] == "COMPLETED"
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": wallet.account_id},
        "destination": {"destinationType": "ACCOUNT", "accountId": external["id"]},
        "lockedCurrencySide": "RECEIVING",
        "lockedCurrencyAmount": 10_00,
    }
    refused = api.post("/quotes", {**body, "immediatelyExecute": True})
    assert refused.json()["code"] == "IMMEDIATE_EXECUTION_NOT_SUPPORTED"
    quote = api.post("/quotes", body).json()
    (instruction,) = quote["paymentInstructions"]
    payload = instruction["payloadToSign"]
    execute = f"/quotes/{quote['id']}/execute"
    assert api.post(execute).status_code == 401
    magic = api.post(execute, headers={"Service-Wallet-Signature": "sandbox-valid-signature"})
    if environment == "production":  # the magic value is refused like any wrong value
        assert magic.status_code == 401
        assert magic.json()["reason"] == "Invalid Service-Wallet-Signature"
        executed = api.post(
            execute, headers={"Service-Wallet-Signature": ewc.create_stamp(payload, key)}
        )
    else:
        executed = magic
    assert executed.status_code == 200, executed.text
    assert settled(api, quote["transactionId"])["status"] == "COMPLETED"


def test_a_wallet_is_named_by_either_prefix(api: SandboxClient) -> None:
    account_id = api.new_wallet()
    alias = "EmbeddedWallet:" + account_id.split(":", 1)[1]
    created = api.post("/auth/credentials", {"type": "EMAIL_OTP", "accountId": alias})
    assert created.status_code == 201, created.text
    for name in (alias, account_id):
        listed = api.get("/auth/credentials", params={"accountId": name})
        assert listed.status_code == 200, listed.text
        assert list(listed.json()) == ["data"]  # unpaginated: data only
        assert [c["id"] for c in listed.json()["data"]] == [created.json()["id"]]
    fiat = api.get(
        "/customers/internal-accounts", params={"type": "INTERNAL_FIAT", "limit": 1}
    ).json()["data"][0]["id"]
    not_a_wallet = "EmbeddedWallet:" + fiat.split(":", 1)[1]
    refused = api.post("/auth/credentials", {"type": "EMAIL_OTP", "accountId": not_a_wallet})
    assert refused.status_code == 404


# --- the platform configuration ------------------------------------------------------------------


def test_the_platform_configuration(api: SandboxClient) -> None:
    config = api.get("/config").json()
    assert config["id"].startswith("PlatformConfig:")
    assert isinstance(config["isRegulatedFinancialInstitution"], bool)
    assert config["umaDomain"] and config["proxyUmaSubdomain"]
    for entry in config["supportedCurrencies"]:
        assert set(entry) == {
            "currencyCode",
            "minAmount",
            "maxAmount",
            "enabledTransactionTypes",
            "requiredCounterpartyFields",
            "providerRequiredCustomerFields",
            "providerRequiredCounterpartyCustomerFields",
        }
    patched = api.request(
        "PATCH",
        "/config",
        json={
            "umaDomain": "pay.example.com",
            "id": "PlatformConfig:mine",  # read-only fields are ignored
            "isRegulatedFinancialInstitution": not config["isRegulatedFinancialInstitution"],
        },
    )
    assert patched.status_code == 200, patched.text
    after = patched.json()
    assert after["umaDomain"] == "pay.example.com"
    assert after["id"] == config["id"] and after["createdAt"] == config["createdAt"]
    assert after["isRegulatedFinancialInstitution"] == config["isRegulatedFinancialInstitution"]
    assert api.get("/config").json() == after
    bad = api.request(
        "PATCH",
        "/config",
        json={"supportedCurrencies": [{"currencyCode": "USD", "minAmount": 5, "maxAmount": 4}]},
    )
    assert bad.status_code == 400
    api.request("PATCH", "/config", json={"umaDomain": config["umaDomain"]})


# --- the agent's transfers ---------------------------------------------------------------------

TRANSFER_POLICY: dict[str, Any] = {
    "permissions": ["CREATE_TRANSFERS", "VIEW_TRANSACTIONS"],
    "defaultExecutionMode": "AUTO",
    "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000_00},
    "approvalThresholds": {"currency": "USD", "amount": 100_00},
}


def test_agent_transfers_are_agent_actions(
    env_server: SandboxServer, api: SandboxClient, bearer: list[httpx.Client]
) -> None:
    customer = funded_customer(api, 0, ["USD", "EUR"])
    agent_id, agent = connect_agent(env_server, api, bearer, customer["id"], TRANSFER_POLICY)
    inward = {
        "source": {"accountId": customer["external"]},
        "destination": {"accountId": customer["USD"]},
    }
    outward = {
        "source": {"accountId": customer["USD"]},
        "destination": {"accountId": customer["external"]},
    }

    # none -> APPROVED: under the threshold it runs at once, the transaction populated.
    auto = agent.post("/agents/me/transfer-in", json={**inward, "amount": 90_00})
    assert auto.status_code == 201, auto.text
    action = auto.json()
    assert action["type"] == "TRANSFER_IN" and action["status"] == "APPROVED"
    assert action["id"].startswith("AgentAction:") and action["agentId"] == agent_id
    assert action["customerId"] == customer["id"] and "quote" not in action
    assert action["transferDetails"] == {
        "amount": 90_00,
        "currency": "USD",
        "sourceAccountId": customer["external"],
        "destinationAccountId": customer["USD"],
    }
    transaction = action["transaction"]
    assert transaction["type"] == "INCOMING" and transaction["agentId"] == agent_id
    assert settled(api, transaction["id"])["status"] == "COMPLETED"
    assert balance(api, customer["id"], "USD") == 90_00

    # The same Idempotency-Key gets the first answer.
    key = {"Idempotency-Key": "agent-transfer-1"}
    first = agent.post("/agents/me/transfer-out", json={**outward, "amount": 10_00}, headers=key)
    again = agent.post("/agents/me/transfer-out", json={**outward, "amount": 10_00}, headers=key)
    assert first.status_code == again.status_code == 201, first.text
    assert first.json()["id"] == again.json()["id"]
    assert first.json()["type"] == "TRANSFER_OUT" and first.json()["status"] == "APPROVED"
    assert first.json()["transaction"]["type"] == "OUTGOING"
    assert settled(api, first.json()["transaction"]["id"])["status"] == "COMPLETED"
    assert balance(api, customer["id"], "USD") == 80_00

    # Above the threshold: PENDING_APPROVAL without a transaction, in the platform's queue.
    pending = agent.post("/agents/me/transfer-in", json={**inward, "amount": 200_00}).json()
    assert pending["status"] == "PENDING_APPROVAL" and "transaction" not in pending
    queue = api.get("/agents/approvals", params={"agentId": agent_id}).json()
    assert [a["id"] for a in queue["data"]] == [pending["id"]]
    assert queue["data"][0]["transferDetails"]["amount"] == 200_00
    decide = f"/agents/{agent_id}/actions/{pending['id']}"
    assert agent.post(f"{decide}/approve").status_code == 401  # the platform decides, not the agent
    approved = api.post(f"{decide}/approve")
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "APPROVED"
    assert settled(api, approved.json()["transaction"]["id"])["status"] == "COMPLETED"
    assert balance(api, customer["id"], "USD") == 280_00

    # PENDING_APPROVAL -> REJECTED: nothing runs.
    refused = agent.post("/agents/me/transfer-out", json={**outward, "amount": 150_00}).json()
    assert refused["status"] == "PENDING_APPROVAL"
    decide = f"/agents/{agent_id}/actions/{refused['id']}"
    rejected = api.post(f"{decide}/reject", {"reason": "Not today."}).json()
    assert rejected["status"] == "REJECTED" and rejected["rejectionReason"] == "Not today."
    assert "transaction" not in rejected
    assert api.post(f"{decide}/approve").status_code == 409
    assert balance(api, customer["id"], "USD") == 280_00

    # APPROVED -> FAILED: approved, but the balance is too low by then.
    short = agent.post("/agents/me/transfer-out", json={**outward, "amount": 500_00}).json()
    assert short["status"] == "PENDING_APPROVAL"
    failed = api.post(f"/agents/{agent_id}/actions/{short['id']}/approve").json()
    assert failed["status"] == "FAILED" and "transaction" not in failed
    assert balance(api, customer["id"], "USD") == 280_00

    mine = agent.get("/agents/me/actions").json()
    assert mine["totalCount"] == 5
    assert {a["type"] for a in mine["data"]} == {"TRANSFER_IN", "TRANSFER_OUT"}
    assert agent.get(f"/agents/me/actions/{short['id']}").json()["status"] == "FAILED"
    listed = agent.get("/agents/me/transactions", params={"limit": 100}).json()
    assert {t["agentId"] for t in listed["data"]} == {agent_id}
    assert all("reference" in t["reconciliationInstructions"] for t in listed["data"])


def test_an_execution_that_fails_at_once_fails_the_action(
    env_server: SandboxServer, api: SandboxClient, bearer: list[httpx.Client], environment: str
) -> None:
    customer = funded_customer(api, 100_00, ["USD", "EUR"])
    failing = usd_external(api, customer["id"], "002")  # the sandbox fails both at once
    policy = {
        **TRANSFER_POLICY,
        "permissions": ["CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES"],
    }
    _, agent = connect_agent(env_server, api, bearer, customer["id"], policy)
    sent = agent.post(
        "/agents/me/transfer-out",
        json={
            "source": {"accountId": customer["USD"]},
            "destination": {"accountId": failing["id"]},
            "amount": 10_00,
        },
    ).json()
    quote = agent.post(
        "/agents/me/quotes",
        json={
            "source": {"sourceType": "ACCOUNT", "accountId": customer["EUR"]},
            "destination": {"destinationType": "ACCOUNT", "accountId": failing["id"]},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": 10_00,
        },
    ).json()
    executed = agent.post(f"/agents/me/quotes/{quote['id']}/execute").json()
    assert executed["status"] == "FAILED"  # the EUR account is empty: no transaction
    assert "transaction" not in executed
    if environment == "production":  # suffixes select nothing: it runs
        assert sent["status"] == "APPROVED"
        assert settled(api, sent["transaction"]["id"])["status"] == "COMPLETED"
        return
    assert sent["status"] == "FAILED"  # APPROVED, then the execution failed at once
    assert sent["transaction"]["status"] == "FAILED"
    assert sent["transaction"]["failureReason"] == "FUNDING_AMOUNT_MISMATCH"
    assert balance(api, customer["id"], "USD") == 100_00  # returned
    # A quote execution to suffix 002 fails at once too.
    eur = api.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
            "destination": {"destinationType": "ACCOUNT", "accountId": customer["EUR"]},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 50_00,
            "immediatelyExecute": True,
        },
    ).json()
    assert settled(api, eur["transactionId"])["status"] == "COMPLETED"
    again = agent.post(
        "/agents/me/quotes",
        json={
            "source": {"sourceType": "ACCOUNT", "accountId": customer["EUR"]},
            "destination": {"destinationType": "ACCOUNT", "accountId": failing["id"]},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": 10_00,
        },
    ).json()
    failed = agent.post(f"/agents/me/quotes/{again['id']}/execute").json()
    assert failed["status"] == "FAILED"
    assert failed["transaction"]["failureReason"] == "QUOTE_EXECUTION_FAILED"


def test_agent_transfers_are_checked(
    env_server: SandboxServer, api: SandboxClient, bearer: list[httpx.Client]
) -> None:
    customer = funded_customer(api, 0, ["USD", "EUR"])
    other = funded_customer(api, 0, ["USD"])
    _, agent = connect_agent(env_server, api, bearer, customer["id"], TRANSFER_POLICY)
    quotes_only = {**TRANSFER_POLICY, "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES"]}
    _, no_transfers = connect_agent(env_server, api, bearer, customer["id"], quotes_only)

    def out(source: str, destination: str, amount: int = 10_00) -> dict[str, Any]:
        return {
            "source": {"accountId": source},
            "destination": {"accountId": destination},
            "amount": amount,
        }

    cases = [
        (no_transfers, out(customer["USD"], customer["external"]), 403, "POLICY_PERMISSION_DENIED"),
        (agent, out(customer["USD"], other["external"]), 403, "POLICY_ACCOUNT_NOT_ALLOWED"),
        (agent, out(other["USD"], customer["external"]), 403, "POLICY_ACCOUNT_NOT_ALLOWED"),
        (agent, out(customer["EUR"], customer["external"]), 400, "CURRENCY_MISMATCH"),
        (agent, out(customer["WALLET"], customer["external"]), 400, "CURRENCY_MISMATCH"),
        (agent, out("InternalAccount:nope", customer["external"]), 404, "NOT_FOUND"),
        (agent, out(customer["USD"], customer["external"], 2_000_00), 403, "POLICY_LIMIT_EXCEEDED"),
    ]
    for client, body, status, code in cases:
        response = client.post("/agents/me/transfer-out", json=body)
        assert (response.status_code, response.json()["code"]) == (status, code), body
    pull = out(customer["external"], customer["USD"])
    assert no_transfers.post("/agents/me/transfer-in", json=pull).status_code == 403
    unauthenticated = api.http.post("/agents/me/transfer-in", json=pull)
    assert unauthenticated.status_code == 401  # Basic is not an agent's Bearer token
    assert agent.get("/agents/me/actions").json()["totalCount"] == 0


@pytest.mark.sqlite_only  # pure validation (see the conftest)
def test_hostile_requests_to_the_agent_transfers_and_lookups(
    env_server: SandboxServer, api: SandboxClient, bearer: list[httpx.Client]
) -> None:
    customer = funded_customer(api, 0, ["USD"])
    _, agent = connect_agent(env_server, api, bearer, customer["id"], TRANSFER_POLICY)
    valid = {
        "source": {"accountId": customer["USD"]},
        "destination": {"accountId": customer["external"]},
        "amount": 1_00,
    }
    answers = Answers()
    for path in ("/agents/me/transfer-out", "/agents/me/transfer-in"):
        for label, body, _ in variants(valid):  # none stays valid: every field is required
            wanted = INVALID
            if path.endswith("-in") and label == 'source.accountId="\\u0000"':
                # KNOWN: on SQLite a NUL in the external account's id is looked up, and found
                # nowhere (PostgreSQL refuses the text: 400); quotes and transfer-out refuse it.
                wanted = NOT_FOUND
            answers.expect(send(agent, "POST", path, body), wanted, label)
    quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
        "destination": {"destinationType": "UMA_ADDRESS", "umaAddress": RECEIVER},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1_00,
        "lookupId": "Lookup:x",
        "senderCustomerInfo": {"FULL_NAME": "Jane Doe"},
    }
    # The lookup id names no lookup: what stays valid is answered LOOKUP_REQUEST_NOT_FOUND.
    lookup_missing = Outcome(404, "LOOKUP_REQUEST_NOT_FOUND")
    found = variants(
        quote,
        omittable={"source.sourceType", "senderCustomerInfo", "senderCustomerInfo.FULL_NAME"},
        nullable={"senderCustomerInfo"},
        text={"lookupId": 200, "senderCustomerInfo.FULL_NAME": 500},
        # KNOWN: the sender's information is only read once the lookup is found, so an empty
        # one and a NUL in a name are not refused before it.
        also=lambda name, value: (
            (name == "senderCustomerInfo" and value == {})
            or (name == "senderCustomerInfo.FULL_NAME" and value == "\x00")
        ),
    )
    for label, body, still_valid in found:
        wanted = lookup_missing if still_valid else INVALID
        answers.expect(send(api.http, "POST", "/quotes", body), wanted, label)
    # A receiver the sandbox does not know: UMA_NOT_FOUND for what could be an UMA address,
    # NOT_FOUND otherwise; an external account id with a NUL is text no id can hold (400).
    uma_missing = Outcome(404, "UMA_NOT_FOUND")
    for value, uma, account in (
        ("%00", NOT_FOUND, INVALID),
        ("x" * 300, uma_missing, NOT_FOUND),
        ("$%ED%A0%80@a.b", uma_missing, NOT_FOUND),
        ("%F0%9F%92%A9", NOT_FOUND, NOT_FOUND),
        ("$a@b.c", uma_missing, NOT_FOUND),
    ):
        for path, wanted in (
            (f"/receiver/uma/{value}", uma),
            (f"/receiver/external-account/{value}", account),
        ):
            answers.expect(api.get(path, params={"customerId": customer["id"]}), wanted)
            # A customer id that names no customer is looked up first.
            answers.expect(api.get(path, params={"customerId": value}), NOT_FOUND, "customerId")
            answers.expect(api.get(path, params={"senderUmaAddress": value}), wanted, "sender")
    answers.done()


# --- transfer-in, every suffix row -------------------------------------------------------------

#: Transfer in, by the external account's last three digits: the status at creation, the end.
TRANSFER_IN_ROWS = [
    ("002", "FAILED", "FAILED", "FUNDING_AMOUNT_MISMATCH"),  # insufficient funds, at once
    ("003", "FAILED", "FAILED", "ACCOUNT_INVALID"),  # account closed or invalid, at once
    ("004", "PROCESSING", "REJECTED", "ACCOUNT_CANNOT_RECEIVE"),  # the bank rejects it
    ("005", "PENDING", "FAILED", "COUNTERPARTY_POST_TX_FAILED"),  # pending ~30 s, then fails
    ("010", "PROCESSING", "COMPLETED", None),
]


@pytest.mark.parametrize(("suffix", "first", "final", "reason"), TRANSFER_IN_ROWS)
def test_transfer_in_suffix_rows(
    api: SandboxClient,
    environment: str,
    suffix: str,
    first: str,
    final: str,
    reason: str | None,
) -> None:
    customer = api.create_customer(currencies=["USD"])
    usd = accounts(api, customer["id"])["USD"]["id"]
    external = usd_external(api, customer["id"], suffix)
    created = transfer_in(api, external["id"], usd, 7_00)
    if environment == "production":  # the suffixes select nothing: every transfer succeeds
        first, final, reason = "PROCESSING", "COMPLETED", None
    assert created["status"] == first
    assert created["type"] == "INCOMING"
    assert created["reconciliationInstructions"]["reference"]
    done = settled(api, created["id"])
    assert done["status"] == final
    assert done.get("failureReason") == reason
    assert ("settledAt" in done) is (final == "COMPLETED")
    assert balance(api, customer["id"], "USD") == (7_00 if final == "COMPLETED" else 0)


# --- quotes ------------------------------------------------------------------------------------


def _seconds(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def test_quote_lifetime_and_executing_twice_or_too_late(api: SandboxClient) -> None:
    customer = funded_customer(api, 100_00, ["USD", "EUR"])
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["EUR"]},
        "lockedCurrencySide": "RECEIVING",
        "lockedCurrencyAmount": 10_00,
    }
    quote = api.post("/quotes", body).json()
    assert quote["totalReceivingAmount"] == 10_00  # the locked side
    waiting = api.get(f"/transactions/{quote['transactionId']}").json()  # PENDING: quote created
    assert (waiting["status"], waiting["type"], waiting["quoteId"]) == (
        "PENDING",
        "OUTGOING",
        quote["id"],
    )
    assert balance(api, customer["id"], "USD") == 100_00  # nothing moved yet
    lifetime = _seconds(quote["expiresAt"]) - _seconds(quote["createdAt"])
    assert 60 * TIME_SCALE - 0.002 <= lifetime <= 300 * TIME_SCALE + 0.002  # 1 to 5 minutes
    executed = api.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 200, executed.text
    twice = api.post(f"/quotes/{quote['id']}/execute")
    assert (twice.status_code, twice.json()["code"]) == (409, "QUOTE_ALREADY_EXECUTED")
    assert settled(api, quote["transactionId"])["status"] == "COMPLETED"
    # An executed quote never turns EXPIRED.
    late = api.post("/quotes", body).json()
    wait_for(lambda: api.get(f"/quotes/{late['id']}").json(), lambda q: q["status"] == "EXPIRED")
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"
    expired = api.post(f"/quotes/{late['id']}/execute")
    assert (expired.status_code, expired.json()["code"]) == (409, "QUOTE_EXPIRED")
    # Its transaction ends EXPIRED (the worker moves it at the quote's expiresAt).
    lapsed = settled(api, late["transactionId"])
    assert (lapsed["status"], lapsed["failureReason"]) == ("EXPIRED", "QUOTE_EXPIRED")
    assert balance(api, customer["id"], "USD") == 100_00 - quote["totalSendingAmount"]


# --- receiver lookups ----------------------------------------------------------------------------

RECEIVER = "$success.eur@sandbox.uma.invalid"


def test_a_quote_to_an_uma_address_names_its_lookup(api: SandboxClient) -> None:
    customer = funded_customer(api, 100_00, ["USD", "EUR"])
    lookup = api.get(f"/receiver/uma/{RECEIVER}", params={"customerId": customer["id"]})
    assert lookup.status_code == 200, lookup.text
    found = lookup.json()
    assert found["lookupId"].startswith("Lookup:") and found["receiverUmaAddress"] == RECEIVER
    (preference,) = found["supportedCurrencies"]
    assert preference["currency"]["code"] == "EUR" and preference["estimatedExchangeRate"] > 0
    assert 1 <= preference["min"] <= preference["max"]
    assert found["requiredPayerDataFields"] == [{"name": "FULL_NAME", "mandatory": True}]
    for path, params, status, code in [
        (f"/receiver/uma/{RECEIVER}", {}, 400, "INVALID_INPUT"),
        (f"/receiver/uma/{RECEIVER}", {"customerId": "Customer:nope"}, 404, "NOT_FOUND"),
        ("/receiver/uma/$nobody@example.com", {"senderUmaAddress": "$a@b.c"}, 404, "UMA_NOT_FOUND"),
        (
            "/receiver/external-account/ExternalAccount:nope",
            {"customerId": customer["id"]},
            404,
            "NOT_FOUND",
        ),
    ]:
        response = api.get(path, params=params)
        assert (response.status_code, response.json()["code"]) == (status, code), path

    body: dict[str, Any] = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
        "destination": {"destinationType": "UMA_ADDRESS", "umaAddress": RECEIVER},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 20_00,
    }
    other = api.get(
        "/receiver/uma/$success.mxn@sandbox.uma.invalid", params={"senderUmaAddress": "$a@b.c"}
    ).json()
    payer = {"senderCustomerInfo": {"FULL_NAME": "Jane Doe"}}
    for extra, status, code in [
        ({}, 400, "INVALID_INPUT"),  # no lookupId
        ({"lookupId": found["lookupId"]}, 400, "MISSING_MANDATORY_USER_INFO"),
        ({"lookupId": other["lookupId"], **payer}, 400, "INVALID_INPUT"),  # another receiver
        ({"lookupId": "Lookup:nope", **payer}, 404, "LOOKUP_REQUEST_NOT_FOUND"),
    ]:
        response = api.post("/quotes", {**body, **extra})
        assert (response.status_code, response.json()["code"]) == (status, code), extra
    paid = api.post("/quotes", {**body, "lookupId": found["lookupId"], **payer})
    assert paid.status_code == 201, paid.text
    assert paid.json()["receivingCurrency"]["code"] == "EUR"
    assert api.post(f"/quotes/{paid.json()['id']}/execute").status_code == 200
    assert settled(api, paid.json()["transactionId"])["status"] == "COMPLETED"

    # An external account's lookup: optional for its quote, but it must be of that account.
    eur = usd_external(api, customer["id"], "020")
    account = api.get(
        f"/receiver/external-account/{customer['external']}", params={"customerId": customer["id"]}
    ).json()
    assert account["accountId"] == customer["external"]
    assert account["supportedCurrencies"][0]["currency"]["code"] == "USD"
    assert account["requiredPayerDataFields"] == []
    to_account = {
        **body,
        "source": {"sourceType": "ACCOUNT", "accountId": customer["EUR"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["external"]},
    }
    assert api.post("/quotes", {**to_account, "lookupId": account["lookupId"]}).status_code == 201
    elsewhere = {
        **to_account,
        "destination": {"destinationType": "ACCOUNT", "accountId": eur["id"]},
    }
    assert api.post("/quotes", {**elsewhere, "lookupId": account["lookupId"]}).status_code == 400


# --- the per-currency configuration on transfers -----------------------------------------------


def test_supported_currencies_limit_transfers(api: SandboxClient) -> None:
    customer = funded_customer(api, 0, ["USD"])
    original = api.get("/config").json()["supportedCurrencies"]
    usd = next(entry for entry in original if entry["currencyCode"] == "USD")
    narrowed = [
        entry
        if entry is not usd
        else {
            **usd,
            "minAmount": 1_00,
            "maxAmount": 500_00,
            "enabledTransactionTypes": ["OUTGOING"],
        }
        for entry in original
    ]
    patched = api.request("PATCH", "/config", json={"supportedCurrencies": narrowed})
    assert patched.status_code == 200, patched.text
    try:
        assert api.get("/config").json()["supportedCurrencies"] == narrowed
        pull = {
            "source": {"accountId": customer["external"]},
            "destination": {"accountId": customer["USD"]},
            "amount": 10_00,
        }
        refused = api.post("/transfer-in", pull)  # INCOMING is not enabled for USD
        assert (refused.status_code, refused.json()["code"]) == (400, "UNSUPPORTED_CURRENCY")
        push = {
            "source": {"accountId": customer["USD"]},
            "destination": {"accountId": customer["external"]},
        }
        for amount, code in [(99, "AMOUNT_TOO_SMALL"), (500_01, "AMOUNT_TOO_LARGE")]:
            response = api.post("/transfer-out", {**push, "amount": amount})
            assert (response.status_code, response.json()["code"]) == (400, code)
    finally:
        restored = api.request("PATCH", "/config", json={"supportedCurrencies": original})
        assert restored.status_code == 200, restored.text


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


# --- webhooks, in both environments --------------------------------------------------------------


@pytest.fixture(scope="module")
def receiver(env_server: SandboxServer) -> Iterator[Receiver]:
    """One receiver per server: each database signs with its own key."""
    with webhook_receiver() as running:
        yield running


def test_transaction_events_are_signed_webhooks(api: SandboxClient, receiver: Receiver) -> None:
    """Last in the module: from here on the server sends its events to ``receiver``."""
    patched = api.request("PATCH", "/config", json={"webhookEndpoint": receiver.url})
    assert patched.status_code == 200, patched.text
    customer = funded_customer(api, 0, ["USD"])
    created = transfer_in(api, customer["external"], customer["USD"], 3_00)
    assert settled(api, created["id"])["status"] == "COMPLETED"

    def mine() -> dict[str, Any]:
        with receiver.lock:
            found = [
                (headers, body)
                for headers, body in receiver.requests
                if json.loads(body)["data"].get("id") == created["id"]
            ]
        return {"found": found}

    deliveries = wait_for(mine, lambda d: len(d["found"]) >= 1)["found"]
    public_key = api.get("/sandbox/webhook-public-key").text
    events = []
    for headers, body in deliveries:
        ewc.verify_webhook_signature(headers["X-Grid-Signature"], body, public_key)
        event = json.loads(body)
        assert headers["X-Grid-Webhook-Id"] == event["id"]
        events.append(event)
    # The published webhook types have no INCOMING_PAYMENT.PROCESSING: one event.
    assert [(e["type"], e["data"]["status"]) for e in events] == [
        ("INCOMING_PAYMENT.COMPLETED", "COMPLETED")
    ]
    assert all(e["id"].startswith("Webhook:") for e in events)
    forged = bytearray(deliveries[0][1])
    forged[-2:-1] = b" "
    with pytest.raises(ewc.WalletCryptoError):
        ewc.verify_webhook_signature(
            deliveries[0][0]["X-Grid-Signature"], bytes(forged), public_key
        )
