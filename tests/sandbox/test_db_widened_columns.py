"""A PostgreSQL database made by an earlier release, whose quote and transaction ``status``
columns are ``VARCHAR(20)``, is widened when the service starts on it (so that
``PENDING_AUTHORIZATION``, 21 characters, is stored); starting again changes nothing."""

from __future__ import annotations

import pytest
from embedded_wallet_crypto.sandbox.db.engine import Database
from embedded_wallet_crypto.sandbox.db.tables_payments import STATUS_LENGTH
from sqlalchemy import inspect, text

from .conftest import postgres_database

TABLES = ("sandbox_quotes", "sandbox_transactions")


def _lengths(database: Database) -> list[int]:
    with database.engine.connect() as connection:
        found = []
        for table in TABLES:
            (status,) = (c for c in inspect(connection).get_columns(table) if c["name"] == "status")
            found.append(status["type"].length)
        return found


def test_the_status_columns_are_widened(request: pytest.FixtureRequest) -> None:
    database = Database(postgres_database(request, "widened"))
    try:
        database.create_tables()
        with database.engine.begin() as connection:  # the earlier release's columns
            for table in TABLES:
                narrow = f"ALTER TABLE {table} ALTER COLUMN status TYPE VARCHAR(20)"
                connection.execute(text(narrow))
        assert _lengths(database) == [20, 20]
        database.create_tables()
        assert _lengths(database) == [STATUS_LENGTH, STATUS_LENGTH]
        database.create_tables()  # again: nothing to alter
        assert _lengths(database) == [STATUS_LENGTH, STATUS_LENGTH]
    finally:
        database.dispose()
