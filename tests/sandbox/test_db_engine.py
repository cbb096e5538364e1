"""The sandbox's engine on PostgreSQL: a pooled connection that sat unused is tested before it
is handed out (``db.engine.PING_AFTER_IDLE_SECONDS``), so one the server dropped meanwhile (a
restart, an idle timeout) is replaced instead of failing the request that drew it; one in
steady use is not tested (the round trip would double a short request's)."""

from __future__ import annotations

import psycopg
import pytest
from _postgres_server import running_postgres
from embedded_wallet_crypto.sandbox.db import engine
from embedded_wallet_crypto.sandbox.db.engine import Database
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

_PID = text("SELECT pg_backend_pid()")


def _drop(dsn: str, pid: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))


def test_a_dropped_idle_connection_is_replaced_and_a_busy_one_is_not_pinged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with running_postgres() as server:
        database = Database(server.dsn)
        try:
            with database.reads() as connection:
                pid = connection.execute(_PID).scalar()
            assert isinstance(pid, int)
            _drop(server.dsn, pid)
            monkeypatch.setattr(engine, "PING_AFTER_IDLE_SECONDS", 0.0)  # it has idled
            with database.reads() as connection:
                replaced = connection.execute(_PID).scalar()
            assert isinstance(replaced, int) and replaced != pid

            # In steady use (returned less than the idle time ago) it is handed out as it is:
            # the dropped connection fails the request that drew it, and the pool recovers.
            monkeypatch.setattr(engine, "PING_AFTER_IDLE_SECONDS", 3600.0)
            _drop(server.dsn, replaced)
            with pytest.raises(OperationalError), database.reads() as connection:
                connection.execute(_PID)
            with database.reads() as connection:
                assert connection.execute(_PID).scalar() not in (pid, replaced)
        finally:
            database.dispose()
