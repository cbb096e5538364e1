"""What the SQLite and Redis stores need from their backends: the file-path check, one SQLite
connection per thread and per process, the SQLite error classification, and a Redis client with
the library's timeouts."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._records import (
    StoreError,
    store_config_invalid,
    store_corrupt,
    store_not_durable,
    store_unavailable,
)

if TYPE_CHECKING:
    import redis

__all__ = [
    "SqliteConnections",
    "postgres_failure",
    "postgres_module",
    "postgres_storable",
    "postgres_unstorable",
    "redis_client",
    "redis_durability_problem",
    "sqlite_failure",
    "sqlite_file_path",
]

# SQLite's primary result codes that mean the file itself is damaged (or is no database).
_SQLITE_CORRUPT = {11: "SQLITE_CORRUPT", 26: "SQLITE_NOTADB"}
# Their messages, for Pythons before 3.11, whose exceptions carry no result code.
_SQLITE_CORRUPT_MESSAGES = {
    "database disk image is malformed": "SQLITE_CORRUPT",
    "file is not a database": "SQLITE_NOTADB",
}


def checked_seconds(value: object, name: str, *, zero_allowed: bool, most: float = 86_400) -> float:
    """A configured duration: a real number (never a bool) in range, else ``TypeError`` or
    ``STORE_CONFIG_INVALID``; NaN, infinities and huge ints are out of range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if not ((0 <= value if zero_allowed else 0 < value) and value <= most):
        low = "from 0" if zero_allowed else "more than 0"
        raise store_config_invalid(f"{name} must be {low} up to {most:g} seconds")
    return float(value)


def sqlite_file_path(path: str | os.PathLike[str]) -> Path:
    """The database file; an in-memory database is refused, as it is private to one connection."""
    if str(path) in ("", ":memory:") or str(path).startswith("file::memory:"):
        raise store_config_invalid(
            "SqliteStore needs a file path; an in-memory database is private to one "
            "connection (use MemoryStore)"
        )
    text = str(path)
    if "\x00" in text or _has_surrogate(text):
        raise store_config_invalid("the SQLite path holds a NUL or a lone surrogate")
    return Path(path)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def sqlite_failure(problem: sqlite3.Error) -> StoreError:
    """``STORE_CORRUPT`` (500) when the file is damaged: retrying cannot help, an operator
    must; else ``STORE_UNAVAILABLE`` (503). The reason carries SQLite's error name."""
    code: int | None = getattr(problem, "sqlite_errorcode", None)
    name: str = getattr(problem, "sqlite_errorname", "")
    if code is None:
        name = _SQLITE_CORRUPT_MESSAGES.get(str(problem), "")
        corrupt = bool(name)
    else:
        corrupt = code & 0xFF in _SQLITE_CORRUPT
    if corrupt:
        return store_corrupt(f"the SQLite store's file is corrupt ({name})")
    return store_unavailable("SQLite", problem, name)


class SqliteConnections:
    """One connection per thread and per process, opened lazily, so that a forked child never
    reuses its parent's. Autocommit mode; ``busy_timeout`` makes a writer wait for the lock, and
    ``synchronous`` is set on each connection: ``FULL`` (the default) puts every commit on disk
    before it returns (the build's default may be NORMAL, which can lose the last commits in a
    power cut)."""

    def __init__(self, path: Path, busy_timeout_seconds: float, synchronous: str = "FULL") -> None:
        self.path = path
        seconds = checked_seconds(busy_timeout_seconds, "busy_timeout_seconds", zero_allowed=True)
        self._busy_timeout_ms = int(seconds * 1000)
        self.synchronous = synchronous
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
        try:
            connection.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")
            connection.execute(f"PRAGMA synchronous={self.synchronous}")
        except BaseException:
            connection.close()
            raise
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
    """A client for ``url`` and the exception types that mean the server is unavailable.

    A malformed URL is ``STORE_CONFIG_INVALID`` (500); the reason never repeats the URL, which
    may hold a password."""
    try:
        import redis
    except ImportError:
        raise ImportError(
            "RedisStore needs the redis package: pip install 'embedded-wallet-crypto[redis]'"
        ) from None
    if not isinstance(url, str):
        raise TypeError(f"RedisStore's url must be a str, not {type(url).__name__}")
    try:
        client = redis.Redis.from_url(
            url,
            socket_timeout=socket_timeout_seconds,
            socket_connect_timeout=socket_timeout_seconds,
        )
    except ValueError as problem:
        raise store_config_invalid(
            f"RedisStore needs a redis://, rediss:// or unix:// URL; this one is malformed "
            f"({type(problem).__name__})"
        ) from None
    return client, (redis.RedisError,)


_BEST_EFFORT = "pass durability='best-effort' to accept that"


def redis_durability_problem(client: Any, response_error: type[BaseException]) -> StoreError | None:
    """Why the server could forget a claim in a crash (``STORE_NOT_DURABLE``), or None.

    Durable means the append-only file on and ``appendfsync always``: every write is on disk
    before Redis answers. ``INFO persistence`` says whether AOF is on; ``CONFIG GET appendfsync``
    gives the policy. A server where ``CONFIG`` is disabled or renamed (common on managed Redis)
    cannot be checked, so it is refused too: the reason names the opt-out."""
    if str(client.info("persistence").get("aof_enabled", "0")) != "1":
        return store_not_durable(
            "RedisStore refuses a Redis without the append-only file (appendonly no): a crash "
            "forgets the latest claims, which could then be accepted again. Run Redis with "
            f"appendonly yes and appendfsync always, or {_BEST_EFFORT}"
        )
    try:
        reply = client.config_get("appendfsync")
    except response_error:
        return store_not_durable(
            "RedisStore cannot check appendfsync: CONFIG GET is disabled or renamed on this "
            "server. If you know it runs appendonly yes with appendfsync always, "
            f"{_BEST_EFFORT}"
        )
    policy = reply.get("appendfsync", reply.get(b"appendfsync", b""))
    policy = policy.decode() if isinstance(policy, bytes) else str(policy)
    if policy != "always":
        return store_not_durable(
            f"RedisStore refuses appendfsync {policy or 'unknown'}: a crash can forget up to "
            "a second of claims, which could then be accepted again. Set appendfsync always, "
            f"or {_BEST_EFFORT}"
        )
    return None


def postgres_module() -> Any:
    """psycopg 3, or an ImportError that names the extra."""
    try:
        import psycopg
    except ImportError:
        raise ImportError(
            "PostgresStore needs psycopg 3: pip install 'embedded-wallet-crypto[postgres]'"
        ) from None
    return psycopg


@contextmanager
def postgres_failure(psycopg: Any, local: threading.local) -> Iterator[None]:
    """psycopg's errors as :class:`StoreError`: ``STORE_CORRUPT`` (500) for SQLSTATE class XX
    (data or index corruption reported by the server), else ``STORE_UNAVAILABLE`` (503) with
    the exception type and SQLSTATE. A connection that broke (or may have: any operational
    error) is dropped, so the next call opens a new one."""
    try:
        yield
    except psycopg.Error as problem:
        cached = getattr(local, "connection", None)
        lost = isinstance(problem, (psycopg.OperationalError, psycopg.InterfaceError))
        if cached is not None and (lost or cached[1].broken or cached[1].closed):
            local.connection = None
            cached[1].close()
        sqlstate = str(getattr(problem, "sqlstate", "") or "")
        if sqlstate.startswith("XX"):
            raise store_corrupt(
                f"the PostgreSQL store reports corruption ({type(problem).__name__}, {sqlstate})"
            ) from None
        raise store_unavailable("PostgreSQL", problem, sqlstate) from None


def postgres_storable(text: str) -> bool:
    """Whether PostgreSQL can hold ``text``: no NUL and valid UTF-8 (no lone surrogates). Text
    that is not can never have been stored, so a lookup of it finds nothing."""
    if "\x00" in text:
        return False
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def postgres_unstorable() -> StoreError:
    return StoreError(
        "a store key is not text PostgreSQL can hold (it has a NUL character or a lone surrogate)",
        "STORE_KEY_INVALID",
        400,
    )
