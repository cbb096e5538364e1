"""The stablecoin caps under concurrency, on SQLite and PostgreSQL, with two ``ewc serve``
processes on one database: each round starts a collection one place below its cap, then sends
four inserts at once over HTTP, two through each process. Exactly one is stored (201); the
other three are refused 409 ``COLLECTION_LIMIT_REACHED``, and the collection holds its cap,
never more:

- a stablecoin's operations (``MAX_STABLECOIN_OPERATIONS``, counted with the stablecoin's row
  locked): four wire-funded mints (``PENDING_FUNDING``: they leave the supply alone, so nothing
  but the lock orders them);
- the platform's stablecoins (``MAX_STABLECOINS``, counted with the platform's row locked): four
  registrations;
- the platform's stablecoin provider links (``MAX_STABLECOIN_LINKS``, the same lock): four links.

Reaching the last place through the API would take 10,000 mints a stablecoin, and neither a
stablecoin nor a link can be deleted: the rows below the last place are seeded straight into the
service's own tables (``sandbox.db``, while the servers run), and each round deletes the last
round's winner there. ``EWC_CAP_RACE_ROUNDS`` sets the rounds (20 by default).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

import httpx
import pytest
from embedded_wallet_crypto.sandbox.db.engine import Database
from embedded_wallet_crypto.sandbox.db.tables_cards import (
    Stablecoin,
    StablecoinOperation,
    StablecoinProviderAccount,
)
from embedded_wallet_crypto.sandbox.domain.collection_caps import (
    MAX_STABLECOIN_LINKS,
    MAX_STABLECOIN_OPERATIONS,
    MAX_STABLECOINS,
)
from embedded_wallet_crypto.sandbox.domain.stablecoin_links import PLATFORM
from sqlalchemy import delete, insert

from ._client import SandboxClient
from ._pair import pair_fixtures
from ._server import SandboxServer
from .test_cap_races import Collection, _last_place_races, _Recorded, _total
from .test_stablecoin_races import _created, _keyed

#: A table of the stablecoin caps' rows.
Table = type[StablecoinOperation] | type[Stablecoin] | type[StablecoinProviderAccount]
#: An insert through a client.
Insert = Callable[[SandboxClient], httpx.Response]

pair = pair_fixtures("stablecoin-cap-races", "coincaps")


@pytest.fixture(scope="module")
def database(pair: tuple[SandboxServer, SandboxServer]) -> Iterator[Database]:
    """The pair's database, as the service opens it (its own engine and tables)."""
    opened = Database(pair[0].database)
    yield opened
    opened.dispose()


def _seed(database: Database, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` into ``table`` straight in the database, in one transaction."""
    if rows:
        with database.engine.begin() as connection:
            connection.execute(insert(table), rows)


class _Seeded(_Recorded):
    """A collection one place below its cap at each round's start: its inserts through the API
    are recorded, and each round deletes the last round's winners from the database."""

    def __init__(self, database: Database, table: Table, insert: Insert, path: str) -> None:
        super().__init__(insert)
        self.database, self.table, self.path = database, table, path

    def fresh(self, reader: SandboxClient) -> Collection:
        if self.made:
            with self.database.engine.begin() as connection:
                connection.execute(delete(self.table).where(self.table.id.in_(self.made)))
            self.made.clear()
        return self.insert, lambda: _total(reader, self.path)


def _link(client: SandboxClient) -> httpx.Response:
    body = {"provider": "BRALE", "apiClientId": uuid.uuid4().hex, "apiClientSecret": "s"}
    return client.post("/stablecoin-provider-accounts", body, headers=_keyed())


def _now() -> datetime:
    return datetime.now(timezone.utc)


def test_a_stablecoin_gets_its_last_operation_once(
    clients: list[SandboxClient], database: Database
) -> None:
    link = _created(_link(clients[0]))["id"]
    register = {
        "providerTokenIdentifier": "acme",
        "networkTokenIdentifier": f"btkn{uuid.uuid4().hex}",
        "network": "SPARK",
        "stablecoinProviderAccountId": link,
    }
    coin = _created(clients[0].post("/stablecoins", register, headers=_keyed()))
    wallet = clients[0].wallet_of(clients[0].create_customer(fullName="Jane Doe")["id"])
    path = f"/stablecoins/{coin['id']}/operations"
    now = _now()
    seeded = {
        "stablecoin_id": coin["id"],
        "operation_type": "MINT",
        "status": "COMPLETED",
        "amount": 1_000_000,
        "source": {"type": "PROVIDER_INTERNAL_BALANCE"},
        "destination": {"accountId": wallet},
        "extra": {"environment": coin["providerEnvironment"], "link": link},
        "description": None,
        "created_at": now,
        "updated_at": now,
    }
    held = _total(clients[1], path)
    rows = [
        {**seeded, "id": f"StablecoinOperation:{uuid.uuid4()}"}
        for _ in range(MAX_STABLECOIN_OPERATIONS - 1 - held)
    ]
    _seed(database, StablecoinOperation, rows)
    mint = {
        "amount": "1000000",
        "fundingSource": {"type": "WIRE"},
        "destination": {"accountId": wallet},
    }
    operations = _Seeded(
        database,
        StablecoinOperation,
        lambda c: c.post(f"/stablecoins/{coin['id']}/mints", mint, headers=_keyed()),
        path,
    )
    _last_place_races(clients, MAX_STABLECOIN_OPERATIONS, lambda: operations.fresh(clients[1]))


def test_the_platform_registers_its_last_stablecoin_once(
    clients: list[SandboxClient], database: Database
) -> None:
    link = _created(_link(clients[0]))
    now = _now()
    rows = [
        {
            "id": f"Stablecoin:{uuid.uuid4()}",
            "platform": PLATFORM,
            "provider_account_id": link["id"],
            "provider_token": "seeded",
            "network_token": f"btkn{uuid.uuid4().hex}",
            "network": "SPARK",
            "name": "seeded",
            "symbol": "SEEDED",
            "decimals": 6,
            "base_currency": "USD",
            "environment": link["providerEnvironment"],
            "supply": 0,
            "created_at": now,
            "updated_at": now,
        }
        for _ in range(MAX_STABLECOINS - 1 - _total(clients[1], "/stablecoins"))
    ]
    _seed(database, Stablecoin, rows)

    def register(client: SandboxClient) -> httpx.Response:
        body = {
            "providerTokenIdentifier": "acme",
            "networkTokenIdentifier": f"btkn{uuid.uuid4().hex}",
            "network": "SPARK",
            "stablecoinProviderAccountId": link["id"],
        }
        return client.post("/stablecoins", body, headers=_keyed())

    coins = _Seeded(database, Stablecoin, register, "/stablecoins")
    _last_place_races(clients, MAX_STABLECOINS, lambda: coins.fresh(clients[1]))


def test_the_platform_gets_its_last_stablecoin_link_once(
    clients: list[SandboxClient], database: Database
) -> None:
    path = "/stablecoin-provider-accounts"
    now = _now()
    rows = [
        {
            "id": f"StablecoinProviderAccount:{uuid.uuid4()}",
            "platform": PLATFORM,
            "provider": "BRALE",
            "provider_account_id": f"brale_{uuid.uuid4().hex[:16]}",
            "environment": "SANDBOX",
            "status": "ACTIVE",
            "client_id": uuid.uuid4().hex,
            "secret_hash": "0" * 64,
            "verified_at": now,
            "created_at": now,
            "updated_at": now,
        }
        for _ in range(MAX_STABLECOIN_LINKS - 1 - _total(clients[1], path))
    ]
    _seed(database, StablecoinProviderAccount, rows)
    links = _Seeded(database, StablecoinProviderAccount, _link, path)
    _last_place_races(clients, MAX_STABLECOIN_LINKS, lambda: links.fresh(clients[1]))
