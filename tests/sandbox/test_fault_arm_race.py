"""Arming one operation's fault from several requests at once, through two ``ewc serve``
processes on one database (SQLite and PostgreSQL): every arm answers 201, one fault stays, with
the count of one of the arms; the next arm replaces it.

``EWC_RACE_ROUNDS`` sets the rounds (20 by default).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial

import pytest

from ._pair import clients_of, race, running_pair
from ._server import SandboxServer
from .conftest import database_url

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "20"))
ARMS_PER_PROCESS = 3
OPERATION = "POST /customers"


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    with running_pair(
        tmp_path_factory.mktemp(f"fault-arms-{backend}"), database_url(request, backend, "arm")
    ) as servers:
        yield servers


def test_concurrent_arms_of_one_operation(pair: tuple[SandboxServer, SandboxServer]) -> None:
    failures = 0
    with clients_of(pair) as clients:
        for round_number in range(ROUNDS):
            counts = [
                1000 + round_number * 10 + index for index in range(ARMS_PER_PROCESS * len(clients))
            ]
            calls = [
                partial(
                    clients[i % len(clients)].post,
                    "/sandbox/faults",
                    {"operation": OPERATION, "status": 503, "count": n},
                )
                for i, n in enumerate(counts)
            ]
            answers = race(calls)
            statuses = sorted(answer.status_code for answer in answers)
            armed = clients[0].get("/sandbox/faults").json()["data"]
            if statuses != [201] * len(counts) or len(armed) != 1:
                failures += 1
                continue
            assert armed[0]["operation"] == OPERATION
            assert armed[0]["count"] in counts
            # The last arm written is the one that stays.
            last = clients[1].post(
                "/sandbox/faults", {"operation": OPERATION, "status": 429, "count": 7}
            )
            assert last.status_code == 201, last.text
            assert [
                (f["count"], f["status"]) for f in clients[0].get("/sandbox/faults").json()["data"]
            ] == [(7, 429)]
            assert clients[0].request("DELETE", "/sandbox/faults").status_code == 204
    assert failures == 0, f"{failures} of {ROUNDS} rounds had a refused arm or a duplicate"
