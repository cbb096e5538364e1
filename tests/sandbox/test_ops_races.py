"""The decisions of the later operations under concurrency, on SQLite and PostgreSQL, with two
``ewc serve`` processes on one database, the two requests of each race sent one to each:

- an approval and a rejection of one held incoming payment: one of them is made (200), the
  other is refused 409, and the payment ends as the one that was made says (credited only
  when approved);
- two cancellations of one transfer out: one is made, the other is refused 409
  ``TRANSACTION_NOT_CANCELLABLE``, and the source gets its amount back once;
- a cancellation of a transfer out and the confirmation of its receipt: both are made (200),
  and the transfer keeps both, its refund and its receipt time (each rewrites the stored
  details under the transaction's lock, so neither loses the other's);
- two deletions of one customer: one is made, the other is refused 410 ``CUSTOMER_DELETED``;
- the two processes' workers import each bulk CSV job once (each row one customer).

``EWC_OPS_RACE_ROUNDS`` sets the rounds of each race (10 by default).
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Iterator
from functools import partial

import pytest

from ._client import SandboxClient
from ._pair import race, running_pair
from ._payments import Receiver, accounts, balance, fund, usd_external, wait_for, webhook_receiver
from ._server import SandboxServer
from .conftest import database_url
from .test_transaction_ops import held_payment

ROUNDS = int(os.environ.get("EWC_OPS_RACE_ROUNDS", "10"))
#: Transfers settle after 2 simulated seconds: 40 s here, long after each race.
TIME_SCALE = 20.0
_INFO = {"receiverCustomerInfo": {"FULL_NAME": "Jane Doe", "BIRTH_DATE": "1990-01-01"}}


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with webhook_receiver() as running:
        running.answers["INCOMING_PAYMENT"] = [202]  # hold every incoming payment
        yield running


@pytest.fixture(scope="module")
def pair(
    backend: str,
    receiver: Receiver,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    with running_pair(
        tmp_path_factory.mktemp(f"ops-races-{backend}"),
        database_url(request, backend, "opsraces"),
        time_scale=TIME_SCALE,
        webhook_endpoint=receiver.url,
    ) as servers:
        yield servers


def test_approve_and_reject_at_once_make_one_decision(clients: list[SandboxClient]) -> None:
    wrong: list[object] = []
    outcomes: Counter[str] = Counter()
    for _ in range(ROUNDS):
        customer = clients[0].create_customer(currencies=["USD"])
        held = held_payment(clients[0], customer["id"])
        approve, reject = race(
            [
                lambda p=held["id"]: clients[0].post(f"/transactions/{p}/approve", _INFO),
                lambda p=held["id"]: clients[1].post(f"/transactions/{p}/reject"),
            ]
        )
        statuses = (approve.status_code, reject.status_code)
        final = clients[1].get(f"/transactions/{held['id']}").json()["status"]
        credited = balance(clients[1], customer["id"], "USD")
        if statuses == (200, 409):
            outcomes["approved"] += 1
            ok = final == "COMPLETED" and credited == 1_000
        elif statuses == (409, 200):
            outcomes["rejected"] += 1
            ok = final == "REJECTED" and credited == 0
        else:
            ok = False
        if not ok:
            wrong.append((statuses, final, credited, approve.text[:80], reject.text[:80]))
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds: {wrong[:3]} ({dict(outcomes)})"


def _transfer_out(client: SandboxClient) -> tuple[str, str]:
    """A new customer's funded transfer out of 1200 (of 5000): the customer's and its ids."""
    customer = client.create_customer(currencies=["USD"])
    usd = accounts(client, customer["id"])["USD"]["id"]
    external = usd_external(client, customer["id"], "010")
    fund(client, usd, 5_000)
    made = client.post(
        "/transfer-out",
        {
            "source": {"accountId": usd},
            "destination": {"accountId": external["id"]},
            "amount": 1_200,
        },
    )
    assert made.status_code == 201, made.text
    return customer["id"], made.json()["id"]


def test_two_cancellations_at_once_refund_once(clients: list[SandboxClient]) -> None:
    wrong: list[object] = []
    for _ in range(ROUNDS):
        customer_id, transfer = _transfer_out(clients[0])
        path = f"/transactions/{transfer}/cancel"
        answers = race([lambda c=c, p=path: c.post(p) for c in clients])
        statuses = sorted(r.status_code for r in answers)
        codes = [r.json().get("code") for r in answers if r.status_code != 200]
        after = balance(clients[1], customer_id, "USD")
        if statuses != [200, 409] or codes != ["TRANSACTION_NOT_CANCELLABLE"] or after != 5_000:
            wrong.append((statuses, codes, after))
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds: {wrong[:3]}"


def test_a_cancellation_and_a_receipt_at_once_keep_both(clients: list[SandboxClient]) -> None:
    wrong: list[object] = []
    for round_ in range(ROUNDS):
        customer_id, transfer = _transfer_out(clients[0])
        path = f"/transactions/{transfer}"
        cancel, confirm = race(
            [
                partial(clients[round_ % 2].post, f"{path}/cancel"),
                partial(clients[1 - round_ % 2].post, f"{path}/confirm"),
            ]
        )
        stored = clients[1].get(path).json()
        kept = (
            stored["status"],
            stored.get("refund", {}).get("reason"),
            "receiptDeliveryConfirmedAt" in stored,
            balance(clients[0], customer_id, "USD"),
        )
        statuses = (cancel.status_code, confirm.status_code)
        if statuses != (200, 200) or kept != ("REFUNDED", "USER_CANCELLATION", True, 5_000):
            wrong.append((statuses, kept))
    assert not wrong, (
        f"{len(wrong)} of {ROUNDS} rounds (statuses, what the transfer kept): {wrong[:3]}"
    )


def test_two_deletions_at_once_delete_once(clients: list[SandboxClient]) -> None:
    wrong: list[object] = []
    for _ in range(ROUNDS):
        customer = clients[0].create_customer(currencies=["USD"])
        path = f"/customers/{customer['id']}"
        answers = race([lambda c=c, p=path: c.request("DELETE", p) for c in clients])
        statuses = sorted(r.status_code for r in answers)
        codes = [r.json().get("code") for r in answers if r.status_code != 200]
        if statuses != [200, 410] or codes != ["CUSTOMER_DELETED"]:
            wrong.append((statuses, codes))
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds: {wrong[:3]}"


def test_two_workers_import_each_job_once(clients: list[SandboxClient]) -> None:
    """Both processes' workers look for pending jobs every tick: each job is claimed by one of
    them, so each row becomes one customer."""
    tag = uuid.uuid4().hex[:8]
    header = (
        "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,"
        "state,postalCode,country\n"
    )
    jobs = []
    for number in range(ROUNDS):
        rows = "".join(
            f"${tag}.{number}.{row}@uma.test,{tag}-{number}-{row},INDIVIDUAL,Ann Lee,"
            "1990-01-15,1 Main St,SF,CA,94105,US\n"
            for row in range(3)
        )
        files = {"file": ("c.csv", (header + rows).encode(), "text/csv")}
        accepted = clients[number % 2].http.post("/customers/bulk/csv", files=files)
        assert accepted.status_code == 202, accepted.text
        jobs.append(accepted.json()["jobId"])
    for job_id in jobs:
        done = wait_for(
            lambda j=job_id: clients[0].get(f"/customers/bulk/jobs/{j}").json(),
            lambda job: job["status"] in ("COMPLETED", "FAILED"),
            60,
        )
        assert done["status"] == "COMPLETED" and done["progress"]["successful"] == 3, done
    doubled = []
    for number in range(ROUNDS):
        for row in range(3):
            listed = clients[1].get(
                "/customers", params={"platformCustomerId": f"{tag}-{number}-{row}"}
            )
            if listed.json()["totalCount"] != 1:
                doubled.append((number, row, listed.json()["totalCount"]))
    assert not doubled, (
        f"{len(doubled)} of {3 * ROUNDS} rows imported other than once: {doubled[:3]}"
    )
