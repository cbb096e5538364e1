"""The second factors' state (``ewc.totp``): each factor's last accepted TOTP time step and its
unused recovery codes (only their keyed hashes). :class:`FactorStore` is the interface; each
backend's store class takes its implementation from the mixin of this module for its backend,
so one store object serves the factors as it serves the challenges and the one-time codes.

A TOTP code is accepted once: :meth:`FactorStore.claim_step` moves the factor's last accepted
step forward, and only forward, in one atomic operation: SQLite and PostgreSQL run one
``INSERT ... ON CONFLICT DO UPDATE ... WHERE excluded.last_step > last_step`` whose row count
says whether this call moved it (PostgreSQL locks the row and re-checks the condition on the
committed row; SQLite runs writers one at a time); Redis runs a Lua script; the memory store
holds its lock. A recovery code is used once: :meth:`FactorStore.use_recovery_code` deletes its
hash, and only the call whose delete removed it wins (a row count, ``SREM``'s reply).

Nothing here expires: a factor's state is one step number and at most a few dozen hashes, kept
until :meth:`FactorStore.forget_factor` (when the factor is deleted).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from ._backends import postgres_storable, postgres_unstorable, sqlite_failure
from ._records import store_key_invalid

__all__ = [
    "POSTGRES_FACTOR_SCHEMA",
    "SQLITE_FACTOR_SCHEMA",
    "FactorStore",
    "MemoryFactors",
    "PostgresFactors",
    "RedisFactors",
    "SqliteFactors",
]


class FactorStore(Protocol):
    """Where the second factors' state lives (public as ``ewc.totp.FactorStore``). Every method
    is atomic per factor key, also across the processes (and hosts) that share the store;
    failures of the backing service raise :class:`StoreError` code ``STORE_UNAVAILABLE`` (503).
    """

    def claim_step(self, key: str, step: int) -> bool:
        """Record ``step`` as the factor's last accepted TOTP time step if it is later than the
        one recorded (or none is); True exactly when this call did so."""
        ...

    def replace_recovery_codes(self, key: str, code_hashes: Sequence[str]) -> None:
        """Make ``code_hashes`` the factor's unused recovery codes, in place of any before."""
        ...

    def use_recovery_code(self, key: str, code_hash: str) -> bool:
        """Remove one unused recovery code; True exactly for the one call that removed it."""
        ...

    def recovery_codes_left(self, key: str) -> int:
        """How many unused recovery codes the factor has."""
        ...

    def forget_factor(self, key: str) -> None:
        """Drop the factor's last accepted step and its recovery codes."""
        ...


# --- memory ---------------------------------------------------------------------------------


class MemoryFactors:
    """The memory store's factors: two dicts behind the store's lock."""

    _lock: threading.Lock
    _steps: dict[str, int]
    _recovery: dict[str, set[str]]

    def claim_step(self, key: str, step: int) -> bool:
        with self._lock:
            last = self._steps.get(key)
            if last is not None and last >= step:
                return False
            self._steps[key] = step
            return True

    def replace_recovery_codes(self, key: str, code_hashes: Sequence[str]) -> None:
        with self._lock:
            self._recovery[key] = set(code_hashes)

    def use_recovery_code(self, key: str, code_hash: str) -> bool:
        with self._lock:
            unused = self._recovery.get(key, set())
            if code_hash not in unused:
                return False
            unused.discard(code_hash)
            return True

    def recovery_codes_left(self, key: str) -> int:
        with self._lock:
            return len(self._recovery.get(key, ()))

    def forget_factor(self, key: str) -> None:
        with self._lock:
            self._steps.pop(key, None)
            self._recovery.pop(key, None)


# --- SQLite ---------------------------------------------------------------------------------

SQLITE_FACTOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS totp_steps (
    factor    TEXT PRIMARY KEY,
    last_step INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS recovery_codes (
    factor    TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    PRIMARY KEY (factor, code_hash)
) WITHOUT ROWID;
"""
_SQLITE_CLAIM_STEP = (
    "INSERT INTO totp_steps (factor, last_step) VALUES (?, ?) "
    "ON CONFLICT (factor) DO UPDATE SET last_step = excluded.last_step "
    "WHERE excluded.last_step > totp_steps.last_step"
)


class _SqliteHost(Protocol):
    def _connection(self) -> sqlite3.Connection: ...


@contextmanager
def _sqlite_errors() -> Iterator[None]:
    try:
        yield
    except UnicodeEncodeError:  # a lone surrogate in a key
        raise store_key_invalid() from None
    except sqlite3.Error as problem:
        raise sqlite_failure(problem) from None


class SqliteFactors:
    """The SQLite store's factors: tables ``totp_steps`` and ``recovery_codes``."""

    def claim_step(self: _SqliteHost, key: str, step: int) -> bool:
        with _sqlite_errors():
            return self._connection().execute(_SQLITE_CLAIM_STEP, (key, step)).rowcount == 1

    def replace_recovery_codes(self: _SqliteHost, key: str, code_hashes: Sequence[str]) -> None:
        rows = [(key, code_hash) for code_hash in code_hashes]
        with _sqlite_errors():
            connection = self._connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute("DELETE FROM recovery_codes WHERE factor = ?", (key,))
                connection.executemany("INSERT OR IGNORE INTO recovery_codes VALUES (?, ?)", rows)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise

    def use_recovery_code(self: _SqliteHost, key: str, code_hash: str) -> bool:
        with _sqlite_errors():
            cursor = self._connection().execute(
                "DELETE FROM recovery_codes WHERE factor = ? AND code_hash = ?", (key, code_hash)
            )
            return cursor.rowcount == 1

    def recovery_codes_left(self: _SqliteHost, key: str) -> int:
        with _sqlite_errors():
            row = (
                self._connection()
                .execute("SELECT count(*) FROM recovery_codes WHERE factor = ?", (key,))
                .fetchone()
            )
        return int(row[0])

    def forget_factor(self: _SqliteHost, key: str) -> None:
        with _sqlite_errors():
            connection = self._connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute("DELETE FROM totp_steps WHERE factor = ?", (key,))
                connection.execute("DELETE FROM recovery_codes WHERE factor = ?", (key,))
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise


# --- PostgreSQL -----------------------------------------------------------------------------

POSTGRES_FACTOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS ewc_totp_steps (
    factor    TEXT PRIMARY KEY,
    last_step BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS ewc_recovery_codes (
    factor    TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    PRIMARY KEY (factor, code_hash)
);
"""
_POSTGRES_CLAIM_STEP = (
    "INSERT INTO ewc_totp_steps (factor, last_step) VALUES (%s, %s) "
    "ON CONFLICT (factor) DO UPDATE SET last_step = EXCLUDED.last_step "
    "WHERE EXCLUDED.last_step > ewc_totp_steps.last_step"
)


class _PostgresHost(Protocol):
    def _connection(self) -> Any: ...

    def _failures(self) -> AbstractContextManager[None]: ...


class PostgresFactors:
    """The PostgreSQL store's factors: tables ``ewc_totp_steps`` and ``ewc_recovery_codes``.
    Replacing a factor's codes takes a transaction-scoped advisory lock on the factor first, so
    two concurrent replacements never leave the union of both sets."""

    def claim_step(self: _PostgresHost, key: str, step: int) -> bool:
        if not postgres_storable(key):
            raise postgres_unstorable()
        with self._failures():
            cursor = self._connection().execute(_POSTGRES_CLAIM_STEP, (key, step))
            return bool(cursor.rowcount == 1)

    def replace_recovery_codes(self: _PostgresHost, key: str, code_hashes: Sequence[str]) -> None:
        if not (postgres_storable(key) and all(map(postgres_storable, code_hashes))):
            raise postgres_unstorable()
        with self._failures():
            connection = self._connection()
            with connection.transaction():
                connection.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("ewc-rc:" + key,)
                )
                connection.execute("DELETE FROM ewc_recovery_codes WHERE factor = %s", (key,))
                with connection.cursor() as cursor:
                    cursor.executemany(
                        "INSERT INTO ewc_recovery_codes VALUES (%s, %s) ON CONFLICT DO NOTHING",
                        [(key, code_hash) for code_hash in code_hashes],
                    )

    def use_recovery_code(self: _PostgresHost, key: str, code_hash: str) -> bool:
        if not (postgres_storable(key) and postgres_storable(code_hash)):
            return False
        with self._failures():
            cursor = self._connection().execute(
                "DELETE FROM ewc_recovery_codes WHERE factor = %s AND code_hash = %s",
                (key, code_hash),
            )
            return bool(cursor.rowcount == 1)

    def recovery_codes_left(self: _PostgresHost, key: str) -> int:
        if not postgres_storable(key):
            return 0
        with self._failures():
            row = (
                self._connection()
                .execute("SELECT count(*) FROM ewc_recovery_codes WHERE factor = %s", (key,))
                .fetchone()
            )
        return int(row[0])

    def forget_factor(self: _PostgresHost, key: str) -> None:
        if not postgres_storable(key):
            return
        with self._failures():
            connection = self._connection()
            with connection.transaction():
                connection.execute("DELETE FROM ewc_totp_steps WHERE factor = %s", (key,))
                connection.execute("DELETE FROM ewc_recovery_codes WHERE factor = %s", (key,))


# --- Redis ----------------------------------------------------------------------------------

# KEYS[1] the factor's step; ARGV[1] the step. 1 exactly when this call moved it forward.
_CLAIM_STEP = """
local last = redis.call('GET', KEYS[1])
if last and tonumber(last) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""
# KEYS[1] the factor's set of unused code hashes; ARGV the new hashes.
_REPLACE_CODES = """
redis.call('DEL', KEYS[1])
if #ARGV > 0 then redis.call('SADD', KEYS[1], unpack(ARGV)) end
return 1
"""
# KEYS[1] the factor's set; ARGV[1] a hash. 1 exactly for the call that removed it.
_USE_CODE = "return redis.call('SREM', KEYS[1], ARGV[1])"


class _RedisHost(Protocol):
    key_prefix: str
    _client: Any
    _factor_scripts: dict[str, Any]

    def _call(self, action: Any, *args: Any, **kwargs: Any) -> Any: ...

    def _replicated(self, script: Any, key: str, args: list[Any]) -> Any: ...


class RedisFactors:
    """The Redis store's factors: a string per factor under ``key_prefix + "totp-step:"`` and a
    set of hashes under ``key_prefix + "recovery:"``; the writes are Lua scripts, each followed
    by ``WAIT`` when the store has ``wait_replicas``."""

    _factor_scripts: dict[str, Any]

    def _register_factor_scripts(self: _RedisHost) -> None:
        scripts = {"claim": _CLAIM_STEP, "replace": _REPLACE_CODES, "use": _USE_CODE}
        self._factor_scripts = {
            name: self._client.register_script(source) for name, source in scripts.items()
        }

    def claim_step(self: _RedisHost, key: str, step: int) -> bool:
        script = self._factor_scripts["claim"]
        return bool(self._replicated(script, self.key_prefix + "totp-step:" + key, [step]) == 1)

    def replace_recovery_codes(self: _RedisHost, key: str, code_hashes: Sequence[str]) -> None:
        script = self._factor_scripts["replace"]
        self._replicated(script, self.key_prefix + "recovery:" + key, list(code_hashes))

    def use_recovery_code(self: _RedisHost, key: str, code_hash: str) -> bool:
        script = self._factor_scripts["use"]
        return bool(self._replicated(script, self.key_prefix + "recovery:" + key, [code_hash]) == 1)

    def recovery_codes_left(self: _RedisHost, key: str) -> int:
        return int(self._call(self._client.scard, self.key_prefix + "recovery:" + key))

    def forget_factor(self: _RedisHost, key: str) -> None:
        keys = (self.key_prefix + "totp-step:" + key, self.key_prefix + "recovery:" + key)
        self._call(self._client.delete, *keys)
