"""Webhooks as published, over real HTTP on both backends: a receiver started here gets bodies
that validate against the published document's webhook schemas and whose ``X-Grid-Signature``
verifies with the published method (and ``ewc.verify_webhook_signature``); the delivery rules,
each asserted by the event's attempts (``GET /sandbox/events``) and the payment's state:

- a notification: 2xx delivers, 409 stops, 500 is retried on the schedule (same event id);
- an incoming payment's approval request: 200 with the requested fields approves, 200 without
  them fails it, 202 holds it for ``POST /transactions/{id}/approve``, 403 rejects it, 422
  brings a second request with the sender's fields, 500 fails it (never retried).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.sandbox.domain.webhooks import retry_delay

from ._client import SandboxClient
from ._payments import accounts, balance, fund, settled, usd_external
from ._server import SandboxServer
from ._webhooks import (
    Hooks,
    event,
    hooked_server,
    hooks_server,
    poll,
    published_errors,
    settled_event,
    trigger,
    verify_published,
)
from .conftest import database_url

#: Retries after 0.6 s and 1.2 s; an approval waits 5 minutes (6 s).
TIME_SCALE = 0.02
#: The documented waits before each retry, in simulated seconds: from 30 s, doubling, at most
#: 30 minutes (the published cap).
SCHEDULE = (30, 60, 120, 240, 480, 960, 1800, 1800, 1800)


def test_the_retry_schedule() -> None:
    assert [retry_delay(n) for n in range(1, len(SCHEDULE) + 1)] == list(SCHEDULE)
    assert retry_delay(10_000) == 1800


@pytest.fixture(scope="module")
def hooks(backend: str) -> Iterator[Hooks]:
    with hooks_server() as running:
        yield running


@pytest.fixture(scope="module")
def server(
    backend: str,
    hooks: Hooks,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxServer]:
    with hooked_server(
        tmp_path_factory.mktemp(f"webhooks-{backend}"),
        hooks,
        database=database_url(request, backend, "sandbox"),
        time_scale=TIME_SCALE,
    ) as running:
        yield running


@pytest.fixture(scope="module")
def public_key(server: SandboxServer) -> str:
    api = SandboxClient(server.base_url, server.auth)
    pem = api.get("/sandbox/webhook-public-key").text
    api.close()
    return pem


def received(hooks: Hooks, public_key: str, **match: Any) -> list[dict[str, Any]]:
    """Every delivery whose ``data`` has the fields ``match``, each checked: the published
    signature method, ``ewc``'s check, the published schema, the id header."""
    import json

    with hooks.lock:
        requests = list(hooks.requests)
    found = []
    for headers, body in requests:
        parsed = json.loads(body)
        if any(parsed["data"].get(k) != v for k, v in match.items()):
            continue
        verify_published(headers["X-Grid-Signature"], body, public_key)
        ewc.verify_webhook_signature(headers["X-Grid-Signature"], body, public_key)
        assert headers["X-Grid-Webhook-Id"] == parsed["id"]
        assert published_errors(parsed) == [], parsed
        found.append(parsed)
    return found


def test_a_new_endpoint_gets_the_test_event(hooks: Hooks, public_key: str) -> None:
    tests = poll(lambda: [e for e in received(hooks, public_key) if e["type"] == "TEST"], bool)
    assert tests and tests[0]["data"] == {}


def test_payment_events_carry_the_transaction(
    client: SandboxClient, hooks: Hooks, public_key: str
) -> None:
    made = client.create_customer(currencies=["USD"])
    usd = accounts(client, made["id"])["USD"]["id"]
    fund(client, usd, 10_000)
    external = usd_external(client, made["id"], "010")
    created = client.post(
        "/transfer-out",
        {"source": {"accountId": usd}, "destination": {"accountId": external["id"]}, "amount": 100},
    ).json()
    final = settled(client, created["id"])
    assert final["status"] == "COMPLETED"
    events = poll(
        lambda: received(hooks, public_key, id=created["id"]),
        lambda found: any(e["type"] == "OUTGOING_PAYMENT.COMPLETED" for e in found),
    )
    assert [e["type"] for e in events] == [
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED",
    ]
    assert events[-1]["data"] == final  # the full resource, as GET /transactions/{id} answers
    assert len({e["id"] for e in events}) == 2
    balances = poll(lambda: received(hooks, public_key, id=usd), lambda found: len(found) >= 2)
    assert {e["type"] for e in balances} == {"INTERNAL_ACCOUNT.BALANCE_UPDATED"}
    assert [e["data"]["balance"]["amount"] for e in balances] == [10_000, 9_900]  # fund, debit


def test_500_is_retried_on_the_schedule(client: SandboxClient, hooks: Hooks) -> None:
    hooks.script["OUTGOING_PAYMENT.FAILED"] = [(500, None), (503, None), (200, None)]
    try:
        event_id = trigger(client, "OUTGOING_PAYMENT.FAILED")
        done = settled_event(client, event_id)
    finally:
        hooks.script.pop("OUTGOING_PAYMENT.FAILED")
    assert done["status"] == "DELIVERED" and done["attempts"] == 3
    tries = done["deliveries"]
    assert [(d["responseStatus"], d["outcome"]) for d in tries] == [
        (500, "RETRY_SCHEDULED"),
        (503, "RETRY_SCHEDULED"),
        (200, "DELIVERED"),
    ]
    from embedded_wallet_crypto.sandbox.clock import as_datetime

    for expected, (this, following) in zip(SCHEDULE, itertools.pairwise(tries), strict=False):
        wait = (as_datetime(this["nextAttemptAt"]) - as_datetime(this["at"])).total_seconds()
        assert wait == pytest.approx(expected * TIME_SCALE, abs=0.002)
        assert as_datetime(following["at"]) >= as_datetime(this["nextAttemptAt"])
    assert [e["id"] for e in hooks.events("OUTGOING_PAYMENT.FAILED") if e["id"] == event_id] == [
        event_id
    ] * 3


def test_409_stops_the_retries(client: SandboxClient, hooks: Hooks) -> None:
    hooks.script["INVITATION.CLAIMED"] = [(409, {"code": "DUPLICATE", "message": "seen"})]
    try:
        stopped = trigger(client, "INVITATION.CLAIMED")
        done = settled_event(client, stopped)
    finally:
        hooks.script.pop("INVITATION.CLAIMED")
    assert (done["status"], done["outcome"], done["nextAttemptAt"]) == (
        "STOPPED",
        "STOPPED_BY_409",
        None,
    )
    # A later event is delivered past the first retry's moment: the stopped one had none.
    later = trigger(client, "INVITATION.CLAIMED")
    time.sleep(retry_delay(1) * TIME_SCALE * 2)  # past the moment a retry would have been due
    assert settled_event(client, later)["status"] == "DELIVERED"
    assert [d["responseStatus"] for d in event(client, stopped)["deliveries"]] == [409]


# --- the incoming payment's approval request -------------------------------------------------


def receive(client: SandboxClient, amount: int) -> tuple[str, dict[str, Any]]:
    customer = client.create_customer(currencies=["USD"])["id"]
    created = client.post(
        "/sandbox/uma/receive",
        {
            "senderUmaAddress": "$sender@other.example",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": amount,
            "customerId": customer,
        },
    )
    assert created.status_code == 200, created.text
    body: dict[str, Any] = created.json()
    assert body["status"] == "PENDING"
    assert body["requestedReceiverCustomerInfoFields"] == [{"name": "FULL_NAME", "mandatory": True}]
    return customer, body


def approval_attempts(client: SandboxClient, hooks: Hooks, transaction_id: str) -> list[Any]:
    """The approval requests of a payment, as the events list shows them."""
    ids = [
        e["id"]
        for e in hooks.events("INCOMING_PAYMENT.PENDING")
        if e["data"]["id"] == transaction_id
    ]
    return [settled_event(client, i) for i in dict.fromkeys(ids)]


@pytest.fixture
def answers(hooks: Hooks) -> Iterator[list[tuple[int, dict[str, Any] | None]]]:
    """The receiver's answers to INCOMING_PAYMENT.PENDING in this test."""
    script: list[tuple[int, dict[str, Any] | None]] = []
    hooks.script["INCOMING_PAYMENT.PENDING"] = script
    yield script
    hooks.script.pop("INCOMING_PAYMENT.PENDING", None)


APPROVE = (200, {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe"}})


@pytest.mark.parametrize(
    ("script", "status", "reason", "outcomes", "credited"),
    [
        ([APPROVE], "COMPLETED", None, ["APPROVED"], True),
        (
            [(200, None)],
            "FAILED",
            "MISSING_MANDATORY_PAYEE_DATA",
            ["PAYMENT_FAILED_MISSING_PAYEE_DATA"],
            False,
        ),
        (
            [(403, {"code": "NO", "reason": "RESTRICTED_JURISDICTION"})],
            "REJECTED",
            "COMPLIANCE_REJECTED",
            ["REJECTED"],
            False,
        ),
        (
            [(500, None)],
            "FAILED",
            "PAYMENT_APPROVAL_WEBHOOK_ERROR",
            ["PAYMENT_FAILED_WEBHOOK_ERROR"],
            False,
        ),
        (
            [(422, {"requiredFields": ["NATIONALITY"]}), APPROVE],
            "COMPLETED",
            None,
            ["MORE_INFORMATION_REQUESTED", "APPROVED"],
            True,
        ),
        (
            [(422, {"requiredFields": ["TAX_ID"]})],
            "FAILED",
            "PAYMENT_APPROVAL_WEBHOOK_ERROR",
            ["MORE_INFORMATION_REQUESTED", "MORE_INFORMATION_UNAVAILABLE"],
            False,
        ),
    ],
    ids=["200", "200-missing", "403", "500", "422-then-200", "422-twice"],
)
def test_the_answer_decides_the_payment(
    client: SandboxClient,
    hooks: Hooks,
    public_key: str,
    answers: list[tuple[int, dict[str, Any] | None]],
    script: list[tuple[int, dict[str, Any] | None]],
    status: str,
    reason: str | None,
    outcomes: list[str],
    credited: bool,
) -> None:
    answers.extend(script)
    customer, created = receive(client, 900)
    done = settled(client, created["id"])
    assert (done["status"], done.get("failureReason")) == (status, reason)
    requests = poll(
        lambda: approval_attempts(client, hooks, created["id"]),
        lambda found: len(found) == len(outcomes),
    )
    assert [[d["outcome"] for d in r["deliveries"]] for r in requests] == [[o] for o in outcomes]
    assert all(len(r["deliveries"]) == 1 for r in requests)  # an approval is never retried
    assert balance(client, customer, "USD") == (900 if credited else 0)
    pending = received(hooks, public_key, id=created["id"])
    assert all(e["type"].startswith("INCOMING_PAYMENT.") for e in pending)
    if outcomes[0] == "MORE_INFORMATION_REQUESTED":
        second = [e for e in pending if e["type"] == "INCOMING_PAYMENT.PENDING"][1]
        asked = script[0][1]
        assert asked is not None
        assert set(asked["requiredFields"]) <= set(second["data"]["counterpartyInformation"])


def test_202_then_approve(
    client: SandboxClient, hooks: Hooks, answers: list[tuple[int, dict[str, Any] | None]]
) -> None:
    answers.append((202, None))
    customer, created = receive(client, 700)
    (request,) = poll(
        lambda: approval_attempts(client, hooks, created["id"]), lambda found: len(found) == 1
    )
    assert [d["outcome"] for d in request["deliveries"]] == ["HELD"]
    missing = client.post(f"/transactions/{created['id']}/approve", {"receiverCustomerInfo": {}})
    assert missing.status_code == 400
    assert missing.json()["code"] == "MISSING_MANDATORY_PAYEE_DATA"
    path = f"/transactions/{created['id']}/approve"
    approved = client.post(path, {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe"}})
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "COMPLETED"
    assert balance(client, customer, "USD") == 700
    again = client.post(path, {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe"}})
    assert again.status_code == 409
    assert again.json()["code"] == "TRANSACTION_NOT_AWAITING_APPROVAL"


def test_202_and_no_call_times_out(
    client: SandboxClient, answers: list[tuple[int, dict[str, Any] | None]]
) -> None:
    answers.append((202, None))
    customer, created = receive(client, 300)
    done = settled(client, created["id"])
    assert (done["status"], done["failureReason"]) == ("FAILED", "PAYMENT_APPROVAL_TIMED_OUT")
    assert balance(client, customer, "USD") == 0


# --- the other resources: real emissions, published shapes ---------------------------------------


def test_an_agent_action_awaiting_approval_is_announced(
    server: SandboxServer, client: SandboxClient, hooks: Hooks, public_key: str
) -> None:
    from ._agents import Agent, Customer, connect, execute, quote

    made: list[Agent] = []
    try:
        customer = Customer(client, fund=1_000_00)
        agent = connect(server, client, made, customer.id)
        action = execute(agent, quote(agent, customer, 200_00)["id"]).json()  # above the threshold
    finally:
        for each in made:
            each.http.close()
    assert action["status"] == "PENDING_APPROVAL"
    (announced,) = poll(lambda: received(hooks, public_key, id=action["id"]), bool)
    assert announced["type"] == "AGENT_ACTION.PENDING_APPROVAL"
    assert announced["data"] == action


def test_a_verification_announces_itself_and_the_customer(
    client: SandboxClient, hooks: Hooks, public_key: str
) -> None:
    customer = client.create_customer(currencies=["USD"], fullName="Jane Doe")
    made = client.post("/verifications", {"customerId": customer["id"]})
    assert made.status_code in (200, 201), made.text
    verification = made.json()
    (announced,) = poll(lambda: received(hooks, public_key, id=verification["id"]), bool)
    assert (announced["type"], announced["data"]) == ("VERIFICATION.APPROVED", verification)
    (kyc,) = poll(
        lambda: [
            e for e in received(hooks, public_key, id=customer["id"]) if "kycStatus" in e["data"]
        ],
        bool,
    )
    assert kyc["type"] == "CUSTOMER.KYC_APPROVED" and kyc["data"]["kycStatus"] == "APPROVED"
