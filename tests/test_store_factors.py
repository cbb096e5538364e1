"""The second factors' state in every store (ewc.stores.FactorStore): a factor's last accepted
TOTP step only moves forward, a recovery code is used once, a replacement replaces, and under
concurrency (6 processes per backend, threads for the memory store) every round has exactly one
winner: one accepted TOTP code, one used recovery code."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import _factor_race
import pytest
from _postgres_server import PostgresServer, empty_store
from _processes import run_spawned
from _redis_server import RedisServer
from conftest import report_counts
from embedded_wallet_crypto import stores, totp

SURROGATE = "\ud800"
RACE_WORKERS = 6
RACE_ROUNDS = 200
NOW = 1_700_000_000
SECRET = totp.TotpSecret(bytes(range(20)))


def test_a_step_moves_only_forward(store: Any) -> None:
    assert store.claim_step("Factor:1", 10) is True
    assert store.claim_step("Factor:1", 10) is False  # the same step: a replay
    assert store.claim_step("Factor:1", 9) is False  # an earlier step after a later one
    assert store.claim_step("Factor:1", 11) is True
    assert store.claim_step("Factor:2", 5) is True  # each factor on its own
    assert store.claim_step("Factor:1", 2**53 - 1) is True
    assert store.claim_step("Factor:1", 2**53 - 1) is False


def test_a_recovery_code_is_used_once(store: Any) -> None:
    store.replace_recovery_codes("Factor:1", ["h1", "h2", "h3"])
    assert store.recovery_codes_left("Factor:1") == 3
    assert store.use_recovery_code("Factor:1", "h2") is True
    assert store.use_recovery_code("Factor:1", "h2") is False
    assert store.use_recovery_code("Factor:2", "h1") is False  # another factor's
    assert store.use_recovery_code("Factor:1", "unknown") is False
    assert store.recovery_codes_left("Factor:1") == 2
    assert store.recovery_codes_left("Factor:unknown") == 0


def test_a_replacement_replaces_every_unused_code(store: Any) -> None:
    store.replace_recovery_codes("Factor:1", ["old1", "old2"])
    store.replace_recovery_codes("Factor:1", ["new1", "new1", "new2"])  # a repeat is one code
    assert store.use_recovery_code("Factor:1", "old1") is False
    assert store.recovery_codes_left("Factor:1") == 2
    store.replace_recovery_codes("Factor:1", [])
    assert store.recovery_codes_left("Factor:1") == 0


def test_forgetting_a_factor_drops_its_step_and_codes(store: Any) -> None:
    store.claim_step("Factor:1", 10)
    store.replace_recovery_codes("Factor:1", ["h1"])
    store.claim_step("Factor:2", 10)
    store.forget_factor("Factor:1")
    store.forget_factor("Factor:never")
    assert store.recovery_codes_left("Factor:1") == 0
    assert store.claim_step("Factor:1", 1) is True  # a new enrollment starts afresh
    assert store.claim_step("Factor:2", 10) is False


def test_a_factor_and_a_request_id_of_the_same_text_do_not_meet(store: Any) -> None:
    same = "Same:text"
    record = stores.ChallengeRecord(same, "a", "EXPORT_WALLET", None, "{}", None, 2**53)
    store.put(record, 60)
    assert store.claim_step(same, 1) is True
    store.replace_recovery_codes(same, ["h"])
    assert store.claim(same, 1_000) is True
    assert store.use_recovery_code(same, "h") is True


@pytest.mark.parametrize("kind", ["sqlite", "redis", "postgres"])
def test_a_factor_key_no_store_can_hold_is_store_key_invalid(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    opened = _open(kind, tmp_path, request)
    try:
        for call in (
            lambda: opened.claim_step(SURROGATE, 1),
            lambda: opened.replace_recovery_codes(SURROGATE, ["h"]),
            lambda: opened.replace_recovery_codes("Factor:1", [SURROGATE]),
        ):
            with pytest.raises(stores.StoreError) as raised:
                call()
            assert (raised.value.code, raised.value.status) == ("STORE_KEY_INVALID", 400)
            assert isinstance(raised.value, totp.TotpError)
    finally:
        opened.close()


def test_postgres_lookups_of_text_it_cannot_hold_find_nothing(
    postgres_server: PostgresServer,
) -> None:
    opened = empty_store(postgres_server)
    try:
        assert opened.use_recovery_code("a\x00b", "h") is False
        assert opened.use_recovery_code("Factor:1", SURROGATE) is False
        assert opened.recovery_codes_left(SURROGATE) == 0
        opened.forget_factor(SURROGATE)
    finally:
        opened.close()


def test_the_sqlite_file_holds_the_factor_tables_and_survives_reopening(tmp_path: Path) -> None:
    first = stores.SqliteStore(tmp_path / "s.db")
    first.claim_step("Factor:1", 7)
    first.replace_recovery_codes("Factor:1", ["h1"])
    first.close()
    second = stores.SqliteStore(tmp_path / "s.db")
    assert second.claim_step("Factor:1", 7) is False
    assert second.use_recovery_code("Factor:1", "h1") is True
    second.close()
    names = {
        row[0]
        for row in sqlite3.connect(tmp_path / "s.db").execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
        )
    }
    assert {"signed_retry_challenges", "otp_codes", "totp_steps", "recovery_codes"} <= names


def test_redis_keys_live_under_the_factor_prefixes(redis_server: RedisServer) -> None:
    opened = stores.RedisStore(redis_server.url, key_prefix="prefix-test:")
    opened.claim_step("Factor:1", 3)
    opened.replace_recovery_codes("Factor:1", ["h1"])
    keys = {key.decode() for key in opened._client.keys("prefix-test:*")}
    assert keys == {"prefix-test:totp-step:Factor:1", "prefix-test:recovery:Factor:1"}
    opened.forget_factor("Factor:1")
    assert opened._client.keys("prefix-test:*") == []
    opened.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_concurrent_replacements_leave_one_whole_set(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two threads replace one factor's codes 50 times each; the result is always one of the
    two sets, never their union (PostgreSQL: the advisory lock; SQLite: BEGIN IMMEDIATE)."""
    opened = _open(kind, tmp_path, request)
    sets = {w: [f"w{w}-{i}" for i in range(10)] for w in range(2)}
    barrier = threading.Barrier(2)

    def replace(worker: int) -> None:
        for _ in range(50):
            barrier.wait(30)
            opened.replace_recovery_codes("Factor:1", sets[worker])

    threads = [threading.Thread(target=replace, args=(w,)) for w in sets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert opened.recovery_codes_left("Factor:1") == 10
    survivors = [w for w, hashes in sets.items() if opened.use_recovery_code("Factor:1", hashes[0])]
    assert len(survivors) == 1
    opened.close()


# --- the races ------------------------------------------------------------------------------


def _open(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    if kind == "sqlite":
        return stores.SqliteStore(tmp_path / "race.db")
    if kind == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        return stores.RedisStore(server.url, key_prefix=f"race:{request.node.name}:")
    return empty_store(request.getfixturevalue("postgres_server"))


def _rounds(store: Any, kind: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Each round's factor and TOTP code (one code, a fresh factor per round), and each
    round's factor and one of its recovery codes."""
    code = totp.Totp(issuer="Race").code_at(SECRET, NOW)
    totp_rounds = [(f"Factor:{kind}:totp:{index}", code) for index in range(RACE_ROUNDS)]
    recovery = totp.RecoveryCodes(store, hash_key=_factor_race.HASH_KEY, count=1)
    recovery_rounds = []
    for index in range(RACE_ROUNDS):
        factor = f"Factor:{kind}:recovery:{index}"
        recovery_rounds.append((factor, recovery.generate(factor)[0]))
    return totp_rounds, recovery_rounds


def _check(kind: str, reports: list[Any], elapsed: float) -> None:
    assert len(reports) == RACE_WORKERS
    assert [problem for *_, problem in reports if problem is not None] == []
    totp_winners, recovery_winners = [0] * RACE_ROUNDS, [0] * RACE_ROUNDS
    losers: dict[str, int] = {}
    for _, totp_wins, recovery_wins, codes, _ in reports:
        for index in totp_wins:
            totp_winners[index] += 1
        for index in recovery_wins:
            recovery_winners[index] += 1
        for code, count in codes.items():
            losers[code] = losers.get(code, 0) + count
    doubled = sum(w > 1 for w in totp_winners), sum(w > 1 for w in recovery_winners)
    assert doubled == (0, 0), f"rounds with more than one winner (TOTP, recovery): {doubled}"
    assert totp_winners == [1] * RACE_ROUNDS
    assert recovery_winners == [1] * RACE_ROUNDS
    losing = RACE_ROUNDS * (RACE_WORKERS - 1)
    assert losers == {"TOTP_REPLAYED": losing, "RECOVERY_CODE_INVALID": losing}
    report_counts(
        f"factor race {kind}",
        workers=RACE_WORKERS,
        rounds=RACE_ROUNDS * 2,
        single_winner_rounds=RACE_ROUNDS * 2,
        milliseconds=round(elapsed * 1000),
    )


def test_memory_store_threads_one_winner_per_round() -> None:
    store = stores.MemoryStore()
    totp_rounds, recovery_rounds = _rounds(store, "memory")
    started = time.perf_counter()
    reports = _factor_race.thread_contest(
        store, RACE_WORKERS, totp_rounds, SECRET.hex, NOW, recovery_rounds
    )
    _check("memory", reports, time.perf_counter() - started)


@pytest.mark.parametrize("kind", ["sqlite", "redis", "postgres"])
def test_processes_one_winner_per_round(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = _open(kind, tmp_path, request)
    location = {
        "sqlite": lambda: str(store.path),
        "redis": lambda: request.getfixturevalue("redis_server").url,
        "postgres": lambda: request.getfixturevalue("postgres_server").dsn,
    }[kind]()
    if kind == "redis":  # the workers open their stores under the default prefix
        store.close()
        store = stores.RedisStore(location)
    totp_rounds, recovery_rounds = _rounds(store, kind)
    store.close()
    reports, elapsed = run_spawned(
        RACE_WORKERS,
        _factor_race.process_contest,
        kind,
        location,
        totp_rounds,
        SECRET.hex,
        NOW,
        recovery_rounds,
    )
    _check(kind, reports, elapsed)
