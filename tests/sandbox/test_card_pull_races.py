"""A delayed pull (descriptor ``005``) is confirmed once, on SQLite and PostgreSQL, with two
``ewc serve`` processes on one database: once it is due, reads of the card transaction sent at
the same moment to both processes (each confirms due pulls first) debit the funding source
once.

``EWC_RACE_ROUNDS`` sets the rounds (10 by default)."""

from __future__ import annotations

import os
from collections import Counter

from ._client import SandboxClient
from ._pair import pair_fixtures, race

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "10"))
AMOUNT = 100


pair = pair_fixtures("card-pull-races", "pulls")


def test_a_due_pull_read_at_once_in_two_processes_debits_once(
    clients: list[SandboxClient],
) -> None:
    client = clients[0]
    customer = client.create_customer(fullName="Jane Doe")
    verified = client.post("/verifications", {"customerId": customer["id"]})
    assert verified.json()["verificationStatus"] == "APPROVED", verified.text
    listed = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    usd = next(a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_FIAT")
    funds = AMOUNT * ROUNDS * 3
    funded = client.post(f"/sandbox/internal-accounts/{usd}/fund", {"amount": funds})
    assert funded.status_code == 200, funded.text
    body = {"cardholderId": customer["id"], "form": "VIRTUAL", "fundingSources": [usd]}
    card = client.post("/cards", body)
    assert card.status_code == 201, card.text
    auth = {"amount": AMOUNT, "currency": {"code": "USD"}, "merchant": {"descriptor": "X 005"}}
    statuses: Counter[str] = Counter()
    counts: Counter[int] = Counter()
    for _ in range(ROUNDS):
        made = client.post(f"/sandbox/cards/{card.json()['id']}/simulate/authorization", auth)
        assert made.status_code == 202, made.text
        ident = f"CardTransaction:{made.json()['issuerTransactionToken']}"
        assert client.post("/sandbox/clock/advance", {"seconds": 31}).status_code == 200
        answers = race(
            [lambda c=clients[n % 2], t=ident: c.get(f"/transactions/{t}") for n in range(4)]
        )
        statuses.update(
            "200" if a.status_code == 200 else f"{a.status_code} {a.json().get('code')}"
            for a in answers
        )
        read = clients[1].get(f"/transactions/{ident}").json()
        counts[read.get("pullSummary", {}).get("count", -1)] += 1
    account = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    balance = next(a for a in account.json()["data"] if a["id"] == usd)["balance"]["amount"]
    debits = (funds - balance) // AMOUNT
    assert balance == funds - AMOUNT * ROUNDS, f"{debits} debits in {ROUNDS} rounds {statuses}"
    assert statuses == {"200": 4 * ROUNDS}, statuses
    assert counts == {1: ROUNDS}, counts
