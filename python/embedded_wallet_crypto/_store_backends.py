"""What the SQLite and Redis stores share, for signed retries and one-time codes alike: the
file-path check, one SQLite connection per thread and per process, and a Redis client with the
library's timeouts."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import WalletCryptoError

if TYPE_CHECKING:
    import redis

__all__ = ["SqliteConnections", "redis_client", "sqlite_file_path"]


def sqlite_file_path(path: str | os.PathLike[str], error: type[WalletCryptoError]) -> Path:
    """The database file; an in-memory database is refused, as it is private to one connection."""
    if str(path) in ("", ":memory:") or str(path).startswith("file::memory:"):
        raise error(
            "SqliteStore needs a file path; an in-memory database is private to one "
            "connection (use MemoryStore)",
            "STORE_CONFIG_INVALID",
            500,
        )
    return Path(path)


class SqliteConnections:
    """One connection per thread and per process, opened lazily, so that a forked child never
    reuses its parent's. Autocommit mode; ``busy_timeout`` makes a writer wait for the lock."""

    def __init__(self, path: Path, busy_timeout_seconds: float) -> None:
        self.path = path
        self._busy_timeout_ms = int(busy_timeout_seconds * 1000)
        self._local = threading.local()

    def get(self) -> sqlite3.Connection:
        """This thread's connection (raises ``sqlite3.Error`` when the file cannot be opened)."""
        pid = os.getpid()
        cached: tuple[int, sqlite3.Connection] | None = getattr(self._local, "connection", None)
        if cached is not None and cached[0] == pid:
            return cached[1]
        connection = sqlite3.connect(
            self.path, timeout=self._busy_timeout_ms / 1000, isolation_level=None
        )
        connection.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")
        self._local.connection = (pid, connection)
        return connection

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        cached: tuple[int, sqlite3.Connection] | None = getattr(self._local, "connection", None)
        if cached is not None:
            self._local.connection = None
            if cached[0] == os.getpid():
                cached[1].close()


def redis_client(
    url: str, socket_timeout_seconds: float
) -> tuple[redis.Redis, tuple[type[BaseException], ...]]:
    """A client for ``url`` and the exception types that mean the server is unavailable."""
    try:
        import redis
    except ImportError:
        raise ImportError(
            "RedisStore needs the redis package: pip install 'embedded-wallet-crypto[redis]'"
        ) from None
    client = redis.Redis.from_url(
        url, socket_timeout=socket_timeout_seconds, socket_connect_timeout=socket_timeout_seconds
    )
    return client, (redis.RedisError,)
