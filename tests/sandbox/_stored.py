"""Read (and, to plant a row, write) what the service stored, straight from its database (the
at-rest tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from embedded_wallet_crypto.sandbox.db.engine import sqlalchemy_url
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

__all__ = ["everything_stored", "store", "stored_rows"]


def stored_rows(database: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """The rows ``sql`` selects from the service's database ``database`` (``--database``)."""
    engine = create_engine(sqlalchemy_url(database))
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql), params)]
    finally:
        engine.dispose()


def store(database: str, sql: str, **params: Any) -> int:
    """Run the write ``sql`` on ``database`` (committed); the number of rows it changed."""
    engine = create_engine(sqlalchemy_url(database))
    try:
        with engine.begin() as connection:
            return connection.execute(text(sql), params).rowcount
    finally:
        engine.dispose()


def everything_stored(database: str) -> str:
    """Every row of every table of ``database`` as text and, on SQLite, the bytes of its files
    (the database, its write-ahead log) decoded as Latin-1: what a dump or a copy shows."""
    engine = create_engine(sqlalchemy_url(database))
    try:
        with engine.connect() as connection:
            names = inspect(connection).get_table_names()
            rows = [
                repr(tuple(row))
                for name in names
                for row in connection.execute(text(f'SELECT * FROM "{name}"'))
            ]
    finally:
        engine.dispose()
    files = []
    if database.startswith("sqlite:///"):
        path = Path(str(make_url(database).database))
        for suffix in ("", "-wal", "-shm"):
            found = path.with_name(path.name + suffix)
            if found.exists():
                files.append(found.read_bytes().decode("latin-1"))
    return "\n".join(rows + files)
