"""The interface's rules on payments that no other module proves, over real HTTP against ``ewc
serve`` on both backends and in both environments (sandbox and production) where the interface
allows both: every transfer-in suffix row, the quote lifetime and the answers to executing a
quote twice or too late, receiver lookups and the lookupId of a quote, and transaction events as
signed webhooks (last in the module: from then on its server sends its events to the test's
receiver)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._conformance import RECEIVER, TIME_SCALE, conformance_fixtures, funded_customer, transfer_in
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

env_server, api, bearer = conformance_fixtures()


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
