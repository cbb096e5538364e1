"""The receiver's answer to an incoming payment's approval request racing the platform's own
approve calls, on SQLite and PostgreSQL, with two ``ewc serve`` processes on one database.

The receiver holds its answer (200: approved) until the test lets it go, at the moment four
``POST /transactions/{id}/approve`` are sent, two through each process: the worker that records
the answer decides the payment (``incoming_approval.decide``) while the approve calls decide it
too. One of them decides, once: either an approve call (200; the others 409
``TRANSACTION_NOT_AWAITING_APPROVAL``, and the answer's outcome ``PAYMENT_ALREADY_DECIDED``) or
the answer (outcome ``APPROVED``; every approve call 409 ``TRANSACTION_NOT_AWAITING_APPROVAL``).
The payment completes and the receiver is credited once. Both are decided under the payment's
row lock; without the answer's, a decision read before an approve call committed credits the
payment a second time.

``EWC_APPROVAL_RACE_ROUNDS`` sets the rounds (20 by default).
"""

from __future__ import annotations

import os
import queue
import threading
from collections import Counter
from collections.abc import Iterator
from functools import partial
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._pair import outcome, race, running_pair
from ._payments import balance, wait_for
from ._server import SandboxServer
from ._webhooks import hooks_server
from .conftest import database_url
from .test_transaction_ops import held_payment

ROUNDS = int(os.environ.get("EWC_APPROVAL_RACE_ROUNDS", "20"))
APPROVERS = 4
AMOUNT = 1_000  # held_payment's
_INFO = {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe", "BIRTH_DATE": "1990-01-01"}}


class _HoldingReceiver:
    """A webhook receiver (``_webhooks.Hooks``) that holds its answer to each approval request
    (the payment's id put in ``arrived``) until ``release`` is set, then approves (200, with the
    receiver's details); every other event 200 at once."""

    def __init__(self) -> None:
        self.arrived: queue.Queue[str] = queue.Queue()
        self.release = threading.Event()
        self.url = ""

    def hold(self, event: dict[str, Any]) -> None:
        if event["type"] == "INCOMING_PAYMENT.PENDING":
            release = self.release
            self.arrived.put(event["data"]["id"])
            release.wait(30)


@pytest.fixture(scope="module")
def receiver() -> Iterator[_HoldingReceiver]:
    receiver = _HoldingReceiver()
    with hooks_server() as hooks:
        hooks.script["INCOMING_PAYMENT.PENDING"] = [(200, _INFO)]
        hooks.hold = receiver.hold
        receiver.url = hooks.url
        try:
            yield receiver
        finally:
            receiver.release.set()


@pytest.fixture(scope="module")
def pair(
    backend: str,
    receiver: _HoldingReceiver,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    with running_pair(
        tmp_path_factory.mktemp(f"approval-races-{backend}"),
        database_url(request, backend, "approvals"),
        webhook_endpoint=receiver.url,
    ) as servers:
        yield servers


def _answer_outcome(client: SandboxClient, payment_id: str) -> dict[str, str | None]:
    """The recorded outcome of the payment's approval request (None while it is delivered)."""
    listed = client.get(
        "/sandbox/events", params={"type": "INCOMING_PAYMENT.PENDING", "limit": 20}
    ).json()["data"]
    (event,) = [e for e in listed if e["transactionId"] == payment_id]
    found: str | None = event["outcome"]
    return {"outcome": None if event["status"] == "PENDING" else found}


def test_an_approving_answer_and_approve_calls_at_once_decide_once(
    clients: list[SandboxClient], receiver: _HoldingReceiver
) -> None:
    deciders: Counter[str] = Counter()
    wrong: list[object] = []
    for _ in range(ROUNDS):
        gate = receiver.release = threading.Event()
        customer = clients[0].create_customer(currencies=["USD"])["id"]
        payment = held_payment(clients[0], customer)["id"]
        assert receiver.arrived.get(timeout=30) == payment

        def let_go(gate: threading.Event = gate, payment: str = payment) -> httpx.Response:
            gate.set()
            return clients[1].get(f"/transactions/{payment}")

        path = f"/transactions/{payment}/approve"
        approve = [partial(clients[n % 2].post, path, _INFO) for n in range(APPROVERS)]
        answers = race([let_go, *approve])[1:]
        calls = Counter(outcome(answer, 200) for answer in answers)
        recorded = wait_for(
            partial(_answer_outcome, clients[0], payment),
            lambda value: value["outcome"] is not None,
        )["outcome"]
        status = clients[1].get(f"/transactions/{payment}").json()["status"]
        credited = balance(clients[1], customer, "USD")
        by_call = calls == {"200": 1, "409 TRANSACTION_NOT_AWAITING_APPROVAL": APPROVERS - 1}
        by_answer = calls == {"409 TRANSACTION_NOT_AWAITING_APPROVAL": APPROVERS}
        deciders["approve call" if by_call else "answer"] += 1
        if (
            not (by_call and recorded == "PAYMENT_ALREADY_DECIDED")
            and not (by_answer and recorded == "APPROVED")
        ) or (status, credited) != ("COMPLETED", AMOUNT):
            wrong.append((dict(calls), recorded, status, credited))
    assert not wrong, (
        f"{len(wrong)} of {ROUNDS} rounds (approve calls, answer's outcome, status, credited): "
        f"{wrong[:3]} {dict(deciders)}"
    )
