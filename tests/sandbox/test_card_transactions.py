"""Card transactions in the platform's transaction list over real HTTP (sandbox, SQLite and
PostgreSQL): listed beside the payments as ``type: CARD``, in one (``createdAt``, ``id``) order
paged by the one cursor, filtered as ``domain.card_transaction_list`` says, and read by id."""

from __future__ import annotations

from typing import Any

import pytest

from ._client import SandboxClient
from ._payments import usd_external
from .test_cards import AUTH, _card, _code, _holder, _simulate


@pytest.fixture(autouse=True)
def sandbox_only(environment: str) -> None:
    if environment != "sandbox":
        pytest.skip("the card simulations are the sandbox's only")


def _listed(client: SandboxClient, **params: Any) -> dict[str, Any]:
    answer = client.get("/transactions", params=params)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_card_transactions_are_listed_with_the_payments(client: SandboxClient) -> None:
    holder = _holder(client)
    card = _card(client, holder)
    external = usd_external(client, holder["id"], "000")["id"]
    tokens = []
    for descriptor in ("SHOP ONE", "SHOP TWO"):
        paid = client.post(  # a payment between the card transactions
            "/transfer-out",
            {
                "source": {"accountId": holder["usd"]},
                "destination": {"accountId": external, "paymentRail": "ACH"},
                "amount": 100,
            },
        )
        assert paid.status_code in (200, 201), paid.text
        simulated = _simulate(
            client, card["id"], "authorization", {**AUTH, "merchant": {"descriptor": descriptor}}
        )
        assert simulated.status_code == 202, simulated.text
        tokens.append(simulated.json()["issuerTransactionToken"])
    ids = [f"CardTransaction:{token}" for token in tokens]
    listed = _listed(client, customerId=holder["id"], limit=100)
    cards = [t for t in listed["data"] if t["type"] == "CARD"]
    assert [t["id"] for t in cards] == ids[::-1]  # newest first
    assert all(t["status"] == "AUTHORIZED" and t["cardId"] == card["id"] for t in cards)
    assert cards[0]["authorizedAmount"]["amount"] == AUTH["amount"]
    assert [t["type"] for t in listed["data"]] == ["CARD", "OUTGOING", "CARD", "OUTGOING"]
    assert listed["totalCount"] == 4
    # One order across both tables, paged by the cursor: every item once, oldest first.
    seen, cursor = [], None
    for _ in range(listed["totalCount"] + 1):
        page = _listed(
            client,
            customerId=holder["id"],
            limit=1,
            sortOrder="asc",
            **({"cursor": cursor} if cursor else {}),
        )
        seen += [t["id"] for t in page["data"]]
        if not page["hasMore"]:
            break
        cursor = page["nextCursor"]
    assert seen == [t["id"] for t in listed["data"]][::-1]
    # Read by id; the filters.
    one = client.get(f"/transactions/{ids[0]}")
    assert one.status_code == 200 and one.json()["type"] == "CARD", one.text
    assert _code(client.get("/transactions/CardTransaction:none")) == "404 NOT_FOUND"
    by_account = _listed(client, accountIdentifier=holder["usd"], limit=100)["data"]
    assert set(ids) <= {t["id"] for t in by_account}
    by_sender = _listed(client, senderAccountIdentifier=holder["usd"], limit=100)["data"]
    assert set(ids) <= {t["id"] for t in by_sender}
    by_receiver = _listed(client, receiverAccountIdentifier=holder["usd"], limit=100)["data"]
    assert not set(ids) & {t["id"] for t in by_receiver}
    for only_payments in ({"type": "OUTGOING"}, {"status": "COMPLETED"}, {"reference": "x"}):
        data = _listed(client, customerId=holder["id"], **only_payments)["data"]
        assert all(t["type"] != "CARD" for t in data), only_payments
    other = _holder(client)
    assert all(t["type"] != "CARD" for t in _listed(client, customerId=other["id"])["data"])
