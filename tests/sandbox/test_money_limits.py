"""Money limits over real HTTP, on SQLite and PostgreSQL, with two ``ewc serve`` processes on one
database: every balance stays an exact integer at most the ceiling (9000000000000000 smallest
units) whatever credits it (the sandbox fund, also under concurrency near the ceiling; transfers
in as they settle; refunds), a later transfer out moves the stored balance exactly; and the
payment worker isolates a transaction whose settlement fails (FAILED with a reason) while
another customer's payment settles."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from ._client import SandboxClient
from ._pair import race, running_pair
from ._payments import accounts, balance, fund, settled, usd_external
from ._server import SandboxServer
from .conftest import database_url

#: The documented ceiling of every balance (and the largest amount of a request).
CEILING = 9_000_000_000_000_000
TIME_SCALE = 0.05  # a 2-second settlement takes 0.1 s; suffix 005's 30 seconds take 1.5 s


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two ``ewc serve`` processes on one database (both run the payment worker)."""
    with running_pair(
        tmp_path_factory.mktemp(f"money-{backend}"),
        database_url(request, backend, "money"),
        time_scale=TIME_SCALE,
    ) as servers:
        yield servers


def usd_account(client: SandboxClient) -> tuple[str, str]:
    """A new customer and its USD internal account: (customer id, account id)."""
    customer = client.create_customer(currencies=["USD", "EUR"])
    return customer["id"], accounts(client, customer["id"])["USD"]["id"]


def fund_path(account_id: str) -> str:
    return f"/sandbox/internal-accounts/{account_id}/fund"


def transfer(source: str, destination: str, amount: int) -> dict[str, Any]:
    return {
        "source": {"accountId": source},
        "destination": {"accountId": destination},
        "amount": amount,
    }


def test_concurrent_funds_near_the_ceiling_never_pass_it(clients: list[SandboxClient]) -> None:
    rounds, past, off, refused_codes = 6, 0, 0, Counter[str]()
    for _ in range(rounds):
        customer_id, usd = usd_account(clients[0])
        fund(clients[0], usd, CEILING - 50)
        path = fund_path(usd)
        answers = race([lambda c=c, p=path: c.post(p, {"amount": 10}) for c in clients * 4])
        funded = sum(response.status_code == 200 for response in answers)
        refused_codes.update(
            response.json()["code"] for response in answers if response.status_code != 200
        )
        final = balance(clients[1], customer_id, "USD")
        past += final > CEILING
        off += final != CEILING - 50 + 10 * funded
    assert (past, off) == (0, 0), f"{past} of {rounds} balances past the ceiling, {off} off"
    assert refused_codes == {"BALANCE_LIMIT_EXCEEDED": 3 * rounds}


def test_credits_past_the_ceiling_are_refused(clients: list[SandboxClient]) -> None:
    client = clients[0]
    customer_id, usd = usd_account(client)
    bank = usd_external(client, customer_id, "010")
    assert client.post(fund_path(usd), {"amount": CEILING}).status_code == 200
    # One more unit, by the fund or by a transfer in: refused with the code, nothing stored.
    over = client.post(fund_path(usd), {"amount": 1})
    assert over.status_code == 400 and over.json()["code"] == "BALANCE_LIMIT_EXCEEDED", over.text
    pulled = client.post("/transfer-in", transfer(bank["id"], usd, 1))
    assert pulled.status_code == 400, pulled.text
    assert pulled.json()["code"] == "BALANCE_LIMIT_EXCEEDED"
    # Amounts are bounded too (the same ceiling).
    for path, body in [
        (fund_path(usd), {"amount": CEILING + 1}),
        ("/transfer-in", transfer(bank["id"], usd, CEILING + 1)),
        ("/transfer-out", transfer(usd, bank["id"], 2**63)),
    ]:
        response = client.post(path, body)
        assert response.status_code == 400 and response.json()["code"] == "INVALID_INPUT", path
    assert balance(client, customer_id, "USD") == CEILING

    # Transfers in accepted while there was room: of those that pass the ceiling when they
    # settle, none is credited (FAILED, LIMIT_EXCEEDED); the balance stays exact.
    out = client.post("/transfer-out", transfer(usd, bank["id"], 1_000))
    assert out.status_code == 201, out.text
    assert settled(client, out.json()["id"])["status"] == "COMPLETED"
    answers = race(
        [lambda c=c: c.post("/transfer-in", transfer(bank["id"], usd, 1_000)) for c in clients * 5]
    )
    created = [response.json()["id"] for response in answers if response.status_code == 201]
    for response in answers:
        if response.status_code != 201:
            assert response.json()["code"] == "BALANCE_LIMIT_EXCEEDED", response.text
    outcomes = Counter(
        (t["status"], t.get("failureReason"))
        for t in (settled(clients[1], transaction_id, 30) for transaction_id in created)
    )
    assert outcomes[("COMPLETED", None)] == 1, outcomes
    assert outcomes[("FAILED", "LIMIT_EXCEEDED")] == len(created) - 1, outcomes
    listed = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert listed.status_code == 200, listed.text
    assert balance(clients[1], customer_id, "USD") == CEILING

    # A later transfer out moves the stored balance by exactly its amount.
    later = clients[1].post("/transfer-out", transfer(usd, bank["id"], 1_000))
    assert later.status_code == 201, later.text
    assert balance(client, customer_id, "USD") == CEILING - 1_000
    assert settled(client, later.json()["id"])["status"] == "COMPLETED"
    assert balance(client, customer_id, "USD") == CEILING - 1_000


def test_a_refund_past_the_ceiling_is_not_made(clients: list[SandboxClient]) -> None:
    client = clients[0]
    customer_id, usd = usd_account(client)
    failing = usd_external(client, customer_id, "005")  # pending, then failed and refunded
    fund(client, usd, CEILING)
    out = client.post("/transfer-out", transfer(usd, failing["id"], 5_000))
    assert out.status_code == 201 and out.json()["status"] == "PENDING", out.text
    fund(client, usd, 5_000)  # the account is full again before the refund comes
    ended = settled(client, out.json()["id"], 30)
    assert ended["status"] == "FAILED"
    assert ended["failureReason"] == "COUNTERPARTY_POST_TX_FAILED"
    assert ended["refund"]["status"] == "FAILED", ended
    assert balance(clients[1], customer_id, "USD") == CEILING


def test_a_quote_into_a_full_account_is_refused(clients: list[SandboxClient]) -> None:
    client = clients[0]
    customer_id, usd = usd_account(client)
    eur = accounts(client, customer_id)["EUR"]["id"]
    fund(client, usd, CEILING)
    fund(client, eur, 10_000)
    quote = client.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": eur},
            "destination": {"destinationType": "ACCOUNT", "accountId": usd},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 5_000,
            "immediatelyExecute": True,
        },
    )
    assert quote.status_code == 400 and quote.json()["code"] == "BALANCE_LIMIT_EXCEEDED"
    assert balance(clients[1], customer_id, "EUR") == 10_000
    assert balance(clients[1], customer_id, "USD") == CEILING


def write_database(server: SandboxServer, statement: str, parameters: dict[str, Any]) -> None:
    """Change a row behind the service's back (SQLite file or PostgreSQL database)."""
    if server.database.startswith("sqlite:///"):
        with sqlite3.connect(server.database.removeprefix("sqlite:///"), timeout=30) as db:
            db.execute(statement.replace("%(", ":").replace(")s", ""), parameters)
        return
    import psycopg

    with psycopg.connect(server.database, autocommit=True) as connection:
        connection.execute(statement, parameters)


def test_a_failing_settlement_fails_alone(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    client = clients[0]
    broken_customer, broken_usd = usd_account(client)
    slow = usd_external(client, broken_customer, "005")
    broken = client.post("/transfer-in", transfer(slow["id"], broken_usd, 7_00)).json()
    assert broken["status"] == "PENDING"
    # Its next step is now one the database refuses to store (a status of NULL), due first:
    # applying it raises, as the out-of-range credit did on PostgreSQL.
    write_database(
        pair[0],
        "UPDATE sandbox_transactions SET schedule = %(schedule)s, next_at = 0 WHERE id = %(id)s",
        {"schedule": json.dumps([{"at": 0, "status": None}]), "id": broken["id"]},
    )
    customer_id, usd = usd_account(client)
    bank = usd_external(client, customer_id, "010")
    paid = clients[1].post("/transfer-in", transfer(bank["id"], usd, 3_00))
    assert paid.status_code == 201, paid.text
    assert settled(client, paid.json()["id"], 30)["status"] == "COMPLETED"
    assert balance(client, customer_id, "USD") == 3_00
    failed = settled(client, broken["id"], 30)
    assert failed["status"] == "FAILED" and failed["failureReason"] == "SETTLEMENT_FAILED"
    assert balance(client, broken_customer, "USD") == 0
    # The worker goes on with the payments that come after.
    again = client.post("/transfer-in", transfer(bank["id"], usd, 2_00)).json()
    assert settled(clients[1], again["id"], 30)["status"] == "COMPLETED"
    assert balance(client, customer_id, "USD") == 5_00
