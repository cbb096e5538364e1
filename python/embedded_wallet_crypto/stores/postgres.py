"""``PostgresStore``: challenges and one-time codes in PostgreSQL, shared by every process on
every host that reaches the database; two tables, ``ewc_signed_retry_challenges`` and
``ewc_otp_codes`` (and the factors' two, ``ewc_totp_steps`` and ``ewc_recovery_codes``: see
``_factors``), created if missing.

A challenge's claim is one ``UPDATE ... WHERE NOT claimed AND expires_at_ms > %s``: PostgreSQL
locks the row, and a concurrent claim re-checks the condition on the committed row, so exactly
one claim changes it (rowcount 1). A code's issue runs in one transaction that first takes a
transaction-scoped advisory lock on the credential (a row lock cannot cover a row that does
not exist yet), then reads the server's clock (``clock_timestamp()``) and the counters, applies
:func:`issue_window` and writes. An attempt
is one ``UPDATE ... RETURNING``; a consume one ``UPDATE`` whose rowcount says who won.

Every statement commits before it returns, and the commit waits for its WAL record to reach
disk: the store raises ``synchronous_commit`` to ``on`` on its connections when the server's
default is ``off``, and (with ``durability="strict"``) refuses a server running ``fsync=off``.
A new challenge (``put``) alone commits without waiting for the disk (``SET LOCAL
synchronous_commit = off`` in its own transaction, one round trip): a crash may lose it, and
then its retry is refused as an unknown request id (the client asks again); nothing is granted
by a challenge until its claim, whose commit waits for the log up to and including it.
Synchronous replication (``synchronous_standby_names``) is the server's choice; with it, a
commit also waits for the standbys, and a failover keeps every claim.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Literal

from ._backends import (
    checked_seconds,
    postgres_failure,
    postgres_module,
)
from ._backends import postgres_storable as _storable
from ._backends import postgres_unstorable as _unstorable
from ._factors import POSTGRES_FACTOR_SCHEMA, PostgresFactors
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
    store_not_durable,
)

__all__ = ["PostgresStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ewc_signed_retry_challenges (
    request_id    TEXT PRIMARY KEY,
    record        TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    forget_at     DOUBLE PRECISION NOT NULL,
    claimed       BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX IF NOT EXISTS ewc_signed_retry_challenges_forget_at
    ON ewc_signed_retry_challenges (forget_at);
CREATE TABLE IF NOT EXISTS ewc_otp_codes (
    credential      TEXT PRIMARY KEY,
    code_hash       TEXT NOT NULL,
    issue_id        TEXT NOT NULL,
    expires_at_ms   BIGINT NOT NULL,
    attempts        INTEGER NOT NULL,
    used            INTEGER NOT NULL,
    window_start_ms BIGINT NOT NULL,
    window_issues   INTEGER NOT NULL,
    last_issue_ms   BIGINT NOT NULL,
    forget_at_ms    BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS ewc_otp_codes_forget_at ON ewc_otp_codes (forget_at_ms);
"""
# Serialises schema creation across processes (CREATE TABLE IF NOT EXISTS can race).
_SCHEMA_LOCK = 0x65776353  # "ewcS"
_PURGE_INTERVAL_SECONDS = 60.0  # how often ``put`` and ``issue`` drop forgotten rows

# The state's fields in CodeState order (``used`` is 0 or 1, as in the SQLite store).
_SELECT_CODE = (
    "SELECT code_hash, issue_id, expires_at_ms, attempts, used, window_start_ms, "
    "window_issues, last_issue_ms FROM ewc_otp_codes WHERE credential = %s"
)
_COUNT_ATTEMPT = (
    "UPDATE ewc_otp_codes SET attempts = attempts + 1 "
    "WHERE credential = %s AND used = 0 AND expires_at_ms > %s AND attempts < %s "
    "RETURNING code_hash, issue_id, expires_at_ms, attempts, used, window_start_ms, "
    "window_issues, last_issue_ms"
)
# The server's clock in milliseconds; clock_timestamp() is the time of the call (now() would be
# the start of the transaction, before the lock was granted).
_NOW_MS = "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
_WRITE_CODE = (
    "INSERT INTO ewc_otp_codes VALUES (%s, %s, %s, %s, 0, 0, %s, %s, %s, %s) "
    "ON CONFLICT (credential) DO UPDATE SET code_hash = EXCLUDED.code_hash, "
    "issue_id = EXCLUDED.issue_id, expires_at_ms = EXCLUDED.expires_at_ms, attempts = 0, "
    "used = 0, window_start_ms = EXCLUDED.window_start_ms, "
    "window_issues = EXCLUDED.window_issues, last_issue_ms = EXCLUDED.last_issue_ms, "
    "forget_at_ms = EXCLUDED.forget_at_ms"
)


def _state(row: Any) -> CodeState | None:
    return None if row is None else state_from_fields(row)


class PostgresStore(PostgresFactors):
    """Challenges and one-time codes in the PostgreSQL database at ``dsn`` (a libpq connection
    string or ``postgresql://`` URL; a ``search_path`` in its ``options`` picks the schema).

    Needs the optional ``postgres`` extra (psycopg 3: ``pip install
    embedded-wallet-crypto[postgres]``). One connection per thread and per process, opened
    lazily (a forked child never reuses its parent's) in autocommit mode; a connection that
    broke is replaced on the next call. Challenges are forgotten ``ttl_seconds`` after ``put``
    by wall-clock time.

    ``durability="strict"`` (the default) refuses a server running with ``fsync=off`` with
    ``STORE_NOT_DURABLE`` (500); ``"best-effort"`` accepts it. Errors are
    :class:`~embedded_wallet_crypto.stores.StoreError`: ``STORE_CONFIG_INVALID`` for a
    malformed DSN, ``STORE_CORRUPT`` for data corruption the server reports (SQLSTATE class
    XX), else ``STORE_UNAVAILABLE`` (503); reasons never repeat the DSN.
    """

    def __init__(
        self,
        dsn: str,
        *,
        durability: Literal["strict", "best-effort"] = "strict",
        connect_timeout_seconds: float = 10.0,
    ) -> None:
        self._psycopg = postgres_module()
        if not isinstance(dsn, str):
            raise TypeError(f"PostgresStore's dsn must be a str, not {type(dsn).__name__}")
        if durability not in ("strict", "best-effort"):
            raise store_config_invalid(
                "PostgresStore's durability must be 'strict' or 'best-effort'"
            )
        try:
            ports = str(self._psycopg.conninfo.conninfo_to_dict(dsn).get("port") or "5432")
            valid = all(p.isdigit() and 0 < int(p) < 65536 for p in ports.split(","))
        except self._psycopg.Error:
            valid = False
        if not valid:
            raise store_config_invalid(
                "PostgresStore needs a libpq connection string or a postgresql:// URL; "
                "this one is malformed"
            ) from None
        self._dsn = dsn
        self.durability = durability
        seconds = checked_seconds(
            connect_timeout_seconds, "connect_timeout_seconds", zero_allowed=False, most=3600
        )
        self._connect_timeout = max(1, round(seconds))
        self._local = threading.local()
        self._next_purge = 0.0
        with self._failures():
            connection = self._connection()
            if durability == "strict":
                fsync = connection.execute("SHOW fsync").fetchone()
                if fsync is not None and fsync[0] != "on":
                    raise store_not_durable(
                        "PostgresStore refuses a server running fsync=off: a crash can lose "
                        "committed claims. Turn fsync on, or pass durability='best-effort'"
                    )
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for statement in filter(str.strip, (_SCHEMA + POSTGRES_FACTOR_SCHEMA).split(";")):
                    connection.execute(statement)

    def _connection(self) -> Any:
        """This thread's open connection (a new one after a fork or a broken connection)."""
        pid = os.getpid()
        cached: tuple[int, Any] | None = getattr(self._local, "connection", None)
        if cached is not None and cached[0] == pid and not cached[1].closed:
            return cached[1]
        connection = self._psycopg.connect(
            self._dsn, autocommit=True, connect_timeout=self._connect_timeout
        )
        try:
            row = connection.execute("SHOW synchronous_commit").fetchone()
            if row is not None and row[0] == "off":
                connection.execute("SET synchronous_commit = on")
        except BaseException:
            connection.close()
            raise
        self._local.connection = (pid, connection)
        return connection

    def _failures(self) -> Any:
        return postgres_failure(self._psycopg, self._local)

    # --- signed-retry challenges (ChallengeStore) -----------------------------------------

    def put(self, record: ChallengeRecord, ttl_seconds: float) -> None:
        now = time.time()
        text = record.to_json()
        if not (_storable(record.request_id) and _storable(text)):
            raise _unstorable()
        with self._failures():
            connection = self._connection()
            # One round trip, one implicit transaction (several statements in one simple
            # query), its commit not waiting for the disk (see the module): fails closed.
            statements = ["SET LOCAL synchronous_commit = off"]
            parameters: list[Any] = []
            if now >= self._next_purge:
                self._next_purge = now + _PURGE_INTERVAL_SECONDS
                statements.append("DELETE FROM ewc_signed_retry_challenges WHERE forget_at <= %s")
                parameters.append(now)
            statements.append(
                "INSERT INTO ewc_signed_retry_challenges "
                "(request_id, record, expires_at_ms, forget_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (request_id) DO NOTHING"
            )
            parameters += [record.request_id, text, record.expires_at_ms, now + ttl_seconds]
            cursor = self._psycopg.ClientCursor(connection)
            cursor.execute("; ".join(statements), parameters)
            while cursor.nextset():  # to the INSERT's result, the last
                pass
            inserted = cursor.rowcount == 1
        if not inserted:
            raise request_id_conflict(record.request_id)

    def get(self, request_id: str) -> ChallengeRecord | None:
        if not _storable(request_id):
            return None
        with self._failures():
            row = (
                self._connection()
                .execute(
                    "SELECT record, claimed FROM ewc_signed_retry_challenges WHERE request_id = %s",
                    (request_id,),
                )
                .fetchone()
            )
        if row is None:
            return None
        return ChallengeRecord.from_json(row[0], claimed=bool(row[1]))

    def claim(self, request_id: str, now_ms: int) -> bool:
        if not _storable(request_id):
            return False
        with self._failures():
            cursor = self._connection().execute(
                "UPDATE ewc_signed_retry_challenges SET claimed = TRUE "
                "WHERE request_id = %s AND NOT claimed AND expires_at_ms > %s",
                (request_id, now_ms),
            )
            return bool(cursor.rowcount == 1)

    # --- one-time codes (CodeStore) -------------------------------------------------------

    def issue(
        self, key: str, code: NewCode, now_ms: int | None, limits: IssueLimits
    ) -> IssueOutcome:
        if not (_storable(key) and _storable(code.code_hash) and _storable(code.issue_id)):
            raise _unstorable()
        with self._failures():
            connection = self._connection()
            if time.time() >= self._next_purge:
                self._next_purge = time.time() + _PURGE_INTERVAL_SECONDS
                connection.execute(
                    "DELETE FROM ewc_otp_codes WHERE forget_at_ms <= %s",
                    (time.time_ns() // 1_000_000 if now_ms is None else now_ms,),
                )
            with connection.transaction():
                connection.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("ewc-otp:" + key,)
                )
                if now_ms is None:  # holding the credential's lock: when this takes effect
                    clock = connection.execute(_NOW_MS).fetchone()
                    now_ms = int(clock[0])
                row = connection.execute(_SELECT_CODE, (key,)).fetchone()
                outcome, written, forget_at_ms = decide_issue(_state(row), code, now_ms, limits)
                if written is not None:
                    connection.execute(
                        _WRITE_CODE,
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
        return outcome

    def attempt(
        self, key: str, now_ms: int, max_attempts: int
    ) -> tuple[AttemptStatus, CodeState | None]:
        if not _storable(key):
            return "not_issued", None
        with self._failures():
            connection = self._connection()
            row = connection.execute(_COUNT_ATTEMPT, (key, now_ms, max_attempts)).fetchone()
            if row is not None:
                return "ok", _state(row)
            row = connection.execute(_SELECT_CODE, (key,)).fetchone()
        status = attempt_status(_state(row), now_ms, max_attempts)
        # "ok" here means the row changed between the two statements: report it as used up.
        return ("used" if status == "ok" else status), None

    def consume(self, key: str, issue_id: str) -> bool:
        if not (_storable(key) and _storable(issue_id)):
            return False
        with self._failures():
            cursor = self._connection().execute(
                "UPDATE ewc_otp_codes SET used = 1 "
                "WHERE credential = %s AND issue_id = %s AND used = 0",
                (key, issue_id),
            )
            return bool(cursor.rowcount == 1)

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        cached: tuple[int, Any] | None = getattr(self._local, "connection", None)
        if cached is not None:
            self._local.connection = None
            if cached[0] == os.getpid():
                cached[1].close()
