"""``SqliteStore`` for one-time codes: one row per credential in an SQLite file, shared by every
process on the host (it may be the same file as the signed-retry ``SqliteStore``'s).

An issue runs in a ``BEGIN IMMEDIATE`` transaction (read the counters, decide, write), so two
concurrent issues are serialised; an attempt is one ``UPDATE ... RETURNING`` that counts it only
while the code is unused, unexpired and below the limit; the consume is one ``UPDATE`` whose
rowcount says which caller won. WAL and ``busy_timeout`` as in the signed-retry store.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from .._store_backends import SqliteConnections, sqlite_file_path
from ..errors import OtpError
from ._records import (
    AttemptStatus,
    CodeState,
    IssueLimits,
    NewCode,
    attempt_status,
    issue_window,
    state_from_fields,
    store_unavailable,
)

__all__ = ["SqliteStore"]

_SELECT = (
    "SELECT code_hash, issue_id, expires_at_ms, attempts, used, window_start_ms, window_issues, "
    "last_issue_ms FROM otp_codes WHERE credential = ?"
)
_COUNT_ATTEMPT = (
    "UPDATE otp_codes SET attempts = attempts + 1 "
    "WHERE credential = ? AND used = 0 AND expires_at_ms > ? AND attempts < ? "
    "RETURNING code_hash, issue_id, expires_at_ms, attempts, used, window_start_ms, "
    "window_issues, last_issue_ms"
)
_SCHEMA = """
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


def _state(row: Any) -> CodeState | None:
    return None if row is None else state_from_fields(row)


class SqliteStore:
    """One-time codes in the SQLite database at ``path`` (created if needed); safe across
    threads (a connection per thread) and processes (opened lazily per process)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout_seconds: float = 10.0) -> None:
        self.path = sqlite_file_path(path, OtpError)
        self._connections = SqliteConnections(self.path, busy_timeout_seconds)
        try:
            connection = self._connection()
            connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(_SCHEMA)
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None

    def _connection(self) -> sqlite3.Connection:
        return self._connections.get()

    def issue(self, key: str, code: NewCode, now_ms: int, limits: IssueLimits) -> int:
        try:
            connection = self._connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute("DELETE FROM otp_codes WHERE forget_at_ms <= ?", (now_ms,))
                row = connection.execute(_SELECT, (key,)).fetchone()
                retry_after_ms, window_start_ms, window_issues = issue_window(
                    _state(row), now_ms, limits
                )
                if not retry_after_ms:
                    connection.execute(
                        "INSERT OR REPLACE INTO otp_codes VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?, ?)",
                        (
                            key,
                            code.code_hash,
                            code.issue_id,
                            code.expires_at_ms,
                            window_start_ms,
                            window_issues,
                            now_ms,
                            max(code.expires_at_ms, now_ms + limits.forget_after_ms),
                        ),
                    )
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None
        return retry_after_ms

    def attempt(
        self, key: str, now_ms: int, max_attempts: int
    ) -> tuple[AttemptStatus, CodeState | None]:
        try:
            connection = self._connection()
            row = connection.execute(_COUNT_ATTEMPT, (key, now_ms, max_attempts)).fetchone()
            if row is not None:
                return "ok", _state(row)
            row = connection.execute(_SELECT, (key,)).fetchone()
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None
        status = attempt_status(_state(row), now_ms, max_attempts)
        # "ok" here means the row changed between the two statements: report it as used up.
        return ("used" if status == "ok" else status), None

    def consume(self, key: str, issue_id: str) -> bool:
        try:
            cursor = self._connection().execute(
                "UPDATE otp_codes SET used = 1 WHERE credential = ? AND issue_id = ? AND used = 0",
                (key, issue_id),
            )
        except sqlite3.Error as problem:
            raise store_unavailable("SQLite", problem) from None
        return cursor.rowcount == 1

    def close(self) -> None:
        """Close this thread's connection."""
        self._connections.close()
