"""Worker processes for the claim race of tests/test_stores_race.py and the OTP issue race of
tests/test_otp_clock.py (importable under ``spawn``).

Each of N workers opens its own store, then for every round waits at a barrier with the others
and tries to take the round's request id: first by ``store.claim`` directly, then through
``SignedRetry.verify`` with a valid stamp. The winners go back to the parent, which checks that
every round had exactly one.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import random
import time
from typing import Any

from embedded_wallet_crypto import otp
from embedded_wallet_crypto.errors import WalletCryptoError
from embedded_wallet_crypto.signed_retry import (
    PostgresStore,
    RedisStore,
    SignedRetry,
    SqliteStore,
    Store,
)

BARRIER_TIMEOUT_SECONDS = 60


def open_store(kind: str, location: str) -> Store:
    if kind == "sqlite":
        return SqliteStore(location)
    if kind == "postgres":
        return PostgresStore(location)
    return RedisStore(location)


def race(
    worker: int,
    kind: str,
    location: str,
    claim_ids: list[str],
    retries: list[tuple[str, str]],
    session_public_key: str,
    barrier: multiprocessing.synchronize.Barrier,
    results: Any,
) -> None:
    """Claim every round's id (raw, then through verify); report (worker, wins, codes)."""
    store = open_store(kind, location)
    protocol = SignedRetry(store)
    now_ms = round(time.time() * 1000)
    raw_wins: list[int] = []
    verify_wins: list[int] = []
    loser_codes: dict[str, int] = {}
    try:
        barrier.wait(BARRIER_TIMEOUT_SECONDS)
        for index, request_id in enumerate(claim_ids):
            barrier.wait(BARRIER_TIMEOUT_SECONDS)
            if store.claim(request_id, now_ms):
                raw_wins.append(index)
        for index, (request_id, stamp) in enumerate(retries):
            barrier.wait(BARRIER_TIMEOUT_SECONDS)
            try:
                protocol.verify(
                    request_id=request_id, stamp=stamp, account_session_keys=[session_public_key]
                )
                verify_wins.append(index)
            except WalletCryptoError as error:
                loser_codes[error.code] = loser_codes.get(error.code, 0) + 1
        results.put((worker, raw_wins, verify_wins, loser_codes, None))
    except BaseException as problem:  # report instead of leaving the parent waiting
        barrier.abort()
        results.put((worker, raw_wins, verify_wins, loser_codes, repr(problem)))


def issue_race(
    worker: int,
    kind: str,
    location: str,
    credentials: list[str],
    barrier: multiprocessing.synchronize.Barrier,
    results: Any,
) -> None:
    """Issue a code for every round's credential at once with the others, on the real clock
    (``time.time``, one clock for all); report (worker, rounds won, refusals, problem)."""
    store = open_store(kind, location)
    codes = otp.OneTimeCodes(store, hash_key=b"otp issue race hash key 0123456")  # type: ignore[arg-type]
    won: list[int] = []
    refused = 0
    try:
        barrier.wait(BARRIER_TIMEOUT_SECONDS)
        for index, credential in enumerate(credentials):
            barrier.wait(BARRIER_TIMEOUT_SECONDS)
            try:
                codes.issue(credential)
                won.append(index)
            except otp.OtpRateLimited:
                refused += 1
        results.put((worker, won, refused, None))
    except BaseException as problem:  # report instead of leaving the parent waiting
        barrier.abort()
        results.put((worker, won, refused, repr(problem)))


class InFlight:
    """A store reached over a network: each ``issue`` spends a random time in flight before it
    reaches the store (the store itself is the real one). ``delay`` is the last such time."""

    def __init__(self, store: Any, seed: int, most_seconds: float) -> None:
        self.store = store
        self._random = random.Random(seed)
        self._most = most_seconds
        self.delay = 0.0

    def issue(self, *args: Any) -> Any:
        self.delay = self._random.uniform(0, self._most)
        time.sleep(self.delay)
        return self.store.issue(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def issue_storm(
    worker: int,
    store: Any,
    credential: str,
    attempts: int,
    interval_seconds: float,
    barrier: Any,
    results: Any,
) -> None:
    """Issue for one credential ``attempts`` times, at once with the other workers, through a
    store ``interval_seconds`` of latency away, on the default clock (the store's own). Report
    (worker, [(earliest, latest) wall time in ms at which each accepted issue can have taken
    effect], problem): no earlier than the request reached the store, no later than the answer.
    """
    in_flight = InFlight(store, seed=worker, most_seconds=interval_seconds)
    codes = otp.OneTimeCodes(
        in_flight,  # type: ignore[arg-type]
        hash_key=b"otp issue storm hash key 0123456",
        min_reissue_interval_seconds=interval_seconds,
        max_issues=10**6,
    )
    accepted: list[tuple[float, float]] = []
    try:
        barrier.wait(BARRIER_TIMEOUT_SECONDS)
        for _ in range(attempts):
            before = time.time()
            try:
                codes.issue(credential)
            except otp.OtpRateLimited:
                continue
            after = time.time()
            accepted.append(((before + in_flight.delay) * 1000, after * 1000))
        results.put((worker, accepted, None))
    except BaseException as problem:  # report instead of leaving the parent waiting
        barrier.abort()
        results.put((worker, accepted, repr(problem)))


def process_issue_storm(
    worker: int,
    kind: str,
    location: str,
    credential: str,
    attempts: int,
    interval_seconds: float,
    barrier: multiprocessing.synchronize.Barrier,
    results: Any,
) -> None:
    """:func:`issue_storm` in a process of its own, with its own store."""
    store = open_store(kind, location)
    try:
        issue_storm(worker, store, credential, attempts, interval_seconds, barrier, results)
    finally:
        store.close()  # type: ignore[attr-defined]


def payload_race(
    worker: int,
    kind: str,
    location: str,
    retries: list[tuple[str, str]],
    barrier: multiprocessing.synchronize.Barrier,
    results: Any,
) -> None:
    """Answer every round's payload challenge (``verify_payload``) at once with the others;
    report (worker, rounds won, loser codes, problem)."""
    store = open_store(kind, location)
    protocol = SignedRetry(store)
    won: list[int] = []
    loser_codes: dict[str, int] = {}
    try:
        barrier.wait(BARRIER_TIMEOUT_SECONDS)
        for index, (request_id, stamp) in enumerate(retries):
            barrier.wait(BARRIER_TIMEOUT_SECONDS)
            try:
                protocol.verify_payload(request_id=request_id, stamp=stamp)
                won.append(index)
            except WalletCryptoError as error:
                loser_codes[error.code] = loser_codes.get(error.code, 0) + 1
        results.put((worker, won, loser_codes, None))
    except BaseException as problem:  # report instead of leaving the parent waiting
        barrier.abort()
        results.put((worker, won, loser_codes, repr(problem)))
