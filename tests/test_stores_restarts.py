"""The challenge stores across restarts: records and claims surviving a reopened SQLite file,
a Redis shutdown or kill -9 (appendfsync always) and a PostgreSQL restart or kill -9 of every
server process (the WAL); a PostgreSQL put that commits without waiting while its claim waits
for the log; an unreachable PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest
import redis
from _postgres_server import running_postgres
from _redis_server import RedisServer, refused_port
from _store_fixtures import SESSION, fails, record
from embedded_wallet_crypto.signed_retry import (
    Operation,
    PostgresStore,
    RedisStore,
    SignedRetry,
    SqliteStore,
)


def test_sqlite_claim_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "challenges.db"
    retry = SignedRetry(SqliteStore(path))
    used = retry.issue(
        account_id="a",
        operation=Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": ["Session:1"], "userId": "u"},
        organization_id="o",
    )
    pending = retry.issue(
        account_id="a",
        operation=Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": ["Session:2"], "userId": "u"},
        organization_id="o",
    )
    stamps = {c.request_id: ewc.create_stamp(c.payload_to_sign, SESSION) for c in (used, pending)}
    sessions = [SESSION.public_key_hex()]
    retry.verify(
        request_id=used.request_id, stamp=stamps[used.request_id], account_session_keys=sessions
    )
    assert isinstance(retry.store, SqliteStore)
    retry.store.close()

    reopened = SignedRetry(SqliteStore(path))
    fails(
        lambda: reopened.verify(
            request_id=used.request_id, stamp=stamps[used.request_id], account_session_keys=sessions
        ),
        "REQUEST_ID_USED",
        401,
    )
    verified = reopened.verify(
        request_id=pending.request_id,
        stamp=stamps[pending.request_id],
        account_session_keys=sessions,
    )
    assert verified.parameters["apiKeyIds"] == ["Session:2"]


@pytest.mark.parametrize("how", ["shutdown", "kill"])
def test_redis_claim_survives_a_restart(tmp_path: Path, how: str) -> None:
    server = RedisServer(tmp_path)
    server.start()
    try:
        store = RedisStore(server.url)
        used, pending = record(), record()
        store.put(used, 600)
        store.put(pending, 600)
        assert store.claim(used.request_id, 0)
        store.close()
        if how == "kill":  # appendfsync always: the claim was on disk before it was reported
            assert server.process is not None
            server.process.kill()
            server.process.wait()
            server.process = None
        server.restart()
        store = RedisStore(server.url)
        assert store.get(used.request_id) == used.as_claimed()
        assert store.claim(used.request_id, 0) is False
        assert store.get(pending.request_id) == pending
        assert store.claim(pending.request_id, 0) is True
        client = redis.Redis.from_url(server.url)
        assert 0 < client.pttl("ewc:signed-retry:" + used.request_id) <= 600_000  # TTL kept
        client.close()
        store.close()
    finally:
        server.stop()


@pytest.mark.parametrize("how", ["shutdown", "kill"])
def test_postgres_claim_survives_a_restart(how: str) -> None:
    with running_postgres() as server:
        store = PostgresStore(server.dsn)
        used, pending = record(), record()
        store.put(used, 600)
        store.put(pending, 600)
        assert store.claim(used.request_id, 0)
        if how == "kill":  # kill -9 of every server process: the commit was on disk (WAL)
            server.kill()
            server.start()
        else:
            server.restart()
        # The store's connection died with the server: one call reports it, the next reconnects.
        with pytest.raises(ewc.SignedRetryError) as lost:
            store.get(used.request_id)
        assert (lost.value.code, lost.value.status) == ("STORE_UNAVAILABLE", 503)
        assert store.get(used.request_id) == used.as_claimed()
        assert store.claim(used.request_id, 0) is False
        assert PostgresStore(server.dsn).get(pending.request_id) == pending
        assert store.claim(pending.request_id, 0) is True
        store.close()


def test_postgres_new_challenges_commit_without_waiting_and_claims_wait(tmp_path: Path) -> None:
    """A put commits with ``synchronous_commit`` off for its own transaction only (``SET
    LOCAL``, seen in the client's protocol trace); the connection stays ``on``, so the claim
    after it waits for the log, its put's record included."""
    with running_postgres() as server:
        store = PostgresStore(server.dsn)
        connection = store._connection()
        trace = tmp_path / "libpq.trace"
        with trace.open("w") as sink:
            connection.pgconn.trace(sink.fileno())
            stored = record()
            store.put(stored, 600)
            connection.pgconn.untrace()
        sent = trace.read_text()
        assert "SET LOCAL synchronous_commit = off" in sent, sent
        assert sent.index("SET LOCAL synchronous_commit = off") < sent.index("INSERT INTO")
        assert connection.execute("SHOW synchronous_commit").fetchone() == ("on",)
        assert store.claim(stored.request_id, 0)
        assert store.claim(stored.request_id, 0) is False
        with pytest.raises(ewc.SignedRetryError) as taken:
            store.put(stored, 600)
        assert taken.value.code == "REQUEST_ID_CONFLICT"
        assert connection.execute("SHOW synchronous_commit").fetchone() == ("on",)
        store.close()


def test_postgres_unreachable_is_a_store_error() -> None:
    with refused_port() as port:
        dsn = f"postgresql://ewc@127.0.0.1:{port}/postgres"
        error = fails(
            lambda: PostgresStore(dsn, connect_timeout_seconds=1), "STORE_UNAVAILABLE", 503
        )
        assert str(port) not in str(error)
