"""Two ``ewc serve`` processes on one database, their clients, and a race of requests: what the
multi-process tests (backends, money limits, idempotency, the account's races) share."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

from ._client import SandboxClient
from ._server import SandboxServer

__all__ = ["clients_of", "race", "running_pair"]


@contextmanager
def running_pair(
    root: Path, database: str, *, time_scale: float = 1.0, extra: Sequence[str] = ()
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two ``ewc serve`` processes on ``database``; both must stop cleanly."""
    one = SandboxServer(root, database=database, time_scale=time_scale, extra=extra)
    one.start()
    two = one.start_another()
    yield one, two
    assert two.stop() == 0
    assert one.stop() == 0


@contextmanager
def clients_of(servers: Sequence[SandboxServer]) -> Iterator[list[SandboxClient]]:
    """A platform client of each server, closed afterwards."""
    made = [SandboxClient(server.base_url, server.auth) for server in servers]
    try:
        yield made
    finally:
        for client in made:
            client.close()


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
