"""The OTP re-issue limits when "now" is behind the stored times (issue finding D3), for every
store: a clock 1 ms behind gets no new code and does not restart the hourly count, and 8
processes issuing for one credential at once on one correct clock get exactly one code per
burst, in every round (the verdict does not depend on the order they reach the store).

Without a caller-given clock the store reads "now" inside its atomic section: 8 workers issuing
for one credential through a store up to one interval of latency away never get two codes that
took effect closer than the re-issue interval (with the time read before the store call, each
backend gave 2 to 5 such pairs in a run of 320 attempts)."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path
from typing import Any

import _claim_race
import pytest
from _postgres_server import PostgresServer, empty_store
from _processes import run_spawned
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
    reports, elapsed = run_spawned(
        RACE_WORKERS, _claim_race.issue_race, kind, location, credentials
    )
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


# --- many issuers, a store some latency away: the store's own clock decides ----------------

STORM_WORKERS = 8
STORM_ATTEMPTS = 40
STORM_INTERVAL_SECONDS = 0.05


def codes_too_close(accepted: list[tuple[float, float]], interval_ms: float) -> int:
    """How many pairs of accepted issues surely took effect less than ``interval_ms`` apart:
    each took effect within its (earliest, latest) span, so a pair is counted only when every
    choice of moments in the two spans is closer than the interval (2 ms of rounding spare)."""
    close = 0
    for index, (low_a, high_a) in enumerate(accepted):
        for low_b, high_b in accepted[index + 1 :]:
            if max(high_a - low_b, high_b - low_a) < interval_ms - 2:
                close += 1
    return close


def _issue_storm(kind: str, location: str, store: Any = None) -> None:
    credential = f"AuthMethod:storm-{time.time_ns()}"
    args = (credential, STORM_ATTEMPTS, STORM_INTERVAL_SECONDS)
    started = time.perf_counter()
    if store is not None:  # threads sharing one store object
        barrier: Any = threading.Barrier(STORM_WORKERS)
        results: Any = queue.Queue()
        threads = [
            threading.Thread(
                target=_claim_race.issue_storm, args=(w, store, *args, barrier, results)
            )
            for w in range(STORM_WORKERS)
        ]
        for thread in threads:
            thread.start()
        reports = [results.get(timeout=240) for _ in threads]
        for thread in threads:
            thread.join(timeout=30)
    else:
        reports, _ = run_spawned(
            STORM_WORKERS, _claim_race.process_issue_storm, kind, location, *args
        )
    elapsed = time.perf_counter() - started
    assert [problem for *_, problem in reports if problem is not None] == []
    accepted = [span for _, spans, _ in reports for span in spans]
    too_close = codes_too_close(accepted, STORM_INTERVAL_SECONDS * 1000)
    report_counts(
        f"otp issue storm {kind}",
        workers=STORM_WORKERS,
        attempts=STORM_WORKERS * STORM_ATTEMPTS,
        codes=len(accepted),
        pairs_closer_than_the_interval=too_close,
        milliseconds=round(elapsed * 1000),
    )
    assert accepted, "no code was issued"
    assert too_close == 0, f"{too_close} pairs of codes inside one re-issue interval"


def test_memory_threads_never_get_two_codes_in_one_interval() -> None:
    _issue_storm("memory", "", store=otp.MemoryStore())


def test_sqlite_processes_never_get_two_codes_in_one_interval(tmp_path: Path) -> None:
    _issue_storm("sqlite", str(tmp_path / "otp.db"))


def test_redis_processes_never_get_two_codes_in_one_interval(redis_server: RedisServer) -> None:
    _issue_storm("redis", redis_server.url)


def test_postgres_processes_never_get_two_codes_in_one_interval(
    postgres_server: PostgresServer,
) -> None:
    empty_store(postgres_server).close()
    _issue_storm("postgres", postgres_server.dsn)


def test_without_a_clock_the_store_judges_by_its_own_time(store: Any) -> None:
    limits = stores.IssueLimits(min_interval_ms=30_000, window_ms=3_600_000, max_issues=5,
                                forget_after_ms=3_600_000)  # fmt: skip
    before = time.time_ns() // 1_000_000
    first = store.issue("AuthMethod:own-clock", stores.NewCode("h1", "i1", ttl_ms=300_000), None,
                        limits)  # fmt: skip
    after = time.time_ns() // 1_000_000 + 1
    assert first.issued and before <= first.now_ms <= after
    assert first.expires_at_ms == first.now_ms + 300_000
    again = store.issue("AuthMethod:own-clock", stores.NewCode("h2", "i2", ttl_ms=300_000), None,
                        limits)  # fmt: skip
    assert not again.issued and again.expires_at_ms == 0
    assert again.retry_after_ms == 30_000 - (again.now_ms - first.now_ms)
    status, state = store.attempt("AuthMethod:own-clock", again.now_ms, 5)
    assert status == "ok" and state is not None and state.issue_id == "i1"
    assert state.last_issue_ms == first.now_ms and state.expires_at_ms == first.expires_at_ms


def test_a_given_time_and_expiry_are_kept(store: Any) -> None:
    limits = stores.IssueLimits(0, 1, 5, 60_000)
    outcome = store.issue("AuthMethod:given", stores.NewCode("h", "i", 2**53), 1_000, limits)
    assert (outcome.retry_after_ms, outcome.now_ms, outcome.expires_at_ms) == (0, 1_000, 2**53)
    ttl = store.issue("AuthMethod:given-ttl", stores.NewCode("h", "i", ttl_ms=5), 1_000, limits)
    assert (ttl.now_ms, ttl.expires_at_ms) == (1_000, 1_005)


def test_one_time_codes_without_a_clock_expire_from_the_store_time(store: Any) -> None:
    codes = otp.OneTimeCodes(store, hash_key=HASH_KEY)
    before = time.time()
    issued = codes.issue("AuthMethod:default-clock")
    after = time.time()
    assert before + 300 - 0.002 <= issued.expires_at.timestamp() <= after + 300 + 0.002
    assert rate_limited(codes, "AuthMethod:default-clock") in range(1, 31)
    assert codes.verify("AuthMethod:default-clock", issued.code).sandbox is False
