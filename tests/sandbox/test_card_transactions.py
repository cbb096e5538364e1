"""Card transactions in the platform's transaction list over real HTTP (sandbox, SQLite and
PostgreSQL): listed beside the payments as ``type: CARD``, in one (``createdAt``, ``id``) order
paged by the one cursor, filtered as ``domain.card_transaction_list`` says, and read by id."""

from __future__ import annotations

from typing import Any

import pytest

from ._client import SandboxClient
from ._payments import usd_external
from .test_cards import AUTH, _balance, _card, _code, _holder, _simulate


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


def _card_transaction(client: SandboxClient, ident: str) -> dict[str, Any]:
    answer = client.get(f"/transactions/{ident}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_descriptor_005_pulls_after_a_delay_on_the_service_clock(client: SandboxClient) -> None:
    """``005``: approved and held, the pull pending (nothing debited) until 30 simulated
    seconds have passed on the service's clock; then confirmed (debited), or failed into
    EXCEPTION when the balance no longer covers it; a clearing confirms it at once."""
    holder = _holder(client, funds=10_000)
    card = _card(client, holder)
    delayed = {**AUTH, "amount": 4_000, "merchant": {"descriptor": "SLOW SHOP 005"}}

    def authorize(body: dict[str, Any]) -> str:
        made = _simulate(client, card["id"], "authorization", body)
        assert made.status_code == 202, made.text
        return f"CardTransaction:{made.json()['issuerTransactionToken']}"

    first = authorize(delayed)
    pending = _card_transaction(client, first)
    assert pending["status"] == "AUTHORIZED"
    assert pending["pullSummary"] == {"count": 0, "totalAmount": 0, "pendingCount": 1}
    assert _balance(client, holder) == 10_000  # nothing pulled yet
    second = authorize(delayed)
    drain = authorize({**AUTH, "amount": 4_000})  # a normal authorization pulls at once
    assert _card_transaction(client, drain)["pullSummary"]["count"] == 1
    assert _balance(client, holder) == 6_000
    # A clearing of the second confirms its pull at once, then settles.
    clearing = {"cardTransactionId": second, "amount": 4_000}
    cleared = _simulate(client, card["id"], "clearing", clearing)
    assert cleared.status_code == 202, cleared.text
    settled = _card_transaction(client, second)
    assert (settled["status"], settled["pullSummary"]["pendingCount"]) == ("SETTLED", 0)
    assert _balance(client, holder) == 2_000
    assert _card_transaction(client, first)["pullSummary"]["pendingCount"] == 1  # not due yet
    moved = client.post("/sandbox/clock/advance", {"seconds": 31})
    assert moved.status_code == 200, moved.text
    # Due: the first's pull is tried now, and the balance (2000) no longer covers 4000.
    failed = _card_transaction(client, first)
    assert failed["status"] == "EXCEPTION"
    assert failed["pullSummary"] == {"count": 0, "totalAmount": 0, "pendingCount": 0}
    assert _balance(client, holder) == 2_000
    # One that the balance covers is confirmed when due.
    third = authorize({**delayed, "amount": 1_500})
    assert _balance(client, holder) == 2_000
    client.post("/sandbox/clock/advance", {"seconds": 31})
    listed = _listed(client, customerId=holder["id"], limit=100)["data"]
    (confirmed,) = (t for t in listed if t["id"] == third)
    assert confirmed["status"] == "AUTHORIZED"
    assert confirmed["pullSummary"] == {"count": 1, "totalAmount": 1_500, "pendingCount": 0}
    assert _balance(client, holder) == 500
