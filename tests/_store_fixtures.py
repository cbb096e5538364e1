"""The store fixtures the store test files share (loaded by conftest.py as a pytest plugin): one
real redis-server and one real PostgreSQL per test module, and ``store``, parametrized over the
four backends of ``ewc.stores``, each fresh and closed after the test; and the helpers of the
challenge-store files (test_stores*.py): their session key, ``record`` (a fresh challenge
record) and ``fails`` (one expected SignedRetryError)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _postgres_server import PostgresServer, empty_store, running_postgres
from _redis_server import RedisServer
from embedded_wallet_crypto import stores
from embedded_wallet_crypto.signed_retry import ChallengeRecord


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


SESSION = ewc.hpke.derive_key_pair(b"store tests session key ikm 0001")
FAR_FUTURE_MS = 2**53
_serial = iter(range(10**9))


def record(*, expires_at_ms: int = FAR_FUTURE_MS, request_id: str | None = None) -> ChallengeRecord:
    return ChallengeRecord(
        request_id=request_id or f"Request:store-test-{time.time_ns()}-{next(_serial)}",
        account_id="InternalAccount:1",
        operation="EXPORT_WALLET",
        credential_type=None,
        payload_to_sign='{"organizationId":"o","parameters":{},"timestampMs":"1","type":"t"}',
        bound_client_public_key="04" + "ab" * 64,
        expires_at_ms=expires_at_ms,
    )


def fails(call: Any, code: str, status: int) -> ewc.WalletCryptoError:
    with pytest.raises(ewc.SignedRetryError) as caught:
        call()
    assert (caught.value.code, caught.value.status) == (code, status), repr(caught.value)
    return caught.value
