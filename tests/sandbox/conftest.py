"""Fixtures of the sandbox service tests: ``ewc serve`` as a real process.

- ``environment``: ``sandbox`` and ``production`` (module scope).
- ``jwks_url``: a real HTTP server with the test issuer's JWKS (session scope).
- ``server``: one SQLite-backed server per module and environment; ``client`` talks to it.
- ``backend`` and ``flow_server``: the flow suite's server on SQLite and on PostgreSQL (one
  PostgreSQL server per module, a database per environment).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the sandbox extra is not installed")

from ._client import SandboxClient
from ._identity import jwks_server, oidc_arguments
from ._server import SandboxServer


@pytest.fixture(scope="session")
def jwks_url() -> Iterator[str]:
    with jwks_server() as url:
        yield url


@pytest.fixture(scope="module", params=["sandbox", "production"])
def environment(request: pytest.FixtureRequest) -> str:
    env: str = request.param
    return env


@pytest.fixture(scope="module")
def server(
    environment: str, jwks_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    """One SQLite-backed server per module and environment."""
    running = SandboxServer(
        tmp_path_factory.mktemp(f"sandbox-{environment}"),
        environment=environment,
        extra=oidc_arguments(jwks_url),
    )
    running.start()
    yield running
    assert running.stop() == 0


@pytest.fixture
def client(server: SandboxServer) -> Iterator[SandboxClient]:
    api = SandboxClient(server.base_url, server.auth)
    yield api
    api.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def postgres_database(request: pytest.FixtureRequest, name: str) -> str:
    """A fresh database ``name`` on the module's PostgreSQL server; its URL."""
    import psycopg

    postgres = request.getfixturevalue("postgres_server")
    with psycopg.connect(postgres.dsn, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    return f"postgresql://ewc@127.0.0.1:{postgres.port}/{name}"


@pytest.fixture(scope="module")
def flow_server(
    backend: str,
    environment: str,
    jwks_url: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxServer]:
    database = None
    if backend == "postgres":
        database = postgres_database(request, f"sandbox_{environment}")
    running = SandboxServer(
        tmp_path_factory.mktemp(f"flows-{backend}-{environment}"),
        database=database,
        environment=environment,
        extra=oidc_arguments(jwks_url),
    )
    running.start()
    yield running
    assert running.stop() == 0


@pytest.fixture
def flow_client(flow_server: SandboxServer) -> Iterator[SandboxClient]:
    api = SandboxClient(flow_server.base_url, flow_server.auth)
    yield api
    api.close()
