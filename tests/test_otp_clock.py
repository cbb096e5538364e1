"""The OTP re-issue limits when "now" is behind the stored times (issue finding D3), for every
store: a clock 1 ms behind gets no new code and does not restart the hourly count, and 8
processes issuing for one credential at once on one correct clock get exactly one code per
burst, in every round (the verdict does not depend on the order they reach the store)."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path
from typing import Any

import _claim_race
import pytest
from _postgres_server import PostgresServer, empty_store
from _redis_server import RedisServer
from conftest import report_counts
from embedded_wallet_crypto import otp, stores

HASH_KEY = b"otp clock test hash key 01234567"
RACE_WORKERS = 8
RACE_ROUNDS = 200


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def rate_limited(codes: otp.OneTimeCodes, credential: str) -> int:
    with pytest.raises(otp.OtpRateLimited) as limited:
        codes.issue(credential)
    return limited.value.retry_after


def test_a_clock_one_millisecond_behind_gets_no_new_code(store: Any) -> None:
    clock = Clock()
    codes = otp.OneTimeCodes(store, hash_key=HASH_KEY, clock=clock)
    first = codes.issue("AuthMethod:1")
    clock.now -= 0.001
    assert rate_limited(codes, "AuthMethod:1") == 31  # 30 s interval, 1 ms more on this clock
    clock.now -= 3600  # far behind: still inside, never a fresh start
    assert rate_limited(codes, "AuthMethod:1") >= 3600
    clock.now += 3600 + 0.001
    assert codes.verify("AuthMethod:1", first.code).credential_id == "AuthMethod:1"  # not replaced


def test_a_clock_behind_the_window_start_does_not_restart_the_count(store: Any) -> None:
    clock = Clock()
    codes = otp.OneTimeCodes(
        store,
        hash_key=HASH_KEY,
        clock=clock,
        min_reissue_interval_seconds=1,
        max_issues=2,
        issue_window_seconds=600,
    )
    start = clock.now
    codes.issue("AuthMethod:1")
    clock.now = start + 1
    codes.issue("AuthMethod:1")  # the window is full
    clock.now = start + 2
    assert rate_limited(codes, "AuthMethod:1") == 598
    clock.now = start - 0.001  # behind the window's start (and the last issue)
    rate_limited(codes, "AuthMethod:1")
    clock.now = start + 600  # the window that began at start has ended
    assert codes.issue("AuthMethod:1")


def test_the_rule_counts_a_negative_elapsed_time_as_inside() -> None:
    limits = stores.IssueLimits(min_interval_ms=30_000, window_ms=3_600_000, max_issues=5,
                                forget_after_ms=3_600_000)  # fmt: skip
    state = stores.CodeState("h", "i", 10**13, 0, False, 1_000_000, 1, 1_000_000)
    assert stores._records.issue_window(state, 999_999, limits)[0] == 30_001
    assert stores._records.issue_window(state, 1_030_000, limits) == (0, 1_000_000, 2)
    full = stores.CodeState("h", "i", 10**13, 0, False, 1_000_000, 5, 2_000_000)
    assert stores._records.issue_window(full, 1_999_999, limits)[0] > 0
    assert stores._records.issue_window(full, 999_999, limits)[0] > 0


# --- 8 processes issue at once, on one correct clock ----------------------------------------


def _issue_race(kind: str, location: str) -> None:
    run = time.time_ns()
    credentials = [f"AuthMethod:race-{run}-{index}" for index in range(RACE_ROUNDS)]
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(RACE_WORKERS)
    results = context.Queue()
    workers = [
        context.Process(
            target=_claim_race.issue_race, args=(w, kind, location, credentials, barrier, results)
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
    assert [problem for *_, problem in reports if problem is not None] == []
    winners = [0] * RACE_ROUNDS
    for _, won, _, _ in reports:
        for index in won:
            winners[index] += 1
    assert winners == [1] * RACE_ROUNDS, "a burst without exactly one code"
    assert sum(refused for _, _, refused, _ in reports) == RACE_ROUNDS * (RACE_WORKERS - 1)
    report_counts(
        f"otp issue race {kind}",
        processes=RACE_WORKERS,
        rounds=RACE_ROUNDS,
        one_code_rounds=RACE_ROUNDS,
        milliseconds=round(elapsed * 1000),
    )


def test_sqlite_eight_processes_one_code_per_burst(tmp_path: Path) -> None:
    _issue_race("sqlite", str(tmp_path / "otp.db"))


def test_redis_eight_processes_one_code_per_burst(redis_server: RedisServer) -> None:
    _issue_race("redis", redis_server.url)


def test_postgres_eight_processes_one_code_per_burst(postgres_server: PostgresServer) -> None:
    empty_store(postgres_server).close()
    _issue_race("postgres", postgres_server.dsn)
