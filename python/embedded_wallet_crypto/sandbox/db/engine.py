"""The engine: SQLAlchemy 2 on SQLite (WAL) or PostgreSQL (psycopg 3), its sessions (one
transaction per request), the tables' creation, and the row lock of a decision."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, Engine, Table, create_engine, event, inspect, update
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry
from sqlalchemy.schema import CreateIndex

from . import (
    tables_agents,
    tables_cards,
    tables_control,
    tables_customer_ops,
    tables_delegated,
    tables_events,
    tables_kyc,
    tables_payments,
    tables_platform,
    tables_sca,
    tables_wallet,
)
from .base import Base
from .widened_columns import widen_columns

__all__ = ["Database", "lock", "sqlalchemy_url"]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: The table modules: every table is on :class:`~.base.Base` once they are imported.
TABLES = (
    tables_wallet,
    tables_payments,
    tables_agents,
    tables_platform,
    tables_kyc,
    tables_events,
    tables_customer_ops,
    tables_control,
    tables_sca,
    tables_delegated,
    tables_cards,
)


def sqlalchemy_url(database: str) -> str:
    """The SQLAlchemy URL for ``--database``: ``postgresql://`` runs on psycopg 3.

    Raises:
        ValueError: neither ``sqlite:///PATH`` nor ``postgresql://...``.
    """
    if database.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + database.split("://", 1)[1]
    if database.startswith("postgresql+psycopg://"):
        return database
    if database.startswith("sqlite:///") and len(database) > len("sqlite:///"):
        return database
    raise ValueError("--database must be sqlite:///PATH or postgresql://...")


def _sqlite_pragmas(connection: Any, _: Any) -> None:
    """WAL, ``synchronous=NORMAL`` (a commit does not wait for the disk: a crash of the service
    loses nothing, a power cut can lose the last commits; the signed-retry store in the same
    file runs the same way), the lock wait and the foreign keys."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _close_quietly(connection: Connection) -> None:
    """Close ``connection`` (back to its pool), whatever state its database left it in."""
    try:
        connection.close()
    except Exception:  # a dropped connection: the pool discards it
        connection.invalidate()


def _sqlite_engine(url: Any, **pool: int) -> Engine:
    """An engine on the SQLite file of ``url`` (its pragmas, NUL refused); ``pool``: the
    pool's size arguments (SQLAlchemy's default pool without)."""
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": 10},
        hide_parameters=True,  # a database error's message never shows a row's values
        **pool,
    )
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "before_cursor_execute", _refuse_nul, retval=True)
    return engine


def _refuse_nul(
    _connection: Any,
    _cursor: Any,
    statement: str,
    parameters: Any,
    _context: Any,
    executemany: bool,
) -> tuple[str, Any]:
    """Text with a NUL character is refused on SQLite as PostgreSQL refuses it, so that both
    backends answer such a request alike (400, see ``sandbox.errors``) instead of SQLite
    storing it or looking it up."""
    for row in parameters if executemany else (parameters,):
        for value in row.values() if isinstance(row, dict) else row:
            if isinstance(value, str) and "\x00" in value:
                raise sqlite3.DataError("text cannot contain NUL (0x00) characters")
    return statement, parameters


#: A pooled PostgreSQL connection that sat unused this long is tested (``SELECT 1``) before it
#: is handed out, and replaced if the server dropped it (a restart, an idle timeout). One in
#: steady use is not: that round trip would double a short request's.
PING_AFTER_IDLE_SECONDS = 1.0


def _returned(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
    record.info["returned_at"] = time.monotonic()


def _ping_if_idle(dialect: Dialect) -> Callable[[Any, ConnectionPoolEntry, Any], None]:
    """The pool's ``checkout`` listener: the ping of :data:`PING_AFTER_IDLE_SECONDS`."""

    def checkout(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        returned = record.info.get("returned_at")
        if returned is None or time.monotonic() - returned < PING_AFTER_IDLE_SECONDS:
            return  # new, or in steady use
        try:
            alive = dialect.do_ping(dbapi_connection)
        except Exception:
            alive = False
        if not alive:  # the pool discards it and hands out a new connection
            raise DisconnectionError("the pooled connection was dropped")

    return checkout


class Database:
    """The engine and session factory for one ``--database`` URL."""

    def __init__(self, database: str) -> None:
        url = make_url(sqlalchemy_url(database))
        self.url = database
        self.is_sqlite = url.get_backend_name() == "sqlite"
        self.sqlite_path: Path | None = None
        if self.is_sqlite:
            if url.database in (None, "", ":memory:"):
                raise ValueError("--database sqlite:///PATH needs a file path")
            self.sqlite_path = Path(url.database).resolve()
            self.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = _sqlite_engine(url)
            self._loop = _sqlite_engine(url, pool_size=1, max_overflow=0)
        else:
            try:
                import psycopg  # noqa: F401
            except ImportError:
                raise ImportError(
                    "a postgresql:// database needs psycopg 3: "
                    "pip install 'embedded-wallet-crypto[postgres]'"
                ) from None
            self.engine = create_engine(url, pool_size=10, max_overflow=20, hide_parameters=True)
            # The statements outside a transaction (reads(), writes()) get a pool of their own
            # whose connections are in autocommit from the start: switching a pooled
            # connection to AUTOCOMMIT and back at each checkout cost more than the statement.
            self._autocommit = create_engine(
                url,
                pool_size=5,
                max_overflow=20,
                isolation_level="AUTOCOMMIT",
                pool_reset_on_return=None,  # no transaction is ever left open to roll back
                hide_parameters=True,
            )
            self._loop = create_engine(
                url,
                pool_size=1,
                max_overflow=0,
                isolation_level="AUTOCOMMIT",
                pool_reset_on_return=None,
                hide_parameters=True,
            )
            for engine in (self.engine, self._autocommit, self._loop):
                event.listen(engine, "checkin", _returned)
                event.listen(engine, "checkout", _ping_if_idle(engine.dialect))
        self._loop_held: Connection | None = None
        self._loop_used = 0.0
        self._loop_lock = threading.Lock()
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        # SQLite's driver begins no transaction for a SELECT: the engine as it is.
        if self.is_sqlite:
            self._autocommit = self.engine

    def reads(self) -> Connection:
        """A connection for a request that only reads, each statement atomic on its own (no
        transaction around them: no ``BEGIN``, ``COMMIT`` or ``ROLLBACK`` round trips). Close
        it (``with``) before slow work: it holds one of the pool's connections."""
        return self._autocommit.connect()

    @contextmanager
    def loop_reads(self) -> Iterator[Connection]:
        """The event loop's own connection, for the few statements a request runs on the loop
        (the control plane's read, a wallet export's reads): never waited for, as no worker
        thread uses it, and each statement atomic on its own like :meth:`reads`. It stays
        checked out between uses; one idle for :data:`PING_AFTER_IDLE_SECONDS` goes back to
        its pool, which tests it on the next checkout, and one that failed is dropped. Meant
        for the event loop's thread, and never to be held across an ``await``; a lock keeps a
        second event loop on the same database (two in-process test clients) from sharing the
        connection at once."""
        with self._loop_lock:
            yield from self._loop_connection()

    def _loop_connection(self) -> Iterator[Connection]:
        held = self._loop_held
        if held is not None and time.monotonic() - self._loop_used > PING_AFTER_IDLE_SECONDS:
            self._loop_held = None
            _close_quietly(held)
            held = None
        if held is None:
            held = self._loop_held = self._loop.connect()
        try:
            yield held
        except DBAPIError:
            self._loop_held = None
            _close_quietly(held)
            raise
        finally:
            self._loop_used = time.monotonic()

    @contextmanager
    def writes(self) -> Iterator[Connection]:
        """A connection for a few independent writes (a log's lines, a trim): on PostgreSQL
        each statement commits on its own (no ``BEGIN`` or ``COMMIT`` round trips); on SQLite
        they run in one transaction, committed when the block ends."""
        if self.is_sqlite:
            with self.engine.begin() as connection:
                yield connection
        else:
            with self._autocommit.connect() as connection:
                yield connection

    @property
    def postgres_dsn(self) -> str | None:
        """The libpq URL of a PostgreSQL database (for the library's PostgresStore)."""
        if self.is_sqlite:
            return None
        return "postgresql://" + sqlalchemy_url(self.url).split("://", 1)[1]

    def create_tables(self) -> None:
        """Create every table of ``Base`` that does not exist yet, and the unique indexes added
        since a table was made (safe from several processes)."""
        if self.is_sqlite:
            Base.metadata.create_all(self.engine)
            with self.engine.connect() as connection:
                _added_indexes(connection)
                _added_columns(connection)
            return
        # Two processes starting on one PostgreSQL database: one creates, the other waits.
        with self.engine.begin() as connection:
            connection.exec_driver_sql("SELECT pg_advisory_xact_lock(7215300415)")
            Base.metadata.create_all(connection)
            _added_indexes(connection)
            _added_columns(connection)
            widen_columns(connection)

    def dispose(self) -> None:
        if self._loop_held is not None:
            _close_quietly(self._loop_held)
            self._loop_held = None
        self.engine.dispose()
        self._loop.dispose()
        if self._autocommit is not self.engine:
            self._autocommit.dispose()


def _added_indexes(connection: Connection) -> None:
    """The unique indexes of tables an earlier release made without them. A database whose
    rows already break one keeps working without it (logged): nothing is deleted."""
    for index in (tables_wallet.CUSTOMER_PLATFORM_ID,):
        try:
            with connection.begin_nested() if connection.in_transaction() else connection.begin():
                connection.execute(CreateIndex(index, if_not_exists=True))
        except IntegrityError:
            logger.warning("%s not made: existing rows break it", index.name)


#: Nullable columns added to a table since an earlier release made it: ``(table, column)``.
_ADDED_COLUMNS: tuple[tuple[Table, str], ...] = (
    (cast(Table, tables_wallet.InternalAccount.__table__), "private_enabled"),
)


def _added_columns(connection: Connection) -> None:
    """Add the columns of :data:`_ADDED_COLUMNS` to a table an earlier release made without
    them (each nullable, so existing rows keep their meaning)."""
    for table, name in _ADDED_COLUMNS:
        present = {column["name"] for column in inspect(connection).get_columns(table.name)}
        if name in present:
            continue
        column = table.c[name]
        kind = column.type.compile(dialect=connection.dialect)
        quote = connection.dialect.identifier_preparer.quote
        try:
            with connection.begin_nested() if connection.in_transaction() else connection.begin():
                connection.exec_driver_sql(
                    f"ALTER TABLE {quote(table.name)} ADD COLUMN {quote(name)} {kind}"
                )
        except DBAPIError:  # another process (SQLite: no lock around this) added it first
            if name not in {c["name"] for c in inspect(connection).get_columns(table.name)}:
                raise


def lock(db: Session, instance: Any) -> None:
    """Lock ``instance``'s row until ``db``'s transaction ends, then reload it, so that of
    concurrent requests deciding on one row each sees what the previous one committed.

    ``SELECT ... FOR UPDATE`` does nothing on SQLite (and its reads take no lock), so a no-op
    UPDATE of the row takes the lock instead: the row lock on PostgreSQL, the database's write
    lock on SQLite.
    """
    mapper = inspect(instance).mapper
    (key,) = mapper.primary_key  # the tables locked have a one-column key
    (identity,) = mapper.primary_key_from_instance(instance)
    db.execute(update(mapper.local_table).where(key == identity).values({key: key}))
    db.refresh(instance)
