"""Text columns made wider since an earlier release created their table: on PostgreSQL
(which enforces a ``VARCHAR``'s length; SQLite does not) an existing column is altered to
the width of the model. Widening a ``VARCHAR`` changes no row."""

from __future__ import annotations

from typing import cast

from sqlalchemy import Connection, String, Table, inspect

from . import tables_payments

__all__ = ["widen_columns"]

#: ``(table, column)`` whose ``String`` length grew.
_WIDENED: tuple[tuple[Table, str], ...] = (
    (cast(Table, tables_payments.Quote.__table__), "status"),
    (cast(Table, tables_payments.Transaction.__table__), "status"),
)


def widen_columns(connection: Connection) -> None:
    """Alter each column of :data:`_WIDENED` narrower in the database than in the model
    (PostgreSQL only; in the caller's transaction, under its lock)."""
    if connection.dialect.name != "postgresql":
        return
    quote = connection.dialect.identifier_preparer.quote
    for table, name in _WIDENED:
        wanted = cast(String, table.c[name].type).length
        found = {c["name"]: c["type"] for c in inspect(connection).get_columns(table.name)}
        length = getattr(found.get(name), "length", None)
        if wanted is None or length is None or length >= wanted:
            continue
        connection.exec_driver_sql(
            f"ALTER TABLE {quote(table.name)} ALTER COLUMN {quote(name)} TYPE VARCHAR({wanted})"
        )
