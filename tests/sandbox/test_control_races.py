"""The control plane across two ``ewc serve`` processes on one database, on both backends: a
fault's count holds for calls racing on both processes, the test clock moved through one is the
other's time, and a reset racing customer creations leaves no half-made customer and answers
no request with 500."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from ._client import SandboxClient
from ._pair import race, running_pair
from ._server import SandboxServer
from .conftest import database_url

#: Rounds of each race.
ROUNDS = 5
#: Calls at once in a fault race (half on each process), and the fault's count.
CALLS = 24
COUNT = 5


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    root: Path = tmp_path_factory.mktemp(f"control-races-{backend}")
    with running_pair(root, database_url(request, backend, "control")) as servers:
        yield servers


def test_a_fault_count_holds_across_processes(clients: list[SandboxClient]) -> None:
    one, two = clients
    for _ in range(ROUNDS):
        armed = one.post(
            "/sandbox/faults", {"operation": "GET /config", "status": 503, "count": COUNT}
        )
        assert armed.status_code == 201, armed.text
        answers = race([lambda c=c: c.get("/config") for c in (one, two) * (CALLS // 2)])
        statuses = Counter(answer.status_code for answer in answers)
        assert statuses == {503: COUNT, 200: CALLS - COUNT}, statuses
        for answer in answers:
            if answer.status_code == 503:
                assert answer.json()["code"] == "SERVICE_UNAVAILABLE"
        assert two.get("/sandbox/faults").json() == {"data": []}


def _now(client: SandboxClient) -> datetime:
    return datetime.fromisoformat(client.get("/sandbox/clock").json()["now"].replace("Z", "+00:00"))


def test_the_clock_moved_through_one_process_is_the_others_time(
    clients: list[SandboxClient],
) -> None:
    one, two = clients
    moved = one.post("/sandbox/clock/advance", {"seconds": 86_400}).json()["now"]
    moved_at = datetime.fromisoformat(moved.replace("Z", "+00:00"))
    assert _now(two) >= moved_at
    created = two.create_customer()  # stamped by the other process's clock
    assert datetime.fromisoformat(created["createdAt"].replace("Z", "+00:00")) >= moved_at


def _create_until(client: SandboxClient, stop: threading.Event, made: list[httpx.Response]) -> None:
    while not stop.is_set():
        made.append(client.post("/customers", {"customerType": "INDIVIDUAL"}))


def test_a_reset_racing_creations_leaves_whole_customers(clients: list[SandboxClient]) -> None:
    one, two = clients
    for _ in range(ROUNDS):
        stop = threading.Event()
        made: list[httpx.Response] = []

        creators = [
            threading.Thread(target=_create_until, args=(c, stop, made))
            for c in (one, two, one, two)
        ]
        for thread in creators:
            thread.start()
        try:
            resets = [one.post("/sandbox/reset"), two.post("/sandbox/reset")]
        finally:
            stop.set()
            for thread in creators:
                thread.join()
        assert [reset.status_code for reset in resets] == [204, 204], [r.text for r in resets]
        assert made and {answer.status_code for answer in made} == {201}, [
            answer.text for answer in made if answer.status_code != 201
        ][:3]
        listed = one.get("/customers/internal-accounts", params={"limit": 100}).json()["data"]
        kinds: dict[str, list[str]] = {}
        for account in listed:
            kinds.setdefault(account["customerId"], []).append(account["type"])
        for customer, types in kinds.items():  # each customer whole: both of its accounts
            assert sorted(types) == ["EMBEDDED_WALLET", "INTERNAL_FIAT"], (customer, types)


def test_advances_at_once_on_two_processes_add_up(clients: list[SandboxClient]) -> None:
    one, two = clients
    before = _now(one)
    answers = race(
        [lambda c=c: c.post("/sandbox/clock/advance", {"seconds": 60}) for c in (one, two) * 5]
    )
    assert {answer.status_code for answer in answers} == {200}
    # Ten advances of a minute: a lost one would leave the clock short by a minute, far more
    # than the real time the race took.
    assert (_now(two) - before).total_seconds() >= 600


def test_the_request_log_lists_both_processes(clients: list[SandboxClient]) -> None:
    one, two = clients
    marker = f"Transaction:log-{uuid.uuid4().hex}"
    assert two.get(f"/transactions/{marker}").status_code == 404
    # The other process writes its requests at its worker's next tick (0.1 s): poll for it.
    deadline = time.monotonic() + 30
    paths: list[str] = []
    while time.monotonic() < deadline:
        listed = one.get("/sandbox/requests", params={"limit": 1000}).json()["data"]
        paths = [entry["path"] for entry in listed]
        if any(path.endswith(marker) for path in paths):
            break
        time.sleep(0.05)
    assert any(path.endswith(marker) for path in paths), paths[:5]
