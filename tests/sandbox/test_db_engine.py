"""The sandbox's engine on PostgreSQL: a pooled connection that sat unused is tested before it
is handed out (``db.engine.PING_AFTER_IDLE_SECONDS``), so one the server dropped meanwhile (a
restart, an idle timeout) is replaced instead of failing the request that drew it; one in
steady use is not tested (the round trip would double a short request's). Single statements
(``reads()``, ``writes()``) run outside a transaction, on a pool of their own."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from _postgres_server import running_postgres
from embedded_wallet_crypto.sandbox.db import engine
from embedded_wallet_crypto.sandbox.db.engine import Database
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, OperationalError

_PID = text("SELECT pg_backend_pid()")


def _drop(dsn: str, pid: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))


@pytest.mark.parametrize("kind", ["reads", "loop_reads"])
def test_a_dropped_idle_connection_is_replaced_and_a_busy_one_is_not_pinged(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ``reads()`` (the pool's) and ``loop_reads()`` (the event loop's own connection,
    kept checked out between uses: the same backend twice in a row) are replaced after an
    idle second when the server dropped them; in steady use the dropped one fails the request
    that drew it, and the next gets a new one."""
    with running_postgres() as server:
        database = Database(server.dsn)
        connect = getattr(database, kind)
        try:
            with connect() as connection:
                pid = connection.execute(_PID).scalar()
            assert isinstance(pid, int)
            if kind == "loop_reads":
                with connect() as connection:
                    assert connection.execute(_PID).scalar() == pid  # kept
            _drop(server.dsn, pid)
            monkeypatch.setattr(engine, "PING_AFTER_IDLE_SECONDS", 0.0)  # it has idled
            with connect() as connection:
                replaced = connection.execute(_PID).scalar()
            assert isinstance(replaced, int) and replaced != pid

            # In steady use (returned less than the idle time ago) it is handed out as it is:
            # the dropped connection fails the request that drew it, and the pool recovers.
            monkeypatch.setattr(engine, "PING_AFTER_IDLE_SECONDS", 3600.0)
            _drop(server.dsn, replaced)
            with pytest.raises(OperationalError), connect() as connection:
                connection.execute(_PID)
            with connect() as connection:
                assert connection.execute(_PID).scalar() not in (pid, replaced)
        finally:
            database.dispose()


def _rows(dsn: str) -> int:
    with psycopg.connect(dsn) as other:
        row = other.execute("SELECT count(*) FROM ewc_engine_probe").fetchone()
        assert row is not None
        return int(row[0])


def test_single_statements_commit_on_their_own_and_sessions_in_one_transaction() -> None:
    """``reads()`` and ``writes()`` run each statement outside a transaction on PostgreSQL (a
    row written is seen by another connection before the block ends), on connections of their
    own pool; an ORM session's work stays in its transaction until the commit."""
    with running_postgres() as server:
        database = Database(server.dsn)
        try:
            with database.writes() as connection:
                connection.execute(text("CREATE TABLE ewc_engine_probe (n INTEGER)"))
                connection.execute(text("INSERT INTO ewc_engine_probe VALUES (1)"))
                assert _rows(server.dsn) == 1  # committed already
            with database.reads() as connection:
                assert connection.connection.driver_connection.autocommit is True
            with database.sessions() as db:
                db.execute(text("INSERT INTO ewc_engine_probe VALUES (2)"))
                assert _rows(server.dsn) == 1  # not yet: in the session's transaction
                db.commit()
            assert _rows(server.dsn) == 2
            with database.engine.connect() as connection:  # the transactions' pool as it was
                assert connection.connection.driver_connection.autocommit is False
        finally:
            database.dispose()


def test_writes_on_sqlite_commit_when_the_block_ends(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'probe.db'}")
    try:
        with database.writes() as connection:
            connection.execute(text("CREATE TABLE probe (n INTEGER)"))
            connection.execute(text("INSERT INTO probe VALUES (1)"))
        with database.reads() as connection:
            assert connection.execute(text("SELECT count(*) FROM probe")).scalar() == 1
    finally:
        database.dispose()


def test_a_database_error_never_shows_the_values_bound(tmp_path: Path) -> None:
    """A failed statement's message (which ends up in the service's log) names the statement but
    not the values bound to it: a row may hold a secret (a sealed key, a code's hash)."""
    database = Database(f"sqlite:///{tmp_path / 'probe.db'}")
    secret = "s3cr3t-value-that-must-not-be-logged"
    try:
        with database.writes() as connection:
            connection.execute(text("CREATE TABLE probe (n TEXT PRIMARY KEY)"))
            connection.execute(text("INSERT INTO probe VALUES (:n)"), {"n": secret})
        with pytest.raises(IntegrityError) as caught, database.writes() as connection:
            connection.execute(text("INSERT INTO probe VALUES (:n)"), {"n": secret})
        assert secret not in str(caught.value)
        assert "INSERT INTO probe" in str(caught.value)
    finally:
        database.dispose()
