"""A database made by an earlier release, whose ``sandbox_internal_accounts`` has no
``private_enabled`` column (wallet privacy), gets the column when the service starts on it, on
SQLite and on PostgreSQL; starting again changes nothing, and its rows read as privacy off."""

from __future__ import annotations

from pathlib import Path

import pytest
from embedded_wallet_crypto.sandbox.db.engine import Database
from sqlalchemy import inspect, text

from .conftest import database_url

TABLE = "sandbox_internal_accounts"


def _columns(database: Database) -> set[str]:
    with database.engine.connect() as connection:
        return {column["name"] for column in inspect(connection).get_columns(TABLE)}


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_column_is_added_to_an_earlier_database(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = database_url(request, backend, "columns") or f"sqlite:///{tmp_path / 'earlier.db'}"
    database = Database(url)
    try:
        database.create_tables()
        with database.engine.begin() as connection:  # the earlier release's table
            connection.execute(text(f"ALTER TABLE {TABLE} DROP COLUMN private_enabled"))
        assert "private_enabled" not in _columns(database)
        database.create_tables()
        assert "private_enabled" in _columns(database)
        database.create_tables()  # again: nothing to add
        assert "private_enabled" in _columns(database)
    finally:
        database.dispose()
