"""Two ``ewc serve`` processes on one database, their clients, and a race of requests: what the
multi-process tests (backends, money limits, idempotency, the account's races) share."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from ._server import SandboxServer
from .conftest import clients_of, database_url

__all__ = ["clients_of", "outcome", "pair_fixtures", "race", "running_pair"]


@contextmanager
def running_pair(
    root: Path,
    database: str,
    *,
    time_scale: float = 1.0,
    extra: Sequence[str] = (),
    webhook_endpoint: str | None = None,
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two ``ewc serve`` processes on ``database`` (the platform's webhook endpoint set to
    ``webhook_endpoint`` when given); both must stop cleanly."""
    one = SandboxServer(root, database=database, time_scale=time_scale, extra=extra)
    one.start()
    two = one.start_another()
    if webhook_endpoint is not None:
        with clients_of([one]) as (api,):
            patched = api.request("PATCH", "/config", json={"webhookEndpoint": webhook_endpoint})
            assert patched.status_code == 200, patched.text
    yield one, two
    assert two.stop() == 0
    assert one.stop() == 0


def race(calls: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    """Run ``calls`` at once (each in its own thread, released together)."""
    start = threading.Barrier(len(calls))
    results: list[httpx.Response | None] = [None] * len(calls)

    def run(index: int) -> None:
        start.wait()
        results[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(result is not None for result in results)
    return [result for result in results if result is not None]


def outcome(answer: httpx.Response, ok: int) -> str:
    """A raced request's answer as a race test counts it: ``"200"`` for the status ``ok``,
    else the status and the error's code (``"409 QUOTE_ALREADY_EXECUTED"``)."""
    if answer.status_code == ok:
        return str(ok)
    return f"{answer.status_code} {answer.json().get('code', '')}"


def pair_fixtures(name: str, database: str) -> Any:
    """A race-test module's ``pair`` fixture: two ``ewc serve`` processes on one database of
    the test's backend (module-scoped; ``name`` names its directory, ``database`` its
    PostgreSQL database). A module binds it with ``pair = pair_fixtures(...)``; ``clients``,
    a platform client of each, is the sandbox conftest's."""

    @pytest.fixture(scope="module")
    def pair(
        backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[tuple[SandboxServer, SandboxServer]]:
        with running_pair(
            tmp_path_factory.mktemp(f"{name}-{backend}"), database_url(request, backend, database)
        ) as servers:
            yield servers

    return pair
