"""The webhook side's hardening, over real HTTP on SQLite and PostgreSQL: a receiver's answer to
an incoming payment's approval request is checked before anything of it is stored (an invalid
one fails the payment, and every read keeps answering 200); the events and their attempts are
kept within their caps (``webhook_retention``), also when two processes record events at once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from operator import lt
from typing import Any

import pytest
from embedded_wallet_crypto.sandbox.domain.webhook_retention import MAX_ATTEMPTS_KEPT, MAX_EVENTS

from ._client import SandboxClient
from ._pair import clients_of, running_pair
from ._server import SandboxServer
from ._webhooks import Hooks, event, hooked_server, hooks_server, poll, trigger
from .conftest import database_url

#: An approval waits 5 minutes (6 s); retries come when the test moves the clock.
TIME_SCALE = 0.02


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
        tmp_path_factory.mktemp(f"webhook-hardening-{backend}"),
        hooks,
        database=database_url(request, backend, "hooks"),
        time_scale=TIME_SCALE,
    ) as running:
        yield running


@pytest.fixture
def client(server: SandboxServer) -> Iterator[SandboxClient]:
    api = SandboxClient(server.base_url, server.auth)
    yield api
    api.close()


# --- 6. the receiver's answer to an approval request -----------------------------------------


def _receive(client: SandboxClient) -> str:
    customer = client.create_customer(currencies=["USD"])["id"]
    created = client.post(
        "/sandbox/uma/receive",
        {
            "senderUmaAddress": "$sender@other.example",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 500,
            "customerId": customer,
        },
    )
    assert created.status_code == 200, created.text
    transaction_id: str = created.json()["id"]
    return transaction_id


def _ended(client: SandboxClient, transaction_id: str) -> dict[str, Any]:
    def fetch() -> dict[str, Any]:
        response = client.get(f"/transactions/{transaction_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    found: dict[str, Any] = poll(fetch, lambda t: t["status"] != "PENDING", timeout=60)
    return found


@pytest.mark.parametrize(
    "answer",
    [
        (422, {"requiredFields": ["\ud800"]}),
        (422, {"requiredFields": ["FULL NAME"]}),
        (422, {"requiredFields": ["A" * 61]}),
        (422, {"requiredFields": [f"F{i}" for i in range(21)]}),
        (200, {"receiverCustomerInfo": {"FULL_NAME": "\ud800"}}),
        (200, {"receiverCustomerInfo": {"FULL_NAME": "Jane", "\udfff": "x"}}),
        (200, {"receiverCustomerInfo": {"FULL_NAME": "a\x00b"}}),
        (200, {"receiverCustomerInfo": {"FULL_NAME": "J" * 501}}),
        (200, {"receiverCustomerInfo": {"FULL_NAME": "Jane", "x": {"nested": True}}}),
        (
            200,
            {"receiverCustomerInfo": {"FULL_NAME": "Jane", **{f"k{i}": "v" for i in range(200)}}},
        ),
        (200, {"receiverCustomerInfo": ["FULL_NAME"]}),
    ],
    ids=[
        "422-surrogate",
        "422-space",
        "422-long",
        "422-count",
        "200-surrogate",
        "200-surrogate-key",
        "200-nul",
        "200-long",
        "200-nested",
        "200-members",
        "200-array",
    ],
)
def test_an_invalid_receiver_answer_fails_the_payment_and_is_not_stored(
    client: SandboxClient, hooks: Hooks, answer: tuple[int, dict[str, Any]]
) -> None:
    hooks.script["INCOMING_PAYMENT.PENDING"] = [answer]
    try:
        transaction_id = _receive(client)
        ended = _ended(client, transaction_id)
    finally:
        hooks.script.pop("INCOMING_PAYMENT.PENDING", None)
    assert (ended["status"], ended.get("failureReason")) == (
        "FAILED",
        "PAYMENT_APPROVAL_WEBHOOK_ERROR",
    )
    assert "counterpartyInformation" not in ended or all(
        key.isascii() for key in ended["counterpartyInformation"]
    )
    # Every read still answers.
    listed = client.get("/transactions", params={"limit": 5})
    assert listed.status_code == 200, listed.text
    events = client.get("/sandbox/events", params={"limit": 100})
    assert events.status_code == 200, events.text
    requests = [
        e
        for e in events.json()["data"]
        if e["transactionId"] == transaction_id and e["type"] == "INCOMING_PAYMENT.PENDING"
    ]
    assert [(e["status"], e["outcome"]) for e in requests] == [
        ("FAILED", "INVALID_RECEIVER_ANSWER")
    ]
    assert [d["outcome"] for d in requests[0]["deliveries"]] == ["INVALID_RECEIVER_ANSWER"]


def test_a_valid_receiver_answer_still_approves(client: SandboxClient, hooks: Hooks) -> None:
    hooks.script["INCOMING_PAYMENT.PENDING"] = [
        (422, {"requiredFields": ["NATIONALITY", "TAX_ID_2"]}),
        (200, {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe", "NOTE": "é"}}),
    ]
    try:
        ended = _ended(client, _receive(client))
    finally:
        hooks.script.pop("INCOMING_PAYMENT.PENDING", None)
    assert ended["status"] == "COMPLETED", ended
    assert {"NATIONALITY", "TAX_ID_2"} <= set(ended["counterpartyInformation"])


@pytest.mark.parametrize(
    "info",
    [{"\ud800": "x"}, {"FULL_NAME": "a\x00b"}, {f"k{i}": "v" for i in range(201)}],
    ids=["surrogate-key", "nul", "members"],
)
def test_the_approve_body_has_the_same_bounds(client: SandboxClient, info: Any) -> None:
    import json

    response = client.request(
        "POST",
        "/transactions/Transaction:00000000-0000-0000-0000-000000000000/approve",
        content=json.dumps({"receiverCustomerInfo": info}),
        headers={"content-type": "application/json"},
    )
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_INPUT")


# --- 7. retention ----------------------------------------------------------------------------


def test_attempts_are_capped_per_event(client: SandboxClient, hooks: Hooks) -> None:
    """A receiver answering 500: each move of the clock past the next retry brings one more
    attempt; only the newest ``MAX_ATTEMPTS_KEPT`` are kept (numbered, the latest last)."""
    hooks.script["OUTGOING_PAYMENT.FAILED"] = [(500, None)]
    wanted = MAX_ATTEMPTS_KEPT + 5
    try:
        event_id = trigger(client, "OUTGOING_PAYMENT.FAILED")
        seen = poll(lambda: event(client, event_id)["attempts"], lambda n: n >= 1)
        for _ in range(wanted * 2):  # bounded: one attempt per move, at most
            if seen >= wanted:
                break
            moved = client.post("/sandbox/clock/advance", {"seconds": 1800})
            assert moved.status_code == 200, moved.text
            seen = poll(lambda: event(client, event_id)["attempts"], partial(lt, seen))
        done = event(client, event_id)
    finally:
        hooks.script.pop("OUTGOING_PAYMENT.FAILED", None)
    assert done["attempts"] >= wanted, done["attempts"]
    numbers = [d["attempt"] for d in done["deliveries"]]
    assert len(numbers) == MAX_ATTEMPTS_KEPT, len(numbers)
    assert numbers == list(range(done["attempts"] - MAX_ATTEMPTS_KEPT + 1, done["attempts"] + 1))


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two processes on one database, no webhook endpoint (events are recorded, not sent)."""
    with running_pair(
        tmp_path_factory.mktemp(f"event-cap-{backend}"), database_url(request, backend, "cap")
    ) as servers:
        yield servers


def test_events_are_capped_across_processes(pair: tuple[SandboxServer, SandboxServer]) -> None:
    each = MAX_EVENTS // 2 + 30
    last: list[str] = ["", ""]
    failures: list[str] = []

    def record(index: int, api: SandboxClient) -> None:
        for _ in range(each):
            made = api.post("/sandbox/events/trigger", {"type": "INVITATION.CLAIMED"})
            if made.status_code != 201:
                failures.append(made.text)
                return
            last[index] = made.json()["id"]

    with clients_of(pair) as clients:
        threads = [threading.Thread(target=record, args=(i, api)) for i, api in enumerate(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        total = clients[0].get("/sandbox/events", params={"limit": 1}).json()["totalCount"]
        # Two requests recorded events at once: at most one past the cap.
        assert MAX_EVENTS <= total <= MAX_EVENTS + 1, total
        for event_id in last:  # the newest are kept
            assert event(clients[0], event_id)["id"] == event_id
        trigger(clients[1], "INVITATION.CLAIMED")
        total = clients[0].get("/sandbox/events", params={"limit": 1}).json()["totalCount"]
        assert total == MAX_EVENTS
