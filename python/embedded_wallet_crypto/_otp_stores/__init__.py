"""One-time-code stores, the OTP members of the store family of ``ewc.signed_retry``: in memory
(one process), SQLite (processes on one host, survives restarts) and Redis (many hosts). Each
implements :class:`OtpStore`; they are public as ``ewc.otp.MemoryStore`` and so on."""

from __future__ import annotations

from ._memory import MemoryStore
from ._records import AttemptStatus, CodeState, IssueLimits, NewCode, OtpStore
from ._redis import RedisStore
from ._sqlite import SqliteStore

__all__ = [
    "AttemptStatus",
    "CodeState",
    "IssueLimits",
    "MemoryStore",
    "NewCode",
    "OtpStore",
    "RedisStore",
    "SqliteStore",
]
