"""Fixtures of the sandbox service tests: ``ewc serve`` as a real process.

- ``environment``: ``sandbox`` and ``production`` (module scope).
- ``backend``: ``sqlite`` and ``postgres`` (module scope): every module that starts a server
  runs on both storage backends, each PostgreSQL server process getting a fresh database of
  its own (:func:`database_url`) on one PostgreSQL server for the whole session
  (``sandbox_postgres``). Tests marked ``sqlite_only`` are deselected on PostgreSQL: the
  pure-validation ones (all of ``test_sandbox_bad_requests`` and
  ``test_payments_bad_requests``, and the hostile requests of ``test_agents_hostile`` and
  ``test_interface_conformance_agents``), which check that
  malformed requests get a 4xx, never a 500, and are the suite's slowest tests; what
  PostgreSQL stores differently from SQLite (text with NUL) is checked on both backends by
  ``test_sandbox_backends``. The modules that are not about storage (the page, the API fuzz,
  ``ewc serve``'s options) run on SQLite only.
- ``jwks_url``: a real HTTP server with the test issuer's JWKS (session scope).
- ``server``: one server per module, backend and environment; ``client`` talks to it.
- ``flow_server``: the flow suite's server (the same matrix).
- ``browser``: headless Chromium through Playwright (module scope), for the page's tests and
  the API explorer's; without a browser they skip and say so, except under ``CI=true``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from _chromium import launched_chromium
from _ci import require_module
from _postgres_server import PostgresServer, running_postgres

require_module("fastapi", "the sandbox extra is not installed")  # fails under CI=true

from ._client import SandboxClient  # noqa: E402
from ._identity import jwks_server, oidc_arguments  # noqa: E402
from ._server import SandboxServer  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: pure validation, deselected on the postgres backend"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``sqlite_only`` tests of the ``postgres`` backend."""
    dropped = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        if (
            item.get_closest_marker("sqlite_only") is not None
            and callspec is not None
            and callspec.params.get("backend") == "postgres"
        ):
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]


@pytest.fixture(scope="session")
def jwks_url() -> Iterator[str]:
    with jwks_server() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Playwright's ``Browser``), one per module that uses it."""
    with launched_chromium() as launched:
        yield launched


@pytest.fixture(scope="module", params=["sandbox", "production"])
def environment(request: pytest.FixtureRequest) -> str:
    env: str = request.param
    return env


@pytest.fixture(scope="module")
def server(
    backend: str,
    environment: str,
    jwks_url: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxServer]:
    """One server per module, backend and environment."""
    running = SandboxServer(
        tmp_path_factory.mktemp(f"sandbox-{backend}-{environment}"),
        database=database_url(request, backend, environment),
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


@pytest.fixture(scope="session")
def sandbox_postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL server for every sandbox module (each server gets its own database)."""
    with running_postgres() as postgres:
        yield postgres


def postgres_database(request: pytest.FixtureRequest, name: str) -> str:
    """A fresh database ``name`` on the session's PostgreSQL server; its URL."""
    import psycopg

    postgres: PostgresServer = request.getfixturevalue("sandbox_postgres")
    with psycopg.connect(postgres.dsn, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    return f"postgresql://ewc@127.0.0.1:{postgres.port}/{name}"


def database_url(request: pytest.FixtureRequest, backend: str, label: str) -> str | None:
    """``--database`` for a server on ``backend``: None (a SQLite file in the server's own
    directory) or a fresh PostgreSQL database named after the module and ``label``."""
    if backend == "sqlite":
        return None
    module = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    return postgres_database(request, f"{module[:30]}_{label}_{uuid.uuid4().hex[:8]}".lower())


def server_fixture(
    name: str,
    database: str = "sandbox",
    *,
    environment: str = "sandbox",
    time_scale: float = 1.0,
    oidc: bool = False,
) -> Any:
    """A module's own ``ewc serve``, one per backend (module-scoped): ``name`` names its
    directory, ``database`` its PostgreSQL database; ``time_scale`` as :class:`SandboxServer`
    takes it; ``oidc`` adds the test identity provider. A module binds it with
    ``server = server_fixture(...)``, as ``pair = pair_fixtures(...)``."""

    @pytest.fixture(scope="module")
    def server(
        backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[SandboxServer]:
        running = SandboxServer(
            tmp_path_factory.mktemp(f"{name}-{backend}"),
            database=database_url(request, backend, database),
            environment=environment,
            extra=oidc_arguments(request.getfixturevalue("jwks_url")) if oidc else (),
            time_scale=time_scale,
        )
        running.start()
        yield running
        assert running.stop() == 0

    return server


@pytest.fixture(scope="module")
def flow_server(
    backend: str,
    environment: str,
    jwks_url: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path_factory.mktemp(f"flows-{backend}-{environment}"),
        database=database_url(request, backend, environment),
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


@contextmanager
def clients_of(servers: Sequence[SandboxServer]) -> Iterator[list[SandboxClient]]:
    """A platform client of each server, closed afterwards."""
    made = [SandboxClient(server.base_url, server.auth) for server in servers]
    try:
        yield made
    finally:
        for client in made:
            client.close()


@pytest.fixture
def clients(pair: tuple[SandboxServer, SandboxServer]) -> Iterator[list[SandboxClient]]:
    """A platform client of each process of the module's ``pair`` fixture (the multi-process
    tests: each module starts its ``pair`` its own way)."""
    with clients_of(pair) as made:
        yield made
