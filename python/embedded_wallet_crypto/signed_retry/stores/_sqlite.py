"""``SqliteStore``: challenges in an SQLite file, shared by every process on the host.

The claim is one ``UPDATE ... WHERE claimed = 0 AND expires_at_ms > ?``: SQLite runs writers one
at a time, so of any number of concurrent claims exactly one changes the row (rowcount 1). WAL
mode lets readers go on during a claim; ``busy_timeout`` makes a writer wait for the lock
instead of failing. ``synchronous`` stays FULL: a claim is on disk before it is reported won,
so a power cut cannot reopen a used request id.
"""

from __future__ import annotations

import os
import sqlite3
import time

from ..._store_backends import SqliteConnections, sqlite_file_path
from ...errors import SignedRetryError
from .._records import ChallengeRecord, request_id_conflict, store_unavailable

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
"""
_PURGE_INTERVAL_SECONDS = 60.0


class SqliteStore:
    """Challenges in the SQLite database at ``path`` (created if needed).

    Safe across threads (one connection per thread) and processes (one per process, opened
    lazily, so a forked child never reuses its parent's). Records are forgotten
    ``ttl_seconds`` after ``put`` by wall-clock time.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout_seconds: float = 10.0) -> None:
        self.path = sqlite_file_path(path, SignedRetryError)
        self._connections = SqliteConnections(self.path, busy_timeout_seconds)
        self._next_purge = 0.0
        connection = self._connection()
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(_SCHEMA)
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None

    def _connection(self) -> sqlite3.Connection:
        try:
            return self._connections.get()
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None

    def put(self, record: ChallengeRecord, ttl_seconds: float) -> None:
        now = time.time()
        connection = self._connection()
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
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None

    def get(self, request_id: str) -> ChallengeRecord | None:
        try:
            row = (
                self._connection()
                .execute(
                    "SELECT record, claimed FROM signed_retry_challenges WHERE request_id = ?",
                    (request_id,),
                )
                .fetchone()
            )
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None
        if row is None:
            return None
        return ChallengeRecord.from_json(row[0], claimed=bool(row[1]))

    def claim(self, request_id: str, now_ms: int) -> bool:
        try:
            cursor = self._connection().execute(
                "UPDATE signed_retry_challenges SET claimed = 1 "
                "WHERE request_id = ? AND claimed = 0 AND expires_at_ms > ?",
                (request_id, now_ms),
            )
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None
        return cursor.rowcount == 1

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        self._connections.close()
