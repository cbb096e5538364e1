"""The challenge stores under contention: 8 processes (tests/_claim_race.py) racing for each
request id over 1,000 rounds, on SqliteStore, RedisStore and PostgresStore: exactly one winner
per round, for a bare ``store.claim`` and for ``SignedRetry.verify``."""

from __future__ import annotations

from pathlib import Path

import _claim_race
import embedded_wallet_crypto as ewc
from _postgres_server import PostgresServer, empty_store
from _processes import run_spawned
from _redis_server import RedisServer
from _store_fixtures import SESSION, record
from conftest import report_counts
from embedded_wallet_crypto.signed_retry import Operation, SignedRetry

RACE_WORKERS = 8
RACE_ROUNDS = 1000


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

    reports, elapsed = run_spawned(
        RACE_WORKERS,
        _claim_race.race,
        kind,
        location,
        claim_ids,
        retries,
        SESSION.public_key_hex(),
    )

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
