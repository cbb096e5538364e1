"""The store fixtures the store test files share (loaded by conftest.py as a pytest plugin): one
real redis-server and one real PostgreSQL per test module, and ``store``, parametrized over the
four backends of ``ewc.stores``, each fresh and closed after the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _postgres_server import PostgresServer, empty_store, running_postgres
from _redis_server import RedisServer
from embedded_wallet_crypto import stores


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


@pytest.fixture(params=["memory", "sqlite", "redis", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A fresh store of each backend; the Redis one under a key prefix of its own test."""
    if request.param == "memory":
        yield stores.MemoryStore()
        return
    if request.param == "sqlite":
        opened: Any = stores.SqliteStore(tmp_path / "store.db")
    elif request.param == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        opened = stores.RedisStore(server.url, key_prefix=f"test:{request.node.name}:")
    else:
        opened = empty_store(request.getfixturevalue("postgres_server"))
    yield opened
    opened.close()
