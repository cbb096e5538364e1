"""Quotes over real HTTP against ``ewc serve`` (time scaled so the six-minute outcome takes
seconds): pricing, limits, immediatelyExecute, idempotency (also concurrent), expiry and every
execution outcome row. Execution from an embedded wallet signed with a session key is
``test_quote_wallet_signing``."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ._client import SandboxClient
from ._payments import accounts, balance, settled, usd_external, wait_for
from ._quotes import customer, quote_body, server
from ._server import SandboxServer

__all__ = ["customer", "server"]  # the fixtures, used here


def test_quote_prices_with_the_fixed_tables(
    client: SandboxClient, customer: dict[str, Any]
) -> None:
    response = client.post("/quotes", quote_body(customer["EUR"], customer["USD"]))
    assert response.status_code == 201, response.text
    quote = response.json()
    assert quote["status"] == "PENDING"
    assert quote["id"].startswith("Quote:") and quote["transactionId"].startswith("Transaction:")
    assert quote["sendingCurrency"]["code"] == "EUR" and quote["receivingCurrency"]["code"] == "USD"
    assert quote["totalSendingAmount"] == 10_000
    # 10 EUR cents fixed (0.10 USD = 9.2 EUR cents, rounded up) + 0.5 % of the net amount:
    # net = floor((10000 - 10) / 1.005) = 9940, converted at 0.92 EUR per USD
    assert quote["feesIncluded"] == 10_000 - 9_940
    assert quote["totalReceivingAmount"] == 9_940 * 100 // 92
    assert quote["exchangeRate"] == pytest.approx(0.92)
    assert quote["rateDetails"]["serviceApiVariableFeeRate"] == 0.005
    locked = client.post(
        "/quotes",
        quote_body(customer["EUR"], customer["USD"], lockedCurrencySide="RECEIVING"),
    ).json()
    assert locked["totalReceivingAmount"] == 10_000
    assert locked["totalSendingAmount"] == 9_200 + locked["feesIncluded"]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"lockedCurrencyAmount": 9_000_000_000_000_001}, "INVALID_INPUT"),
        ({"lockedCurrencyAmount": 0}, "INVALID_INPUT"),
        ({"lockedCurrencyAmount": "100"}, "INVALID_INPUT"),
        ({"lockedCurrencyAmount": 5}, "AMOUNT_TOO_SMALL"),
        ({"lockedCurrencySide": "BOTH"}, "INVALID_INPUT"),
    ],
)
def test_bad_amounts(
    client: SandboxClient, customer: dict[str, Any], change: dict[str, Any], code: str
) -> None:
    response = client.post("/quotes", quote_body(customer["EUR"], customer["USD"], **change))
    assert response.status_code == 400, response.text
    assert response.json()["code"] == code


def test_the_largest_locked_amount_is_accepted(
    client: SandboxClient, customer: dict[str, Any]
) -> None:
    body = quote_body(customer["USD"], customer["EUR"], lockedCurrencyAmount=9_000_000_000_000_000)
    response = client.post("/quotes", body)
    assert response.status_code == 201, response.text


def test_same_currency_is_refused(client: SandboxClient, customer: dict[str, Any]) -> None:
    other = client.create_customer(currencies=["EUR"])
    response = client.post(
        "/quotes", quote_body(customer["EUR"], accounts(client, other["id"])["EUR"]["id"])
    )
    assert response.status_code == 400
    assert response.json()["code"] == "SAME_CURRENCY"


def test_unknown_accounts_are_404(client: SandboxClient, customer: dict[str, Any]) -> None:
    missing = "InternalAccount:00000000-0000-0000-0000-000000000000"
    assert client.post("/quotes", quote_body(missing, customer["USD"])).status_code == 404
    assert client.post("/quotes", quote_body(customer["EUR"], missing)).status_code == 404
    assert client.post("/quotes/Quote:nothing/execute").status_code == 404


def test_execute_moves_the_money(client: SandboxClient, customer: dict[str, Any]) -> None:
    quote = client.post("/quotes", quote_body(customer["EUR"], customer["USD"])).json()
    executed = client.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 200, executed.text
    assert executed.json()["status"] == "PROCESSING"
    done = settled(client, quote["transactionId"])
    assert done["status"] == "COMPLETED" and "settledAt" in done
    assert done["type"] == "OUTGOING" and done["quoteId"] == quote["id"]
    assert done["receivedAmount"]["amount"] == quote["totalReceivingAmount"]
    assert balance(client, customer["id"], "EUR") == 1_000_000 - 10_000
    assert balance(client, customer["id"], "USD") == quote["totalReceivingAmount"]
    assert client.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"
    again = client.post(f"/quotes/{quote['id']}/execute")  # executed: no second run
    assert again.status_code == 409
    assert again.json()["code"] == "QUOTE_ALREADY_EXECUTED"


def test_execute_without_funds(client: SandboxClient) -> None:
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    quote = client.post("/quotes", quote_body(found["EUR"]["id"], found["USD"]["id"])).json()
    response = client.post(f"/quotes/{quote['id']}/execute")
    assert response.status_code == 400
    assert response.json()["code"] == "INSUFFICIENT_FUNDS"


def test_immediately_execute(client: SandboxClient, customer: dict[str, Any]) -> None:
    body = quote_body(customer["EUR"], customer["USD"], immediatelyExecute=True)
    quote = client.post("/quotes", body).json()
    assert quote["status"] == "PROCESSING"
    assert settled(client, quote["transactionId"])["status"] == "COMPLETED"


def test_immediately_execute_is_refused_for_an_embedded_wallet(
    client: SandboxClient, customer: dict[str, Any]
) -> None:
    body = quote_body(customer["WALLET"], customer["USD"], immediatelyExecute=True)
    response = client.post("/quotes", body)
    assert response.status_code == 400
    assert response.json()["code"] == "IMMEDIATE_EXECUTION_NOT_SUPPORTED"


def test_idempotency_key_returns_the_first_response(
    client: SandboxClient, customer: dict[str, Any]
) -> None:
    body = quote_body(customer["EUR"], customer["USD"])
    headers = {"Idempotency-Key": "quote-key-1"}
    first = client.post("/quotes", body, headers=headers)
    second = client.post("/quotes", body, headers=headers)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    other = client.post("/quotes", body, headers={"Idempotency-Key": "quote-key-2"})
    assert other.json()["id"] != first.json()["id"]
    execute = {"Idempotency-Key": "execute-1"}
    one = client.post(f"/quotes/{first.json()['id']}/execute", headers=execute)
    two = client.post(f"/quotes/{first.json()['id']}/execute", headers=execute)
    assert one.status_code == two.status_code == 200
    assert one.json() == two.json()


def test_concurrent_duplicates_create_one_quote(
    server: SandboxServer, customer: dict[str, Any]
) -> None:
    body = quote_body(customer["EUR"], customer["USD"], immediatelyExecute=True)
    answers: list[dict[str, Any]] = []
    start = threading.Barrier(6)

    def call() -> None:
        api = SandboxClient(server.base_url, server.auth)
        start.wait()
        response = api.post("/quotes", body, headers={"Idempotency-Key": "concurrent-1"})
        if response.status_code == 409:  # the first one is still running
            assert response.json()["code"] == "IDEMPOTENCY_REQUEST_IN_PROGRESS", response.text
        else:
            assert response.status_code == 201, response.text
            answers.append(response.json())
        api.close()

    threads = [threading.Thread(target=call) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers  # the creation, and any replays of it
    assert len({answer["id"] for answer in answers}) == 1
    api = SandboxClient(server.base_url, server.auth)
    listed = api.get(
        "/transactions", params={"senderAccountIdentifier": customer["EUR"], "limit": 100}
    ).json()
    assert listed["totalCount"] == 1  # executed once: the money moved once
    api.close()


def test_a_quote_expires(client: SandboxClient, customer: dict[str, Any]) -> None:
    quote = client.post("/quotes", quote_body(customer["EUR"], customer["USD"])).json()
    expired = wait_for(
        lambda: client.get(f"/quotes/{quote['id']}").json(),
        lambda q: q["status"] == "EXPIRED",
    )
    assert expired["status"] == "EXPIRED"
    response = client.post(f"/quotes/{quote['id']}/execute")
    assert response.status_code == 409
    assert response.json()["code"] == "QUOTE_EXPIRED"


#: Quote execution to an external account, by the account number's last three digits.
OUTCOMES = [
    ("002", "FAILED", "QUOTE_EXECUTION_FAILED", True),
    ("003", "COMPLETED", None, False),
    ("004", "FAILED", "COUNTERPARTY_POST_TX_FAILED", True),
    ("005", "FAILED", "PAYOUT_RETURNED", True),
    ("006", "REFUNDED", None, True),
    ("007", "FAILED", "COUNTERPARTY_POST_TX_FAILED", False),
    ("999", "COMPLETED", None, False),
]


@pytest.mark.parametrize(("suffix", "status", "reason", "refunded"), OUTCOMES)
def test_execution_outcomes(
    client: SandboxClient,
    customer: dict[str, Any],
    suffix: str,
    status: str,
    reason: str | None,
    refunded: bool,
) -> None:
    external = usd_external(client, customer["id"], suffix)
    quote = client.post("/quotes", quote_body(customer["EUR"], external["id"])).json()
    executed = client.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 200, executed.text
    if suffix == "002":
        assert executed.json()["status"] == "FAILED"  # fails at once
    else:
        assert executed.json()["status"] == "PROCESSING"
    done = settled(client, quote["transactionId"])
    if suffix == "005":  # completes, then the receiving bank returns it
        done = wait_for(
            lambda: client.get(f"/transactions/{quote['transactionId']}").json(),
            lambda t: t["status"] == "FAILED",
        )
        assert "settledAt" in done  # it had completed
    assert done["status"] == status
    assert done.get("failureReason") == reason
    expected = 1_000_000 if refunded else 1_000_000 - 10_000
    assert balance(client, customer["id"], "EUR") == expected
    quote_status = client.get(f"/quotes/{quote['id']}").json()["status"]
    assert quote_status == ("COMPLETED" if status == "COMPLETED" else "FAILED")


def test_uma_receivers(client: SandboxClient, customer: dict[str, Any]) -> None:
    def pay(address: str) -> dict[str, Any]:
        lookup = client.get(f"/receiver/uma/{address}", params={"customerId": customer["id"]})
        assert lookup.status_code == 200, lookup.text
        body = quote_body(
            customer["EUR"],
            "",
            immediatelyExecute=True,
            lookupId=lookup.json()["lookupId"],
            senderCustomerInfo={"FULL_NAME": "Jane Doe"},
        )
        body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": address}
        response = client.post("/quotes", body)
        assert response.status_code == 201, response.text
        quote: dict[str, Any] = response.json()
        return quote

    assert (
        settled(client, pay("$success.usd@sandbox.uma.invalid")["transactionId"])["status"]
        == "COMPLETED"
    )
    assert (
        settled(client, pay("$success.mxn@sandbox.uma.invalid")["transactionId"])["status"]
        == "COMPLETED"
    )
    failed = settled(client, pay("$fail.compliance.usd@sandbox.uma.invalid")["transactionId"])
    assert failed["failureReason"] == "COMPLIANCE_REJECTED"
    pending = pay("$pending.long.usd@sandbox.uma.invalid")
    assert client.get(f"/transactions/{pending['transactionId']}").json()["status"] == "PROCESSING"
    body = quote_body(customer["EUR"], "")
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": "$nobody@example.com"}
    assert client.post("/quotes", body).status_code == 400


def test_realtime_funding_and_sandbox_send(client: SandboxClient, customer: dict[str, Any]) -> None:
    body = quote_body("", customer["EUR"])
    body["source"] = {
        "sourceType": "REALTIME_FUNDING",
        "currency": "USD",
        "customerId": customer["id"],
    }
    quote = client.post("/quotes", body).json()
    (instruction,) = quote["paymentInstructions"]
    assert instruction["accountOrWalletInfo"]["accountType"] == "USD_ACCOUNT"
    assert client.post(f"/quotes/{quote['id']}/execute").status_code == 400
    sent = client.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "USD"})
    assert sent.status_code == 200, sent.text
    assert settled(client, quote["transactionId"])["status"] == "COMPLETED"
    assert balance(client, customer["id"], "EUR") == 1_000_000 + quote["totalReceivingAmount"]


def test_configured_limits_are_enforced(client: SandboxClient, customer: dict[str, Any]) -> None:
    before = client.get("/config").json()["supportedCurrencies"]
    limited = [
        {**entry, "minAmount": 1_000, "maxAmount": 50_000}
        if entry["currencyCode"] == "EUR"
        else entry
        for entry in before
    ]
    assert (
        client.request("PATCH", "/config", json={"supportedCurrencies": limited}).status_code == 200
    )
    try:
        small = client.post(
            "/quotes", quote_body(customer["EUR"], customer["USD"], lockedCurrencyAmount=900)
        )
        assert small.status_code == 400 and small.json()["code"] == "AMOUNT_TOO_SMALL"
        large = client.post(
            "/quotes", quote_body(customer["EUR"], customer["USD"], lockedCurrencyAmount=50_001)
        )
        assert large.status_code == 400 and large.json()["code"] == "AMOUNT_TOO_LARGE"
        fine = client.post("/quotes", quote_body(customer["EUR"], customer["USD"]))
        assert fine.status_code == 201
        without_eur = [entry for entry in before if entry["currencyCode"] != "EUR"]
        client.request("PATCH", "/config", json={"supportedCurrencies": without_eur})
        refused = client.post("/quotes", quote_body(customer["EUR"], customer["USD"]))
        assert refused.status_code == 400 and refused.json()["code"] == "UNSUPPORTED_CURRENCY"
    finally:
        client.request("PATCH", "/config", json={"supportedCurrencies": before})
