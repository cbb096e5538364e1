"""Worker processes for the claim race of tests/test_stores.py (importable under ``spawn``).

Each of N workers opens its own store, then for every round waits at a barrier with the others
and tries to take the round's request id: first by ``store.claim`` directly, then through
``SignedRetry.verify`` with a valid stamp. The winners go back to the parent, which checks that
every round had exactly one.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import time
from typing import Any

from embedded_wallet_crypto.errors import WalletCryptoError
from embedded_wallet_crypto.signed_retry import RedisStore, SignedRetry, SqliteStore, Store

BARRIER_TIMEOUT_SECONDS = 60


def open_store(kind: str, location: str) -> Store:
    return SqliteStore(location) if kind == "sqlite" else RedisStore(location)


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
