"""The challenge stores behind ewc.signed_retry: the same contract for MemoryStore, SqliteStore,
RedisStore (a real redis-server on a loopback port) and PostgresStore (a real PostgreSQL the
tests start), the protocol through each, records and claims surviving restarts and kill -9,
and 8 processes racing for each request id over 1,000 rounds."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path
from typing import Any

import _claim_race
import embedded_wallet_crypto as ewc
import pytest
import redis
from _postgres_server import PostgresServer, empty_store, running_postgres
from _redis_server import RedisServer, refused_port
from conftest import report_counts
from embedded_wallet_crypto.signed_retry import (
    ChallengeRecord,
    Operation,
    PostgresStore,
    RedisStore,
    SignedRetry,
    SqliteStore,
    Store,
)

SESSION = ewc.hpke.derive_key_pair(b"store tests session key ikm 0001")
FAR_FUTURE_MS = 2**53
RACE_WORKERS = 8
RACE_ROUNDS = 1000
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


# --- restarts -------------------------------------------------------------------------------


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


# --- 8 processes, 1,000 rounds --------------------------------------------------------------


def _race(kind: str, location: str) -> None:
    store = _claim_race.open_store(kind, location)
    protocol = SignedRetry(store)
    claim_ids = []
    for _ in range(RACE_ROUNDS):
        stored = record()
        store.put(stored, 600)
        claim_ids.append(stored.request_id)
    retries = []
    for index in range(RACE_ROUNDS):
        challenge = protocol.issue(
            account_id="a",
            operation=Operation.REVOKE_SESSION,
            parameters={"apiKeyIds": [f"Session:{index}"], "userId": "u"},
            organization_id="o",
        )
        retries.append((challenge.request_id, ewc.create_stamp(challenge.payload_to_sign, SESSION)))

    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(RACE_WORKERS)
    results = context.Queue()
    workers = [
        context.Process(
            target=_claim_race.race,
            args=(
                w,
                kind,
                location,
                claim_ids,
                retries,
                SESSION.public_key_hex(),
                barrier,
                results,
            ),
        )
        for w in range(RACE_WORKERS)
    ]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    try:
        reports = [results.get(timeout=240) for _ in workers]
    finally:
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
    elapsed = time.perf_counter() - started

    problems = [problem for *_, problem in reports if problem is not None]
    assert problems == []
    raw_winners, verify_winners = [0] * RACE_ROUNDS, [0] * RACE_ROUNDS
    loser_codes: dict[str, int] = {}
    for _, raw_wins, verify_wins, codes, _ in reports:
        for index in raw_wins:
            raw_winners[index] += 1
        for index in verify_wins:
            verify_winners[index] += 1
        for code, count in codes.items():
            loser_codes[code] = loser_codes.get(code, 0) + count
    assert raw_winners == [1] * RACE_ROUNDS, "a claim round without exactly one winner"
    assert verify_winners == [1] * RACE_ROUNDS, "a verify round without exactly one winner"
    assert loser_codes == {"REQUEST_ID_USED": RACE_ROUNDS * (RACE_WORKERS - 1)}
    report_counts(
        f"claim race {kind}",
        processes=RACE_WORKERS,
        rounds=RACE_ROUNDS * 2,
        single_winner_rounds=RACE_ROUNDS * 2,
        milliseconds=round(elapsed * 1000),
    )


def test_sqlite_eight_processes_one_winner_per_round(tmp_path: Path) -> None:
    _race("sqlite", str(tmp_path / "challenges.db"))


def test_redis_eight_processes_one_winner_per_round(redis_server: RedisServer) -> None:
    _race("redis", redis_server.url)


def test_postgres_eight_processes_one_winner_per_round(postgres_server: PostgresServer) -> None:
    empty_store(postgres_server).close()
    _race("postgres", postgres_server.dsn)
