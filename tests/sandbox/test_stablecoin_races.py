"""The stablecoin supply and the card transactions under concurrency, on SQLite and PostgreSQL,
with two ``ewc serve`` processes on one database, each request of a race sent to either:

- a supply never goes below zero: burns at once that together take more than was minted leave
  exactly the ones the supply covers (201) and refuse the others 400 ``INSUFFICIENT_SUPPLY``;
- two clearings of one card authorization at once settle it once: the other is refused, and
  the funding source's balance moved once.

``EWC_RACE_ROUNDS`` sets the rounds (20 by default).
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from typing import Any

from ._client import SandboxClient
from ._pair import pair_fixtures, race

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "20"))
MINTED = 1_000_000  # 1.00 of a 6-decimal stablecoin
BURN = 600_000


pair = pair_fixtures("stablecoin-races", "coins")


def _keyed() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def _created(response: Any) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _bank(client: SandboxClient, customer_id: str) -> str:
    info = {
        "accountType": "USD_ACCOUNT",
        "accountNumber": "123456789",
        "routingNumber": "021000021",
        "beneficiary": {"fullName": "Jane Doe"},
    }
    body = {"customerId": customer_id, "currency": "USD", "accountInfo": info}
    return str(_created(client.post("/customers/external-accounts", body))["id"])


def test_burns_at_once_never_take_more_than_the_supply(clients: list[SandboxClient]) -> None:
    client = clients[0]
    link = {"provider": "BRALE", "apiClientId": uuid.uuid4().hex, "apiClientSecret": "s"}
    link_id = _created(client.post("/stablecoin-provider-accounts", link, headers=_keyed()))["id"]
    customer = client.create_customer(fullName="Jane Doe")
    bank = _bank(client, customer["id"])
    wallet = client.wallet_of(customer["id"])
    source = {
        "type": "PROVIDER_INTERNAL_BALANCE",
        "sourceTokenIdentifier": "x",
        "cryptoNetwork": "S",
    }
    burn = {
        "amount": str(BURN),
        "source": {"type": "PROVIDER_INTERNAL_BALANCE"},
        "destination": {"type": "EXTERNAL_ACCOUNT", "externalAccountId": bank, "rail": "WIRE"},
    }
    outcomes: Counter[str] = Counter()
    overdrawn = 0
    for _ in range(ROUNDS):
        register = {
            "providerTokenIdentifier": "acme",
            "networkTokenIdentifier": f"btkn{uuid.uuid4().hex}",
            "network": "SPARK",
            "stablecoinProviderAccountId": link_id,
        }
        coin = _created(client.post("/stablecoins", register, headers=_keyed()))["id"]
        mint = {
            "amount": str(MINTED),
            "fundingSource": source,
            "destination": {"accountId": wallet},
        }
        _created(client.post(f"/stablecoins/{coin}/mints", mint, headers=_keyed()))
        calls = [
            (
                lambda c=clients[i % 2], path=f"/stablecoins/{coin}/burns": c.post(
                    path, burn, headers=_keyed()
                )
            )
            for i in range(4)
        ]
        answers = race(calls)
        seen = Counter(
            f"{a.status_code} {a.json().get('code', '')}".strip() if a.status_code != 201 else "201"
            for a in answers
        )
        outcomes.update(seen)
        overdrawn += seen["201"] * BURN > MINTED
        listed = client.get(f"/stablecoins/{coin}/operations", params={"operationType": "BURN"})
        assert listed.status_code == 200, listed.text
        assert listed.json()["totalCount"] == seen["201"]
    assert overdrawn == 0, outcomes
    assert outcomes == {"201": ROUNDS, "400 INSUFFICIENT_SUPPLY": 3 * ROUNDS}, outcomes


def test_two_clearings_at_once_settle_once(clients: list[SandboxClient]) -> None:
    client = clients[0]
    customer = client.create_customer(fullName="Jane Doe")
    verified = client.post("/verifications", {"customerId": customer["id"]})
    assert verified.json()["verificationStatus"] == "APPROVED", verified.text
    listed = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    usd = next(a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_FIAT")
    funded = client.post(f"/sandbox/internal-accounts/{usd}/fund", {"amount": 100 * ROUNDS * 3})
    assert funded.status_code == 200, funded.text
    body = {"cardholderId": customer["id"], "form": "VIRTUAL", "fundingSources": [usd]}
    card = _created(client.post("/cards", body))["id"]
    auth = {"amount": 100, "currency": {"code": "USD"}, "merchant": {"descriptor": "SHOP"}}
    outcomes: Counter[str] = Counter()
    for _ in range(ROUNDS):
        token = client.post(f"/sandbox/cards/{card}/simulate/authorization", auth).json()
        ref = f"CardTransaction:{token['issuerTransactionToken']}"
        clearing = {"cardTransactionId": ref, "amount": 150}  # 50 more than authorized
        calls = [
            (
                lambda c=clients[i % 2], body=clearing: c.post(
                    f"/sandbox/cards/{card}/simulate/clearing", body
                )
            )
            for i in range(2)
        ]
        outcomes.update(
            f"{a.status_code} {a.json().get('code', '')}".strip() if a.status_code != 202 else "202"
            for a in race(calls)
        )
    assert outcomes["202"] == ROUNDS, outcomes
    assert sum(outcomes.values()) == 2 * ROUNDS
    assert set(outcomes) <= {"202", "409 CONFLICT", "400 INVALID_STATE"}, outcomes
    account = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    balance = next(a for a in account.json()["data"] if a["id"] == usd)["balance"]["amount"]
    assert balance == 100 * ROUNDS * 3 - 150 * ROUNDS  # each clearing pulled once
