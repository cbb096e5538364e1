"""Webhooks over real HTTP: a receiver started here verifies every delivery with
``ewc.verify_webhook_signature`` and the key of ``GET /sandbox/webhook-public-key``; retries
after 500 keep the event id; the incoming-payment approval (200, 202 then approve, a failing
webhook, no answer in time)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
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

TIME_SCALE = 0.03  # backoff 5, 10, 20, 40 simulated seconds; the approval waits 5 minutes (9 s)


@pytest.fixture(scope="module")
def receiver(backend: str) -> Iterator[Receiver]:
    """One receiver per backend: each database signs with a key of its own."""
    with webhook_receiver() as running:
        yield running


@pytest.fixture(scope="module")
def server(
    backend: str,
    receiver: Receiver,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path_factory.mktemp(f"webhooks-{backend}"),
        database=database_url(request, backend, "sandbox"),
        time_scale=TIME_SCALE,
    )
    running.start()
    api = SandboxClient(running.base_url, running.auth)
    patched = api.request("PATCH", "/config", json={"webhookEndpoint": receiver.url})
    assert patched.status_code == 200, patched.text
    assert patched.json()["webhookEndpoint"] == receiver.url
    api.close()
    yield running
    assert running.stop() == 0


@pytest.fixture(scope="module")
def public_key(server: SandboxServer) -> str:
    api = SandboxClient(server.base_url, server.auth)
    pem = api.get("/sandbox/webhook-public-key").text
    api.close()
    return pem


def verified(receiver: Receiver, public_key: str) -> list[dict[str, Any]]:
    """Every delivery so far, each verified over its raw body."""
    import json

    with receiver.lock:
        requests = list(receiver.requests)
    for headers, body in requests:
        ewc.verify_webhook_signature(headers["X-Grid-Signature"], body, public_key)
    return [json.loads(body) for _, body in requests]


def for_transaction(events: list[dict[str, Any]], transaction_id: str) -> list[dict[str, Any]]:
    return [e for e in events if e["data"].get("transaction", {}).get("id") == transaction_id]


def customer_with_usd(client: SandboxClient) -> tuple[str, str]:
    made = client.create_customer(currencies=["USD"])
    return made["id"], accounts(client, made["id"])["USD"]["id"]


@contextmanager
def incoming_payment(
    client: SandboxClient, receiver: Receiver, answers: list[int], sender: str, amount: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    """A sandbox UMA payment of ``amount`` USD cents from ``sender`` to a new customer, while the
    receiver answers the INCOMING_PAYMENT webhooks with ``answers``: (customer id, transaction)."""
    receiver.answers["INCOMING_PAYMENT"] = answers
    try:
        customer, _ = customer_with_usd(client)
        created = client.post(
            "/sandbox/uma/receive",
            {
                "senderUmaAddress": sender,
                "receivingCurrencyCode": "USD",
                "receivingCurrencyAmount": amount,
                "customerId": customer,
            },
        ).json()
        yield customer, created
    finally:
        receiver.answers.pop("INCOMING_PAYMENT", None)


def test_every_delivery_is_signed(
    client: SandboxClient, receiver: Receiver, public_key: str
) -> None:
    customer, usd = customer_with_usd(client)
    fund(client, usd, 10_000)
    external = usd_external(client, customer, "010")
    created = client.post(
        "/transfer-out",
        {"source": {"accountId": usd}, "destination": {"accountId": external["id"]}, "amount": 100},
    ).json()
    assert settled(client, created["id"])["status"] == "COMPLETED"
    events = wait_for(
        lambda: {"e": for_transaction(verified(receiver, public_key), created["id"])},
        lambda found: any(e["data"]["transaction"]["status"] == "COMPLETED" for e in found["e"]),
    )["e"]
    statuses = [e["data"]["transaction"]["status"] for e in events]
    assert statuses == ["PROCESSING", "COMPLETED"]
    assert all(e["type"] == "OUTGOING_PAYMENT" and e["id"].startswith("Webhook:") for e in events)
    assert len({e["id"] for e in events}) == 2
    with receiver.lock:
        tampered_headers, tampered_body = receiver.requests[-1]
    with pytest.raises(ewc.WalletCryptoError):
        ewc.verify_webhook_signature(
            tampered_headers["X-Grid-Signature"], tampered_body + b" ", public_key
        )


def test_retries_after_500_keep_the_event_id(
    client: SandboxClient, receiver: Receiver, public_key: str
) -> None:
    with incoming_payment(client, receiver, [500, 500, 200], "$bob@other.example", 900) as (
        customer,
        created,
    ):
        assert created["status"] == "PENDING"
        assert created["requestedReceiverCustomerInfoFields"] == [
            {"name": "FULL_NAME", "mandatory": True}
        ]
        done = settled(client, created["id"])
        assert done["status"] == "COMPLETED"  # the third attempt answered 200: approved
        events = for_transaction(verified(receiver, public_key), created["id"])
        first = [e for e in events if e["data"]["transaction"]["status"] == "PENDING"]
        assert len(first) == 3 and len({e["id"] for e in first}) == 1  # one event, three tries
        assert balance(client, customer, "USD") == 900


def test_202_then_approve(client: SandboxClient, receiver: Receiver) -> None:
    with incoming_payment(client, receiver, [202], "$carol@other.example", 700) as (
        customer,
        created,
    ):
        wait_for(
            lambda: {"n": len(receiver.events("INCOMING_PAYMENT"))},
            lambda _: any(
                e["data"]["transaction"]["id"] == created["id"]
                for e in receiver.events("INCOMING_PAYMENT")
            ),
        )
        missing = client.post(
            f"/transactions/{created['id']}/approve", {"receiverCustomerInfo": {}}
        )
        assert missing.status_code == 400
        assert missing.json()["code"] == "MISSING_MANDATORY_PAYEE_DATA"
        approved = client.post(
            f"/transactions/{created['id']}/approve",
            {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe"}},
        )
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "COMPLETED"
        assert balance(client, customer, "USD") == 700
        again = client.post(
            f"/transactions/{created['id']}/approve",
            {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe"}},
        )
        assert again.status_code == 409


def test_approval_times_out(client: SandboxClient, receiver: Receiver) -> None:
    with incoming_payment(client, receiver, [202], "$dave@other.example", 300) as (
        customer,
        created,
    ):
        done = settled(client, created["id"])
        assert done["status"] == "FAILED"
        assert done["failureReason"] == "PAYMENT_APPROVAL_TIMED_OUT"
        assert balance(client, customer, "USD") == 0


def test_a_failing_approval_webhook(client: SandboxClient, receiver: Receiver) -> None:
    with incoming_payment(client, receiver, [500], "$erin@other.example", 300) as (_, created):
        done = settled(client, created["id"])
        assert done["status"] == "FAILED"
        assert done["failureReason"] == "PAYMENT_APPROVAL_WEBHOOK_ERROR"
        tries = [
            e
            for e in receiver.events("INCOMING_PAYMENT")
            if e["data"]["transaction"]["id"] == created["id"]
            and e["data"]["transaction"]["status"] == "PENDING"
        ]
        assert len(tries) == 5  # every attempt, then it gave up


def test_emit_queues_any_event(server: SandboxServer, receiver: Receiver, public_key: str) -> None:
    """Other areas call ``emit`` (an invitation claim, for example): the running service's
    worker delivers what another process queued in the shared database."""
    from embedded_wallet_crypto.sandbox.db.engine import Database
    from embedded_wallet_crypto.sandbox.domain.webhooks import emit

    database = Database(server.database)
    try:
        with database.sessions() as session:
            event = emit(session, "platform-test", "INVITATION_CLAIMED", {"code": "abc123"})
            session.commit()
    finally:
        database.dispose()
    assert event is not None and event.startswith("Webhook:")
    delivered = wait_for(
        lambda: {"e": [e for e in verified(receiver, public_key) if e["id"] == event]},
        lambda found: bool(found["e"]),
    )["e"]
    assert delivered[0]["type"] == "INVITATION_CLAIMED"
    assert delivered[0]["data"] == {"code": "abc123"}


def test_the_public_key_errors_are_json(server: SandboxServer) -> None:
    # The key is PEM text, its errors are the service's JSON: the document says so too.
    import httpx

    response = httpx.get(f"{server.base_url}/sandbox/webhook-public-key")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/json"
    assert response.json()["code"] == "UNAUTHORIZED"
    document = httpx.get(f"{server.base_url}/openapi.json").json()
    operation = document["paths"]["/2025-10-13/sandbox/webhook-public-key"]["get"]
    for status in ("400", "401", "404"):
        assert list(operation["responses"][status]["content"]) == ["application/json"], status
