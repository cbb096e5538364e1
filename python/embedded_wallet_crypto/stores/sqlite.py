"""``SqliteStore``: challenges and one-time codes in one SQLite file, shared by every process on
the host; two tables, ``signed_retry_challenges`` and ``otp_codes`` (and the factors' two,
``totp_steps`` and ``recovery_codes``: see ``_factors``).

A challenge's claim is one ``UPDATE ... WHERE claimed = 0 AND expires_at_ms > ?``: SQLite runs
writers one at a time, so of any number of concurrent claims exactly one changes the row
(rowcount 1). A code's issue runs in a ``BEGIN IMMEDIATE`` transaction (read the clock and
the counters, decide, write), so two concurrent issues are serialised and each is judged at
the time it takes effect; an attempt is one
``UPDATE ... RETURNING`` that counts it only while the code is unused, unexpired and below the
limit; the consume is one ``UPDATE`` whose rowcount says which caller won.

WAL mode lets readers go on during a write; ``busy_timeout`` makes a writer wait for the lock
instead of failing. ``synchronous`` is set to FULL on every connection
(``durability="strict"``, the default): a claim is on disk before it is reported won, so a
power cut cannot reopen a used request id. A new challenge (``put``) alone is written with
``synchronous=NORMAL``, without waiting for the disk: a power cut may lose it, and then its
retry is refused as an unknown request id (the client asks again); nothing is granted by a
challenge until its claim, which is on disk, with every challenge written before it, before it
returns (the write-ahead log is synced in order). ``durability="best-effort"`` runs every
connection with ``synchronous=NORMAL``: nothing waits for the disk; a crash of the process
loses nothing, but a power cut or an operating-system crash can lose the last commits, and so
reopen the latest claims and used codes within their validity.
"""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any, Literal

from ._backends import SqliteConnections, sqlite_failure, sqlite_file_path
from ._factors import SQLITE_FACTOR_SCHEMA, SqliteFactors
from ._records import (
    AttemptStatus,
    ChallengeRecord,
    CodeState,
    IssueLimits,
    IssueOutcome,
    NewCode,
    attempt_status,
    decide_issue,
    request_id_conflict,
    state_from_fields,
    store_config_invalid,
    store_key_invalid,
    wall_clock_ms,
)

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS signed_retry_challenges (
    request_id    TEXT PRIMARY KEY,
    record        TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    forget_at     REAL NOT NULL,
    claimed       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS signed_retry_challenges_forget_at
    ON signed_retry_challenges (forget_at);
CREATE TABLE IF NOT EXISTS otp_codes (
    credential      TEXT PRIMARY KEY,
    code_hash       TEXT NOT NULL,
    issue_id        TEXT NOT NULL,
    expires_at_ms   INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    used            INTEGER NOT NULL,
    window_start_ms INTEGER NOT NULL,
    window_issues   INTEGER NOT NULL,
    last_issue_ms   INTEGER NOT NULL,
    forget_at_ms    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS otp_codes_forget_at ON otp_codes (forget_at_ms);
"""
_PURGE_INTERVAL_SECONDS = 60.0  # how often ``put`` drops forgotten challenges

_SELECT_CODE = (
    "SELECT code_hash, issue_id, expires_at_ms, attempts, used, window_start_ms, window_issues, "
    "last_issue_ms FROM otp_codes WHERE credential = ?"
)
_COUNT_ATTEMPT = (
    "UPDATE otp_codes SET attempts = attempts + 1 "
    "WHERE credential = ? AND used = 0 AND expires_at_ms > ? AND attempts < ? "
    "RETURNING code_hash, issue_id, expires_at_ms, attempts, used, window_start_ms, "
    "window_issues, last_issue_ms"
)


def _state(row: Any) -> CodeState | None:
    return None if row is None else state_from_fields(row)


class SqliteStore(SqliteFactors):
    """Challenges and one-time codes in the SQLite database at ``path`` (created if needed).

    Safe across threads (one connection per thread) and processes (one per process, opened
    lazily, so a forked child never reuses its parent's); both protocols share each
    connection. Challenges are forgotten ``ttl_seconds`` after ``put`` by wall-clock time.
    Errors are :class:`~embedded_wallet_crypto.stores.StoreError`: ``STORE_CONFIG_INVALID``
    for an in-memory path or an unknown ``durability``, ``STORE_CORRUPT`` for a damaged file,
    else ``STORE_UNAVAILABLE``.

    ``durability="strict"`` (the default) puts every claim and code change on disk before it
    returns (``synchronous=FULL``); ``"best-effort"`` does not wait for the disk
    (``synchronous=NORMAL``): a power cut can then reopen the latest claims (see the module).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_seconds: float = 10.0,
        durability: Literal["strict", "best-effort"] = "strict",
    ) -> None:
        if durability not in ("strict", "best-effort"):
            raise store_config_invalid("SqliteStore's durability must be 'strict' or 'best-effort'")
        self.path = sqlite_file_path(path)
        self.durability = durability
        self._connections = SqliteConnections(
            self.path, busy_timeout_seconds, "FULL" if durability == "strict" else "NORMAL"
        )
        self._next_purge = 0.0
        connection = self._connection()
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(_SCHEMA + SQLITE_FACTOR_SCHEMA)
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None

    def _connection(self) -> sqlite3.Connection:
        try:
            return self._connections.get()
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None

    # --- signed-retry challenges (ChallengeStore) -----------------------------------------

    def put(self, record: ChallengeRecord, ttl_seconds: float) -> None:
        now = time.time()
        connection = self._connection()
        strict = self.durability == "strict"
        try:
            if strict:  # not on disk yet (see the module): a lost challenge fails closed
                connection.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None
        try:
            if now >= self._next_purge:
                self._next_purge = now + _PURGE_INTERVAL_SECONDS
                connection.execute(
                    "DELETE FROM signed_retry_challenges WHERE forget_at <= ?", (now,)
                )
            connection.execute(
                "INSERT INTO signed_retry_challenges "
                "(request_id, record, expires_at_ms, forget_at) VALUES (?, ?, ?, ?)",
                (record.request_id, record.to_json(), record.expires_at_ms, now + ttl_seconds),
            )
        except sqlite3.IntegrityError:
            raise request_id_conflict(record.request_id) from None
        except UnicodeEncodeError:  # a lone surrogate in a key
            raise store_key_invalid() from None
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None
        finally:
            try:
                if strict:
                    connection.execute("PRAGMA synchronous=FULL")
            except sqlite3.Error:  # this thread's next call opens a new connection
                self._connections.close()

    def get(self, request_id: str) -> ChallengeRecord | None:
        connection = self._connection()
        try:
            row = connection.execute(
                "SELECT record, claimed FROM signed_retry_challenges WHERE request_id = ?",
                (request_id,),
            ).fetchone()
        except UnicodeEncodeError:  # a lone surrogate in a key
            raise store_key_invalid() from None
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None
        if row is None:
            return None
        return ChallengeRecord.from_json(row[0], claimed=bool(row[1]))

    def claim(self, request_id: str, now_ms: int) -> bool:
        connection = self._connection()
        try:
            cursor = connection.execute(
                "UPDATE signed_retry_challenges SET claimed = 1 "
                "WHERE request_id = ? AND claimed = 0 AND expires_at_ms > ?",
                (request_id, now_ms),
            )
        except UnicodeEncodeError:  # a lone surrogate in a key
            raise store_key_invalid() from None
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None
        return cursor.rowcount == 1

    # --- one-time codes (CodeStore) -------------------------------------------------------

    def issue(
        self, key: str, code: NewCode, now_ms: int | None, limits: IssueLimits
    ) -> IssueOutcome:
        connection = self._connection()
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                if now_ms is None:
                    now_ms = wall_clock_ms()  # holding the write lock: when this takes effect
                connection.execute("DELETE FROM otp_codes WHERE forget_at_ms <= ?", (now_ms,))
                row = connection.execute(_SELECT_CODE, (key,)).fetchone()
                outcome, written, forget_at_ms = decide_issue(_state(row), code, now_ms, limits)
                if written is not None:
                    connection.execute(
                        "INSERT OR REPLACE INTO otp_codes VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?, ?)",
                        (
                            key,
                            written.code_hash,
                            written.issue_id,
                            written.expires_at_ms,
                            written.window_start_ms,
                            written.window_issues,
                            written.last_issue_ms,
                            forget_at_ms,
                        ),
                    )
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        except UnicodeEncodeError:  # a lone surrogate in a key
            raise store_key_invalid() from None
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None
        return outcome

    def attempt(
        self, key: str, now_ms: int, max_attempts: int
    ) -> tuple[AttemptStatus, CodeState | None]:
        connection = self._connection()
        try:
            row = connection.execute(_COUNT_ATTEMPT, (key, now_ms, max_attempts)).fetchone()
            if row is not None:
                return "ok", _state(row)
            row = connection.execute(_SELECT_CODE, (key,)).fetchone()
        except UnicodeEncodeError:  # a lone surrogate in a key
            raise store_key_invalid() from None
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None
        status = attempt_status(_state(row), now_ms, max_attempts)
        # "ok" here means the row changed between the two statements: report it as used up.
        return ("used" if status == "ok" else status), None

    def consume(self, key: str, issue_id: str) -> bool:
        connection = self._connection()
        try:
            cursor = connection.execute(
                "UPDATE otp_codes SET used = 1 WHERE credential = ? AND issue_id = ? AND used = 0",
                (key, issue_id),
            )
        except UnicodeEncodeError:  # a lone surrogate in a key
            raise store_key_invalid() from None
        except sqlite3.Error as problem:
            raise sqlite_failure(problem) from None
        return cursor.rowcount == 1

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        self._connections.close()
