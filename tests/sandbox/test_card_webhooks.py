"""The card events over real HTTP, on SQLite and PostgreSQL: CARD.STATE_CHANGE on provisioning and
every state change, CARD.FUNDING_SOURCE_CHANGE when the sources are replaced, and
CARD_TRANSACTION.<status> with the full card transaction on every simulated change; each
delivery signed (``ewc.verify_webhook_signature``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._payments import Receiver, wait_for, webhook_receiver
from ._server import SandboxServer
from .conftest import database_url


@pytest.fixture(scope="module")
def receiver(backend: str) -> Iterator[Receiver]:
    with webhook_receiver() as running:
        yield running


@pytest.fixture(scope="module")
def api(
    backend: str,
    receiver: Receiver,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxClient]:
    running = SandboxServer(
        tmp_path_factory.mktemp(f"card-webhooks-{backend}"),
        database=database_url(request, backend, "cards"),
        time_scale=0.03,
    )
    running.start()
    client = SandboxClient(running.base_url, running.auth)
    patched = client.request("PATCH", "/config", json={"webhookEndpoint": receiver.url})
    assert patched.status_code == 200, patched.text
    yield client
    client.close()
    assert running.stop() == 0


def _events(api: SandboxClient, receiver: Receiver, count: int) -> list[dict[str, Any]]:
    """The first ``count`` card events (``CARD.*``, ``CARD_TRANSACTION.*``), every delivery's
    signature checked; the customer's, the account's and the endpoint's own events aside."""

    def cards() -> dict[str, list[dict[str, Any]]]:
        return {"events": [e for e in receiver.events() if e["type"].startswith("CARD")]}

    found = wait_for(cards, lambda v: len(v["events"]) >= count)
    pem = api.get("/sandbox/webhook-public-key").text
    with receiver.lock:
        for headers, body in receiver.requests:
            ewc.verify_webhook_signature(headers["X-Grid-Signature"], body, pem)
    events: list[dict[str, Any]] = found["events"]
    return events


def test_card_events(api: SandboxClient, receiver: Receiver) -> None:
    customer = api.create_customer(fullName="Jane Doe", currencies=["USD"])
    assert api.post("/verifications", {"customerId": customer["id"]}).status_code == 200
    listed = api.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    usd = next(a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_FIAT")
    api.post(f"/sandbox/internal-accounts/{usd}/fund", {"amount": 5_000})
    body = {"cardholderId": customer["id"], "form": "VIRTUAL", "fundingSources": [usd]}
    card = api.post("/cards", body).json()["id"]
    assert api.get(f"/cards/{card}").json()["state"] == "ACTIVE"
    assert api.request("PATCH", f"/cards/{card}", json={"state": "FROZEN"}).status_code == 200
    same = {"state": "ACTIVE", "fundingSources": [usd]}
    assert api.request("PATCH", f"/cards/{card}", json=same).status_code == 200
    auth = {"amount": 1_000, "currency": {"code": "USD"}, "merchant": {"descriptor": "SHOP"}}
    token = api.post(f"/sandbox/cards/{card}/simulate/authorization", auth).json()
    ref = f"CardTransaction:{token['issuerTransactionToken']}"
    clearing = {"cardTransactionId": ref, "amount": 1_000}
    assert api.post(f"/sandbox/cards/{card}/simulate/clearing", clearing).status_code == 202
    events = _events(api, receiver, 6)
    types = [event["type"] for event in events]
    assert types.count("CARD.STATE_CHANGE") == 3, types  # ACTIVE, FROZEN, ACTIVE
    assert types.count("CARD.FUNDING_SOURCE_CHANGE") == 1, types
    states = [e["data"]["state"] for e in events if e["type"] == "CARD.STATE_CHANGE"]
    assert states == ["ACTIVE", "FROZEN", "ACTIVE"]
    moves = [e for e in events if e["type"].startswith("CARD_TRANSACTION.")]
    assert [e["type"] for e in moves] == ["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.SETTLED"]
    settled = moves[-1]["data"]
    assert settled["id"] == ref and settled["type"] == "CARD" and settled["cardId"] == card
    assert settled["settledAmount"]["amount"] == 1_000 and settled["accountId"] == usd
    assert settled["settlementSummary"] == {"count": 1, "totalAmount": 1_000}
