"""Read what the service stored, straight from its database (the at-rest tests)."""

from __future__ import annotations

from typing import Any

from embedded_wallet_crypto.sandbox.db.engine import sqlalchemy_url
from sqlalchemy import create_engine, text

__all__ = ["stored_rows"]


def stored_rows(database: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """The rows ``sql`` selects from the service's database ``database`` (``--database``)."""
    engine = create_engine(sqlalchemy_url(database))
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql), params)]
    finally:
        engine.dispose()
