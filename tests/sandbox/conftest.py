"""Fixtures of the sandbox service tests: ``ewc serve`` as a real process.

``server`` runs on SQLite in both environments; ``server_any_db`` adds PostgreSQL (one
PostgreSQL server per module); ``client`` talks to ``server``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the sandbox extra is not installed")

from ._client import SandboxClient
from ._server import SandboxServer


@pytest.fixture(scope="module", params=["sandbox", "production"])
def environment(request: pytest.FixtureRequest) -> str:
    env: str = request.param
    return env


@pytest.fixture(scope="module")
def server(environment: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """One SQLite-backed server per module and environment."""
    running = SandboxServer(
        tmp_path_factory.mktemp(f"sandbox-{environment}"), environment=environment
    )
    running.start()
    yield running
    assert running.stop() == 0


@pytest.fixture
def client(server: SandboxServer) -> Iterator[SandboxClient]:
    api = SandboxClient(server.base_url, server.auth)
    yield api
    api.close()


def new_server(root: Path, **options: object) -> SandboxServer:
    return SandboxServer(root, **options)  # type: ignore[arg-type]
