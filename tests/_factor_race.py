"""Workers for the factor races of tests/test_store_factors.py (importable under ``spawn``).

Each of N workers opens its own store; for every round it waits at a barrier with the others,
then submits the round's TOTP code for the round's factor (``Totp.verify``, all at the same
``now``); then, round by round again, the round's recovery code (``RecoveryCodes.use``). The
parent checks that every round had exactly one winner.

``EWC_FACTOR_RACE_PLANTED=1`` plants the bug the stores' atomic operations prevent: the workers
then wrap their store in :class:`ReadThenWrite`, which reads the factor's state and writes it
in a second statement (the claim and the use as two steps, not one). The race must then fail;
that is how the test was shown able to fail (see the report in the commit message).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from _claim_race import BARRIER_TIMEOUT_SECONDS, open_store
from embedded_wallet_crypto import totp
from embedded_wallet_crypto.stores import MemoryStore

PLANTED = os.environ.get("EWC_FACTOR_RACE_PLANTED") == "1"
HASH_KEY = b"factor race recovery hash key 01"


class ReadThenWrite:
    """The planted bug: the step claim and the code use as a read, then a separate write, on
    the same backend tables and keys as the real store."""

    def __init__(self, store: Any, kind: str) -> None:
        self.store, self.kind = store, kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def _sql(self, statement: str, args: tuple[Any, ...]) -> Any:
        if self.kind == "postgres":
            return self.store._connection().execute(statement.replace("?", "%s"), args)
        return self.store._connection().execute(statement, args)

    def claim_step(self, key: str, step: int) -> bool:
        if self.kind == "memory":
            last = self.store._steps.get(key)
        elif self.kind == "redis":
            value = self.store._client.get(self.store.key_prefix + "totp-step:" + key)
            last = None if value is None else int(value)
        else:
            table = "ewc_totp_steps" if self.kind == "postgres" else "totp_steps"
            row = self._sql(f"SELECT last_step FROM {table} WHERE factor = ?", (key,)).fetchone()
            last = None if row is None else int(row[0])
        if last is not None and last >= step:
            return False
        if self.kind == "memory":
            time.sleep(0)  # the GIL rarely switches here by itself: let it, as preemption could
            self.store._steps[key] = step
        elif self.kind == "redis":
            self.store._client.set(self.store.key_prefix + "totp-step:" + key, step)
        elif self.kind == "postgres":
            self._sql(
                "INSERT INTO ewc_totp_steps VALUES (?, ?) "
                "ON CONFLICT (factor) DO UPDATE SET last_step = EXCLUDED.last_step",
                (key, step),
            )
        else:
            self._sql("INSERT OR REPLACE INTO totp_steps VALUES (?, ?)", (key, step))
        return True

    def use_recovery_code(self, key: str, code_hash: str) -> bool:
        if self.kind == "memory":
            unused = self.store._recovery.get(key, set())
            if code_hash not in unused:
                return False
            time.sleep(0)
            unused = unused - {code_hash}
            self.store._recovery[key] = unused
            return True
        if self.kind == "redis":
            name = self.store.key_prefix + "recovery:" + key
            if not self.store._client.sismember(name, code_hash):
                return False
            self.store._client.srem(name, code_hash)
            return True
        table = "ewc_recovery_codes" if self.kind == "postgres" else "recovery_codes"
        where = "WHERE factor = ? AND code_hash = ?"
        if self._sql(f"SELECT 1 FROM {table} {where}", (key, code_hash)).fetchone() is None:
            return False
        self._sql(f"DELETE FROM {table} {where}", (key, code_hash))
        return True


def contest(
    worker: int,
    store: Any,
    kind: str,
    totp_rounds: list[tuple[str, str]],
    secret_hex: str,
    now: int,
    recovery_rounds: list[tuple[str, str]],
    barrier: Any,
    results: Any,
) -> None:
    """Every round's TOTP code, then every round's recovery code, at once with the others;
    report (worker, TOTP rounds won, recovery rounds won, loser codes, problem)."""
    if PLANTED:
        store = ReadThenWrite(store, kind)
    verifier = totp.Totp(store, issuer="Race")
    recovery = totp.RecoveryCodes(store, hash_key=HASH_KEY)
    secret = totp.TotpSecret.from_hex(secret_hex)
    totp_wins: list[int] = []
    recovery_wins: list[int] = []
    losers: dict[str, int] = {}
    try:
        barrier.wait(BARRIER_TIMEOUT_SECONDS)
        for index, (factor, code) in enumerate(totp_rounds):
            barrier.wait(BARRIER_TIMEOUT_SECONDS)
            try:
                verifier.verify(factor, secret, code, now=now)
                totp_wins.append(index)
            except totp.TotpError as error:
                losers[error.code] = losers.get(error.code, 0) + 1
        for index, (factor, code) in enumerate(recovery_rounds):
            barrier.wait(BARRIER_TIMEOUT_SECONDS)
            try:
                recovery.use(factor, code)
                recovery_wins.append(index)
            except totp.TotpError as error:
                losers[error.code] = losers.get(error.code, 0) + 1
        results.put((worker, totp_wins, recovery_wins, losers, None))
    except BaseException as problem:  # report instead of leaving the parent waiting
        barrier.abort()
        results.put((worker, totp_wins, recovery_wins, losers, repr(problem)))


def process_contest(worker: int, kind: str, location: str, *args: Any) -> None:
    """:func:`contest` in a process of its own, with its own store."""
    store = open_store(kind, location)
    try:
        contest(worker, store, kind, *args)
    finally:
        store.close()  # type: ignore[attr-defined]


def thread_contest(store: MemoryStore, workers: int, *args: Any) -> list[Any]:
    """:func:`contest` in ``workers`` threads sharing one memory store; their reports."""
    barrier = threading.Barrier(workers)
    reports: list[Any] = []

    class Results:
        put = reports.append

    threads = [
        threading.Thread(target=contest, args=(w, store, "memory", *args, barrier, Results))
        for w in range(workers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(BARRIER_TIMEOUT_SECONDS * 2)
    return reports
