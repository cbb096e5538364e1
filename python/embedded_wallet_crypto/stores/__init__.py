"""Stores (``ewc.stores``): where the server keeps signed-retry challenges and one-time codes.

One class per backend, each serving both protocols from one object, so a deployment opens one
store and hands it to ``SignedRetry`` and ``OneTimeCodes`` alike:

- :class:`MemoryStore`: the default; one process, gone on restart.
- :class:`SqliteStore` ``(path)``: processes on one host, survives restarts; one file, two
  tables.
- :class:`RedisStore` ``(url)``: processes on many hosts; one client, two key prefixes (needs
  the ``redis`` extra); refuses a Redis that could lose claims in a crash unless told.
- :class:`PostgresStore` ``(dsn)``: processes on many hosts; two tables (needs the
  ``postgres`` extra, psycopg 3).

The same classes are public as ``ewc.signed_retry.MemoryStore`` and ``ewc.otp.MemoryStore``
(and so on). Each implements :class:`ChallengeStore` (``ewc.signed_retry.Store``) and
:class:`CodeStore` (``ewc.otp.OtpStore``); a failing store raises :class:`StoreError`, which is
both a ``SignedRetryError`` and an ``OtpError``.
"""

from __future__ import annotations

from ._records import (
    AttemptStatus,
    ChallengeRecord,
    ChallengeStore,
    CodeState,
    CodeStore,
    IssueLimits,
    IssueOutcome,
    NewCode,
    StoreError,
)
from .memory import MemoryStore
from .postgres import PostgresStore
from .redis import RedisStore
from .sqlite import SqliteStore

__all__ = [
    "AttemptStatus",
    "ChallengeRecord",
    "ChallengeStore",
    "CodeState",
    "CodeStore",
    "IssueLimits",
    "IssueOutcome",
    "MemoryStore",
    "NewCode",
    "PostgresStore",
    "RedisStore",
    "SqliteStore",
    "StoreError",
]
