"""The events of the later operations, with ``ewc serve --names published``, received by a real
receiver started here and validated as sent against the published webhook schemas (signature
checked over the raw bytes; see ``test_webhooks_published``):

- a held incoming payment rejected: ``INCOMING_PAYMENT.FAILED`` with the REJECTED transaction;
- a transfer out cancelled: ``OUTGOING_PAYMENT.REFUND_COMPLETED`` with the refunded one (status
  ``FAILED`` as published, its ``refund`` ``COMPLETED``); a
  transfer in cancelled: ``INCOMING_PAYMENT.FAILED``;
- an external account deleted: ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` with the account, ``INACTIVE``;
- a bulk CSV job done: ``BULK_UPLOAD.COMPLETED`` (or ``.FAILED`` when no row was imported) with
  the job as ``GET /customers/bulk/jobs/{jobId}`` answers it.

Under concurrency, on SQLite and PostgreSQL, two processes on one database
(``EWC_OPS_RACE_ROUNDS`` rounds, 10 by default): two deletions of one external account at once
make one deletion and one event; two workers import each job once and announce it once.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from ._client import SandboxClient
from ._pair import clients_of, race, running_pair
from ._payments import accounts, fund, usd_external, wait_for
from ._server import SandboxServer
from ._webhooks import Hooks, hooks_server, poll
from .conftest import database_url
from .test_transaction_ops import held_payment
from .test_webhooks_published import delivered

ROUNDS = int(os.environ.get("EWC_OPS_RACE_ROUNDS", "10"))
#: Transfers settle after 2 simulated seconds: 40 s here, so a cancellation comes first.
TIME_SCALE = 20.0
HEADER = (
    "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,"
    "state,postalCode,country\n"
)


@pytest.fixture(scope="module")
def hooks() -> Iterator[Hooks]:
    with hooks_server() as running:
        running.script["INCOMING_PAYMENT.PENDING"] = [(202, None)]  # hold every one
        yield running


@pytest.fixture(scope="module")
def server(hooks: Hooks, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path_factory.mktemp("webhooks-operations"),
        extra=["--names", "published"],
        time_scale=TIME_SCALE,
    )
    running.start()
    with clients_of([running]) as (api,):
        patched = api.request("PATCH", "/config", json={"webhookEndpoint": hooks.url})
        assert patched.status_code == 200, patched.text
    yield running
    assert running.stop() == 0


@pytest.fixture(scope="module")
def client(server: SandboxServer) -> Iterator[SandboxClient]:
    with clients_of([server]) as (api,):
        yield api


def announced(client: SandboxClient, hooks: Hooks, event_type: str, **match: Any) -> Any:
    """The one delivery of ``event_type`` whose data has ``match`` (checked as sent)."""
    found = poll(
        lambda: [e for e in delivered(client, hooks, **match) if e["type"] == event_type],
        bool,
    )
    (event,) = found
    return event


def test_a_rejected_payment_is_announced(client: SandboxClient, hooks: Hooks) -> None:
    held = held_payment(client, client.create_customer(currencies=["USD"])["id"])
    rejected = client.post(f"/transactions/{held['id']}/reject", {"reason": "FRAUD"})
    assert rejected.status_code == 200, rejected.text
    event = announced(client, hooks, "INCOMING_PAYMENT.FAILED", id=held["id"])
    assert event["data"] == rejected.json() and event["data"]["status"] == "REJECTED"


@pytest.mark.parametrize(
    ("direction", "event_type", "status"),
    [
        # REFUNDED in the interface; the published OutgoingTransactionStatus has FAILED (with
        # the refund COMPLETED) for it.
        ("out", "OUTGOING_PAYMENT.REFUND_COMPLETED", "FAILED"),
        ("in", "INCOMING_PAYMENT.FAILED", "FAILED"),
    ],
)
def test_a_cancelled_transfer_is_announced(
    client: SandboxClient, hooks: Hooks, direction: str, event_type: str, status: str
) -> None:
    customer = client.create_customer(currencies=["USD"])["id"]
    usd = accounts(client, customer)["USD"]["id"]
    external = usd_external(client, customer, "010")["id"]
    if direction == "out":
        fund(client, usd, 5_000)
        body = {"source": {"accountId": usd}, "destination": {"accountId": external}}
    else:
        body = {"source": {"accountId": external}, "destination": {"accountId": usd}}
    made = client.post(f"/transfer-{direction}", {**body, "amount": 1_200})
    assert made.status_code == 201, made.text
    cancelled = client.post(f"/transactions/{made.json()['id']}/cancel", {})
    assert cancelled.status_code == 200, cancelled.text
    event = announced(client, hooks, event_type, id=made.json()["id"])
    assert event["data"] == cancelled.json() and event["data"]["status"] == status
    if direction == "out":
        assert event["data"]["refund"]["status"] == "COMPLETED"


def test_a_deleted_external_account_is_announced(client: SandboxClient, hooks: Hooks) -> None:
    customer = client.create_customer(currencies=["USD"])["id"]
    account = usd_external(client, customer, "010")
    deleted = client.request("DELETE", f"/customers/external-accounts/{account['id']}")
    assert deleted.status_code == 204, deleted.text
    event = announced(client, hooks, "EXTERNAL_ACCOUNT.STATUS_UPDATED", id=account["id"])
    assert event["data"] == {**account, "status": "INACTIVE"}


def _csv(tag: str, rows: int, *, valid: bool = True) -> bytes:
    birth = "1990-01-15" if valid else "not-a-date-at-all"
    country = "US" if valid else "USA"
    lines = "".join(
        f"${tag}.{row}@uma.test,{tag}-{row},INDIVIDUAL,Ann Lee,{birth},1 Main St,SF,CA,94105,"
        f"{country}\n"
        for row in range(rows)
    )
    return (HEADER + lines).encode()


@pytest.mark.parametrize(("valid", "status"), [(True, "COMPLETED"), (False, "FAILED")])
def test_a_bulk_job_is_announced(
    client: SandboxClient, hooks: Hooks, valid: bool, status: str
) -> None:
    files = {"file": ("c.csv", _csv(uuid.uuid4().hex[:8], 2, valid=valid), "text/csv")}
    accepted = client.http.post("/customers/bulk/csv", files=files)
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["jobId"]
    event = announced(client, hooks, f"BULK_UPLOAD.{status}", id=job_id)
    assert event["data"] == client.get(f"/customers/bulk/jobs/{job_id}").json()
    assert event["data"]["status"] == status


# --- under concurrency: two processes on one database -----------------------------------------


@pytest.fixture(scope="module")
def clients(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[SandboxClient]]:
    with running_pair(
        tmp_path_factory.mktemp(f"webhooks-ops-races-{backend}"),
        database_url(request, backend, "hookops"),
        time_scale=TIME_SCALE,
        extra=["--names", "published"],
    ) as servers:
        with clients_of(servers) as made:
            yield made


def _events_about(client: SandboxClient, event_type: str, resource_id: str) -> int:
    """How many recorded events of ``event_type`` have ``data.id`` ``resource_id``."""
    count, cursor = 0, None
    while True:
        params: dict[str, Any] = {"limit": 100, "type": event_type}
        if cursor:
            params["cursor"] = cursor
        listed = client.get("/sandbox/events", params=params).json()
        count += sum(1 for e in listed["data"] if e["payload"]["data"].get("id") == resource_id)
        cursor = listed.get("nextCursor")
        if not cursor:
            return count


def test_two_deletions_of_an_external_account_announce_once(clients: list[SandboxClient]) -> None:
    wrong: list[object] = []
    customer = clients[0].create_customer(currencies=["USD"])["id"]
    for number in range(ROUNDS):
        account = usd_external(clients[0], customer, f"{number % 90 + 10:03d}")["id"]
        path = f"/customers/external-accounts/{account}"
        answers = race([lambda c=c, p=path: c.request("DELETE", p) for c in clients])
        statuses = sorted(r.status_code for r in answers)
        events = _events_about(clients[1], "EXTERNAL_ACCOUNT.STATUS_UPDATED", account)
        if statuses != [204, 404] or events != 1:
            wrong.append((statuses, events))
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds: {wrong[:3]}"


def test_two_workers_announce_each_job_once(clients: list[SandboxClient]) -> None:
    jobs = []
    for number in range(ROUNDS):
        files = {"file": ("c.csv", _csv(uuid.uuid4().hex[:8], 2), "text/csv")}
        accepted = clients[number % 2].http.post("/customers/bulk/csv", files=files)
        assert accepted.status_code == 202, accepted.text
        jobs.append(accepted.json()["jobId"])
    wrong = []
    for job_id in jobs:
        done = wait_for(
            lambda j=job_id: clients[0].get(f"/customers/bulk/jobs/{j}").json(),
            lambda job: job["status"] in ("COMPLETED", "FAILED"),
            60,
        )
        events = _events_about(clients[0], "BULK_UPLOAD.COMPLETED", job_id)
        if done["status"] != "COMPLETED" or events != 1:
            wrong.append((done["status"], events))
    assert not wrong, f"{len(wrong)} of {ROUNDS} jobs: {wrong[:3]}"
