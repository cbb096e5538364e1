"""Challenge stores: in memory (one process), SQLite (processes on one host, survives restarts)
and Redis (processes on many hosts). Each implements ``signed_retry.Store``."""

from __future__ import annotations

from ._memory import MemoryStore
from ._redis import RedisStore
from ._sqlite import SqliteStore

__all__ = ["MemoryStore", "RedisStore", "SqliteStore"]
