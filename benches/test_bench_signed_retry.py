"""SignedRetry.verify benchmarks (issue 3), one per store: challenges issued and stamped
before the timing; each round verifies (and claims) one fresh request id.

Like ``test_bench_core.py``, every benchmark is also a test of what it timed, sets
``benchmark.group`` and ``benchmark.extra_info["impl"]``, and ``benches/report.py`` prints the
group as ops/s per store, with no peer and no target. The RedisStore and PostgresStore rows need
a local redis-server and PostgreSQL: without them they are skipped (a failure under CI=true).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _protocol_keys import CLIENT_PUB65_HEX, SESSION_KEY, SESSION_PUB33_HEX, _scalar, _uuid
from embedded_wallet_crypto.errors import SignedRetryError
from embedded_wallet_crypto.signed_retry import (
    MemoryStore,
    Operation,
    PostgresStore,
    RedisStore,
    SignedRetry,
    SqliteStore,
    Store,
)

# Same timing budget as the core benchmarks (the report must stay well under three minutes).
pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

REPO = Path(__file__).resolve().parent.parent

ACCOUNT = "account-1"
ACCOUNT_SESSION_KEYS = [
    SESSION_PUB33_HEX,
    ewc.KeyPair.from_private_bytes(_scalar(b"other session")).public_key_hex(compressed=True),
]
RETRY_ROUNDS = {"memory": 2000, "sqlite": 500, "redis": 500, "postgres": 500}
RETRY_WARMUP = 20


def _load_test_helper(name: str) -> Any:
    """tests/<name>.py by path (tests/ is not a package), registered under its own name so
    that one helper can import another."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _load_redis_helper() -> Any:
    """tests/_redis_server.py (a throwaway redis-server on a free loopback port)."""
    return _load_test_helper("_redis_server")


@pytest.fixture(scope="module")
def postgres_dsn() -> Iterator[str]:
    """A throwaway PostgreSQL (tests/_postgres_server.py: Debian's initdb + postgres on a free
    loopback port, fsync and synchronous_commit on); without it or psycopg, skipped (a failure
    under CI=true)."""
    helper = _load_test_helper("_postgres_server")
    server = helper.PostgresServer()  # skips (fails under CI) without postgresql or psycopg
    server.start()
    try:
        yield server.dsn
    finally:
        server.destroy()


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ci = _load_test_helper("_ci")  # a skip locally, a failure under CI=true
    if shutil.which("redis-server") is None:
        ci.skip_or_fail(
            "redis-server not found on PATH (Debian: apt-get install redis-server): "
            "the SignedRetry.verify RedisStore row is skipped"
        )
    try:
        helper = _load_redis_helper()
    except ImportError as missing:
        ci.skip_or_fail(f"the RedisStore row needs the redis package ({missing}): skipped")
    server = helper.RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(params=list(RETRY_ROUNDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Store]]:
    kind = request.param
    if kind == "memory":
        yield kind, MemoryStore()
    elif kind == "sqlite":
        sqlite_store = SqliteStore(tmp_path / "challenges.sqlite3")
        yield kind, sqlite_store
        sqlite_store.close()
    elif kind == "postgres":
        postgres_store = PostgresStore(request.getfixturevalue("postgres_dsn"))
        yield kind, postgres_store
        postgres_store.close()
    else:
        redis_store = RedisStore(request.getfixturevalue("redis_url"), key_prefix="bench:")
        yield kind, redis_store
        redis_store.close()


def test_signed_retry_verify(benchmark: Any, store: tuple[str, Store]) -> None:
    kind, backend = store
    retry = SignedRetry(backend)
    count = RETRY_ROUNDS[kind] + RETRY_WARMUP
    pending = []
    for i in range(count):
        challenge = retry.issue(
            account_id=ACCOUNT,
            operation=Operation.EXPORT_WALLET,
            parameters={"walletId": _uuid(b"retry wallet %d" % i)},
            organization_id=_uuid(b"organization"),
            bound_client_public_key=CLIENT_PUB65_HEX,
        )
        stamp = ewc.create_stamp(challenge.payload_to_sign, SESSION_KEY)
        pending.append((challenge.request_id, stamp))
    assert 320 <= len(challenge.payload_to_sign) <= 360  # export: targetPublicKey, walletId
    queue = iter(pending)
    used: list[str] = []

    def setup() -> tuple[tuple[()], dict[str, Any]]:
        request_id, stamp = next(queue)
        used.append(request_id)
        return (), {
            "request_id": request_id,
            "stamp": stamp,
            "account_session_keys": ACCOUNT_SESSION_KEYS,
            "request_body_client_public_key": CLIENT_PUB65_HEX,
            "account_id": ACCOUNT,
        }

    benchmark.group = "signed-retry-verify"
    benchmark.extra_info["impl"] = kind
    result = benchmark.pedantic(
        retry.verify, setup=setup, rounds=RETRY_ROUNDS[kind], warmup_rounds=RETRY_WARMUP
    )
    assert result.request_id == used[-1]
    assert result.operation is Operation.EXPORT_WALLET
    assert result.session_public_key == SESSION_PUB33_HEX
    assert result.bound_client_public_key == CLIENT_PUB65_HEX
    # Every verified id is now claimed in the store, and a replay is refused.
    assert all(record.claimed for record in map(backend.get, used) if record is not None)
    assert all(backend.get(request_id) is not None for request_id in used)
    with pytest.raises(SignedRetryError) as replay:
        retry.verify(
            request_id=used[0],
            stamp=pending[0][1],
            account_session_keys=ACCOUNT_SESSION_KEYS,
            request_body_client_public_key=CLIENT_PUB65_HEX,
        )
    assert replay.value.code == "REQUEST_ID_USED"
