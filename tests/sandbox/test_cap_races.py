"""The collection caps under concurrency, on SQLite and PostgreSQL, with two ``ewc serve``
processes on one database: each round fills a collection to one place below its cap, then sends
four inserts at once, two through each process. Exactly one is stored (201); the other three are
refused 409 ``COLLECTION_LIMIT_REACHED``, and the collection holds its cap, never more:

- a cardholder's cards (``MAX_CARDS``, counted with the cardholder's row locked; closed cards
  count, so each round fills a new cardholder's);
- a holder's documents (``MAX_DOCUMENTS``, counted with the holder's row locked: a customer's,
  a beneficial owner's);
- the platform's API tokens (``MAX_API_TOKENS``, counted with the platform's row locked).

(The stablecoin caps, whose last place is reached by seeding the database, are raced in
``test_stablecoin_cap_races``.)

The documents and the tokens make room for the next round by deleting the round's winners.
``EWC_CAP_RACE_ROUNDS`` sets the rounds of these two races (20 by default), and of the cards'
race the half (each of its rounds issues 50 cards).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from functools import partial

import httpx
import pytest
from embedded_wallet_crypto.sandbox.domain.collection_caps import (
    MAX_API_TOKENS,
    MAX_CARDS,
    MAX_DOCUMENTS,
)

from ._client import SandboxClient
from ._pair import outcome, pair_fixtures, race
from .test_cards import _holder
from .test_kyc import _owner, _upload

ROUNDS = int(os.environ.get("EWC_CAP_RACE_ROUNDS", "20"))
RACERS = 4

#: A collection: an insert through a client, and the collection's size.
Collection = tuple[Callable[[SandboxClient], httpx.Response], Callable[[], int]]

pair = pair_fixtures("cap-races", "caps")


def _last_place_races(
    clients: list[SandboxClient], cap: int, fresh: Callable[[], Collection], rounds: int = ROUNDS
) -> None:
    """``rounds`` races for the last place of a ``fresh()`` collection, filled first."""
    wrong: list[object] = []
    seen: Counter[str] = Counter()
    for _ in range(rounds):
        insert, held = fresh()
        for n in range(cap - 1 - held()):
            made = insert(clients[n % 2])
            assert made.status_code == 201, made.text
        answers = race([partial(insert, clients[n % 2]) for n in range(RACERS)])
        outcomes = Counter(outcome(answer, 201) for answer in answers)
        seen.update(outcomes)
        after = held()
        if outcomes != {"201": 1, "409 COLLECTION_LIMIT_REACHED": RACERS - 1} or after != cap:
            wrong.append((dict(outcomes), after))
    assert not wrong, f"{len(wrong)} of {rounds} rounds (outcomes, size): {wrong} {dict(seen)}"


def _total(client: SandboxClient, path: str, **params: str) -> int:
    listed = client.get(path, params={**params, "limit": 1})
    assert listed.status_code == 200, listed.text
    total: int = listed.json()["totalCount"]
    return total


def test_a_cardholder_gets_the_last_card_once(clients: list[SandboxClient]) -> None:
    def fresh() -> Collection:
        holder = _holder(clients[0], funds=0)
        body = {"cardholderId": holder["id"], "form": "VIRTUAL", "fundingSources": [holder["usd"]]}
        return (
            lambda client: client.post("/cards", body),
            lambda: _total(clients[1], "/cards", cardholderId=holder["id"]),
        )

    _last_place_races(clients, MAX_CARDS, fresh, max(ROUNDS // 2, 1))


class _Recorded:
    """An insert through a client whose stored rows (201) have their ids recorded in ``made``,
    so that a round can delete the last round's winners."""

    def __init__(self, insert: Callable[[SandboxClient], httpx.Response]) -> None:
        self._insert = insert
        self.made: list[str] = []

    def insert(self, client: SandboxClient) -> httpx.Response:
        answer = self._insert(client)
        if answer.status_code == 201:
            self.made.append(answer.json()["id"])
        return answer


class _Deletable(_Recorded):
    """A collection whose inserts are recorded, so that each round starts one place below
    ``cap`` again by deleting the last round's winners."""

    def __init__(
        self,
        client: SandboxClient,
        insert: Callable[[SandboxClient], httpx.Response],
        path: str,
        **params: str,
    ) -> None:
        super().__init__(insert)
        self.client, self.path, self.params = client, path, params

    def held(self) -> int:
        return _total(self.client, self.path, **self.params)

    def fresh(self, cap: int) -> Collection:
        while self.held() >= cap:
            deleted = self.client.request("DELETE", f"{self.path}/{self.made.pop()}")
            assert deleted.status_code == 204, deleted.text
        return self.insert, self.held

    def races(self, clients: list[SandboxClient], cap: int) -> None:
        try:
            _last_place_races(clients, cap, lambda: self.fresh(cap))
        finally:
            for ident in self.made:
                self.client.request("DELETE", f"{self.path}/{ident}")


@pytest.mark.parametrize("holder_type", ["customer", "beneficial owner"])
def test_a_holder_gets_the_last_document_once(
    clients: list[SandboxClient], holder_type: str
) -> None:
    holder = clients[0].create_customer(customerType="BUSINESS")["id"]
    if holder_type == "beneficial owner":
        owner = _owner(clients[0], holder, 30)
        assert owner.status_code == 201, owner.text
        holder = owner.json()["id"]
    documents = _Deletable(
        clients[1], lambda c: _upload(c, holder), "/documents", documentHolder=holder
    )
    documents.races(clients, MAX_DOCUMENTS)


def test_the_platform_gets_its_last_token_once(clients: list[SandboxClient]) -> None:
    body = {"name": "cap-race", "permissions": ["VIEW"]}
    tokens = _Deletable(clients[1], lambda c: c.post("/tokens", body), "/tokens")
    tokens.races(clients, MAX_API_TOKENS)
