"""The challenge stores behind ewc.signed_retry: the same contract for MemoryStore, SqliteStore,
RedisStore (a real redis-server on a loopback port) and PostgresStore (a real PostgreSQL the
tests start), the protocol through each, and what is each store's own: Redis's TTL, SQLite's
pragmas and errors, an unreachable Redis. Restarts are in test_stores_restarts.py, the race of
8 processes in test_stores_race.py."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import redis
from _redis_server import RedisServer, refused_port
from _store_fixtures import SESSION, fails, record
from embedded_wallet_crypto.signed_retry import (
    Operation,
    RedisStore,
    SignedRetry,
    SqliteStore,
    Store,
)

# --- the contract ---------------------------------------------------------------------------


def test_put_get_round_trip(store: Store) -> None:
    stored = record()
    store.put(stored, 60)
    assert store.get(stored.request_id) == stored
    assert store.get("Request:never-issued") is None


def test_claim_once(store: Store) -> None:
    stored = record(expires_at_ms=1_000)
    store.put(stored, 60)
    assert store.claim(stored.request_id, 999) is True
    assert store.claim(stored.request_id, 999) is False
    assert store.get(stored.request_id) == stored.as_claimed()


def test_claim_refuses_expired_and_unknown(store: Store) -> None:
    stored = record(expires_at_ms=1_000)
    store.put(stored, 60)
    assert store.claim(stored.request_id, 1_000) is False
    assert store.claim(stored.request_id, 5_000) is False
    assert store.claim("Request:never-issued", 0) is False
    retrieved = store.get(stored.request_id)
    assert retrieved is not None and retrieved.claimed is False


def test_put_refuses_an_existing_id(store: Store) -> None:
    stored = record()
    store.put(stored, 60)
    assert store.claim(stored.request_id, 0)
    fails(lambda: store.put(record(request_id=stored.request_id), 60), "REQUEST_ID_CONFLICT", 500)
    assert store.get(stored.request_id) == stored.as_claimed()  # not reopened


def test_protocol_through_each_store(store: Store) -> None:
    retry = SignedRetry(store)
    client = ewc.KeyPair.generate()
    challenge = retry.issue(
        account_id="InternalAccount:1",
        operation=Operation.EXPORT_WALLET,
        parameters={"walletId": "Wallet:1"},
        organization_id="org",
        bound_client_public_key=client.public_key_hex(),
    )
    stamp = ewc.create_stamp(challenge.payload_to_sign, SESSION)

    def verify(**changes: Any) -> Any:
        arguments = {
            "request_id": challenge.request_id,
            "stamp": stamp,
            "account_session_keys": [SESSION.public_key_hex()],
            "request_body_client_public_key": client.public_key_hex(),
            **changes,
        }
        return retry.verify(**arguments)

    fails(lambda: verify(request_body_client_public_key=None), "CLIENT_PUBLIC_KEY_MISMATCH", 401)
    fails(lambda: verify(request_id="Request:unknown"), "REQUEST_ID_UNKNOWN", 401)
    assert verify().bound_client_public_key == client.public_key_hex()
    fails(verify, "REQUEST_ID_USED", 401)


def test_expired_through_each_store(store: Store) -> None:
    now = [1_700_000_000.0]
    retry = SignedRetry(store, ttl_seconds=5, clock=lambda: now[0])
    challenge = retry.issue(
        account_id="a",
        operation="REVOKE_SESSION",
        parameters={"apiKeyIds": ["Session:1"], "userId": "u"},
        organization_id="o",
    )
    now[0] += 5
    stamp = ewc.create_stamp(challenge.payload_to_sign, SESSION)
    fails(
        lambda: retry.verify(
            request_id=challenge.request_id,
            stamp=stamp,
            account_session_keys=[SESSION.public_key_hex()],
        ),
        "REQUEST_ID_EXPIRED",
        401,
    )


# --- store specifics ------------------------------------------------------------------------


def test_redis_forgets_by_ttl(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, key_prefix="test:ttl:")
    client = redis.Redis.from_url(redis_server.url)
    kept = record()
    store.put(kept, 60)  # the TTL is set, in milliseconds (a long one: no race with the clock)
    assert 0 < client.pttl("test:ttl:signed-retry:" + kept.request_id) <= 60_000
    stored = record()
    store.put(stored, 0.3)
    # At most 300 ms left, or already gone (-2) on a slow machine; never without a TTL (-1).
    assert client.pttl("test:ttl:signed-retry:" + stored.request_id) in (-2, *range(1, 301))
    time.sleep(0.4)
    assert store.get(stored.request_id) is None
    assert store.claim(stored.request_id, 0) is False
    client.close()


def test_redis_unreachable_is_a_store_error() -> None:
    with refused_port() as port:  # a free port could be taken by another server meanwhile
        url = f"redis://127.0.0.1:{port}/0"
        fails(lambda: RedisStore(url, socket_timeout_seconds=0.5), "STORE_UNAVAILABLE", 503)
        # Without the durability check, the constructor does not connect: each call fails.
        store = RedisStore(url, durability="best-effort", socket_timeout_seconds=0.5)
        fails(lambda: store.get("Request:x"), "STORE_UNAVAILABLE", 503)
        fails(lambda: store.put(record(), 60), "STORE_UNAVAILABLE", 503)
        fails(lambda: store.claim("Request:x", 0), "STORE_UNAVAILABLE", 503)


def test_sqlite_forgets_after_ttl(tmp_path: Path) -> None:
    path = tmp_path / "challenges.db"
    old = record()
    SqliteStore(path).put(old, 0.01)
    time.sleep(0.02)
    store = SqliteStore(path)  # a fresh instance purges on its first put
    store.put(record(), 60)
    assert store.get(old.request_id) is None


def test_sqlite_uses_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "challenges.db", busy_timeout_seconds=3)
    connection = store._connection()
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert connection.execute("PRAGMA busy_timeout").fetchone() == (3000,)


def test_sqlite_claims_wait_for_the_disk_and_new_challenges_do_not(tmp_path: Path) -> None:
    """``durability="strict"``: every connection runs ``synchronous=FULL``; a put alone runs
    NORMAL (a challenge lost in a power cut fails closed) and restores FULL, so the claim after
    it waits for the disk. ``"best-effort"``: NORMAL throughout."""
    store = SqliteStore(tmp_path / "strict.db")
    connection = store._connection()
    statements: list[str] = []
    connection.set_trace_callback(statements.append)
    stored = record()
    store.put(stored, 60)
    assert store.claim(stored.request_id, 0)
    connection.set_trace_callback(None)
    assert statements[0] == "PRAGMA synchronous=NORMAL", statements
    assert statements[-2] == "PRAGMA synchronous=FULL", statements
    assert statements[-1].startswith("UPDATE signed_retry_challenges SET claimed = 1")
    assert connection.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL

    relaxed = SqliteStore(tmp_path / "relaxed.db", durability="best-effort")
    assert relaxed.durability == "best-effort"
    assert relaxed._connection().execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL
    stored = record()
    relaxed.put(stored, 60)
    assert relaxed.claim(stored.request_id, 0)
    assert relaxed._connection().execute("PRAGMA synchronous").fetchone() == (1,)
    fails(
        lambda: SqliteStore(tmp_path / "x.db", durability="fast"),  # type: ignore[arg-type]
        "STORE_CONFIG_INVALID",
        500,
    )


def test_sqlite_store_errors(tmp_path: Path) -> None:
    for path in (":memory:", ""):
        fails(lambda: SqliteStore(path), "STORE_CONFIG_INVALID", 500)  # noqa: B023
    fails(lambda: SqliteStore(tmp_path / "missing" / "dir" / "c.db"), "STORE_UNAVAILABLE", 503)
    store = SqliteStore(tmp_path / "challenges.db")
    stored = record()
    store.put(stored, 60)
    with sqlite3.connect(tmp_path / "challenges.db") as connection:
        connection.execute("UPDATE signed_retry_challenges SET record = '{\"nope\": 1}'")
    fails(lambda: store.get(stored.request_id), "STORE_CORRUPT", 500)
