"""Stores (``ewc.stores``): where the server keeps signed-retry challenges, one-time codes and
the second factors' state (TOTP steps, recovery codes).

One class per backend, each serving every protocol from one object, so a deployment opens one
store and hands it to ``SignedRetry``, ``OneTimeCodes``, ``totp.Totp`` and
``totp.RecoveryCodes`` alike:

- :class:`MemoryStore`: the default; one process, gone on restart.
- :class:`SqliteStore` ``(path)``: processes on one host, survives restarts; one file, four
  tables.
- :class:`RedisStore` ``(url)``: processes on many hosts; one client, four key prefixes (needs
  the ``redis`` extra); refuses a Redis that could lose claims in a crash unless told.
- :class:`PostgresStore` ``(dsn)``: processes on many hosts; four tables (needs the
  ``postgres`` extra, psycopg 3).

The same classes are public as ``ewc.signed_retry.MemoryStore`` and ``ewc.otp.MemoryStore``
(and so on). Each implements :class:`ChallengeStore` (``ewc.signed_retry.Store``),
:class:`CodeStore` (``ewc.otp.OtpStore``) and :class:`FactorStore` (``ewc.totp.FactorStore``); a
failing store raises :class:`StoreError`, which is a ``SignedRetryError``, an ``OtpError`` and a
``TotpError``.
"""

from __future__ import annotations

from ._factors import FactorStore
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
    "FactorStore",
    "IssueLimits",
    "IssueOutcome",
    "MemoryStore",
    "NewCode",
    "PostgresStore",
    "RedisStore",
    "SqliteStore",
    "StoreError",
]
