"""Two ``ewc serve`` processes on one database (SQLite and PostgreSQL) deliver every webhook
event once: both workers look for due events at the same ticks, and each attempt is claimed by
a conditional update of the event's version before it is sent. The receiver (a real HTTP
server) answers slowly, so that the two workers' batches overlap; it must get each event id
exactly once, and the events list must show one attempt per event."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from ._client import SandboxClient
from ._pair import race, running_pair
from ._server import SandboxServer
from ._webhooks import Hooks, hooks_server, poll
from .conftest import database_url

ROUNDS = 3
EVENTS_PER_ROUND = 30


@pytest.fixture(scope="module")
def hooks() -> Iterator[Hooks]:
    with hooks_server() as running:
        running.delay = 0.02  # a slow receiver: the workers' batches overlap
        yield running


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    with running_pair(
        tmp_path_factory.mktemp(f"webhook-race-{backend}"),
        database_url(request, backend, "pair"),  # type: ignore[arg-type]
    ) as servers:
        yield servers


def delivered(client: SandboxClient, ids: set[str]) -> dict[str, int]:
    """The number of attempts of each of ``ids`` that is DELIVERED (the list, page by page)."""
    found: dict[str, int] = {}
    cursor = None
    while True:
        params: dict[str, object] = {"limit": 100, "type": "INVITATION.CLAIMED"}
        if cursor:
            params["cursor"] = cursor
        body = client.get("/sandbox/events", params=params).json()
        for item in body["data"]:
            if item["id"] in ids and item["status"] == "DELIVERED":
                found[item["id"]] = len(item["deliveries"])
        cursor = body.get("nextCursor")
        if not cursor:
            return found


def test_two_processes_deliver_each_event_once(clients: list[SandboxClient], hooks: Hooks) -> None:
    patched = clients[0].request("PATCH", "/config", json={"webhookEndpoint": hooks.url})
    assert patched.status_code == 200, patched.text
    duplicates = 0
    body = {"type": "INVITATION.CLAIMED"}
    for _ in range(ROUNDS):
        made = race(
            [
                lambda c=c: c.post("/sandbox/events/trigger", body)
                for c in clients * (EVENTS_PER_ROUND // 2)
            ]
        )
        assert {response.status_code for response in made} == {201}
        ids = {response.json()["id"] for response in made}
        attempts = poll(
            lambda ids=ids: delivered(clients[1], ids), lambda d: len(d) == EVENTS_PER_ROUND
        )
        assert set(attempts) == ids
        with hooks.lock:
            seen = Counter(headers.get("X-Grid-Webhook-Id") for headers, _ in hooks.requests)
        duplicates += sum(seen[event_id] - 1 for event_id in ids)
        assert set(attempts.values()) == {1}, attempts
    assert duplicates == 0
