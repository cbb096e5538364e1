"""The sandbox's list queries as plain functions: the limit, the sort order and the date
filters parsed, and pages over a real (SQLite) table: every item once in either order, and
garbage cursors refused."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from embedded_wallet_crypto.sandbox import clock
from embedded_wallet_crypto.sandbox.db import pages
from embedded_wallet_crypto.sandbox.db.base import UtcDateTime
from embedded_wallet_crypto.sandbox.domain import errors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Integer, String, create_engine, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from ._rules import T0, UTC

# --- list queries ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "101", "-1", "abc", "1.5", "", " 5x"])
def test_parse_limit_refuses(value: str) -> None:
    with pytest.raises(errors.Refusal):
        pages.parse_limit(value)


def test_parse_limit_and_sort_order() -> None:
    assert pages.parse_limit(None) == 20
    assert pages.parse_limit("1") == 1 and pages.parse_limit("100") == 100
    assert pages.parse_sort_order(None) == "desc"
    assert pages.parse_sort_order("asc") == "asc"
    with pytest.raises(errors.Refusal):
        pages.parse_sort_order("up")


def test_parse_datetime() -> None:
    assert clock.parse_datetime("2026-01-02T03:04:05Z", "d") == datetime(
        2026, 1, 2, 3, 4, 5, tzinfo=UTC
    )
    assert clock.parse_datetime("2026-01-02", "d") == datetime(2026, 1, 2, tzinfo=UTC)
    assert clock.parse_datetime(None, "d") is None
    for bad in ("yesterday", "2026-13-01", "\x00"):
        with pytest.raises(errors.Refusal):
            clock.parse_datetime(bad, "startDate")


class _Base(DeclarativeBase):
    pass


class _Item(_Base):
    """A listed resource: its creation time (every three share one) and its id."""

    __tablename__ = "items"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    n: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """A database of 30 items, ``Transaction:000`` to ``Transaction:029``."""
    engine = create_engine(f"sqlite:///{tmp_path_factory.mktemp('pages') / 'pages.db'}")
    _Base.metadata.create_all(engine)
    with Session(engine) as db:
        db.add_all(
            _Item(id=f"Transaction:{n:03d}", n=n, created_at=T0 + timedelta(minutes=n // 3))
            for n in range(30)
        )
        db.commit()
        yield db
    engine.dispose()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    count=st.integers(0, 30),
    limit=st.integers(1, 7),
    order=st.sampled_from(["asc", "desc"]),
)
def test_pages_cover_everything_once(listed: Session, count: int, limit: int, order: str) -> None:
    query = select(_Item).where(_Item.n < count)
    seen: list[str] = []
    cursor = None
    while True:
        request = pages.PageRequest(limit, cursor).ordered(order)
        body = pages.page(listed, query, _Item, lambda item: {"id": item.id}, request)
        assert body["totalCount"] == count
        assert len(body["data"]) <= limit
        seen += [i["id"] for i in body["data"]]
        if not body["hasMore"]:
            assert "nextCursor" not in body
            break
        cursor = body["nextCursor"]
    expected = [f"Transaction:{n:03d}" for n in range(count)]
    assert seen == (expected if order == "asc" else expected[::-1])


def test_cursor_refuses_garbage(listed: Session) -> None:
    for bad in ("!!", "bm90IGpzb24", "WyJ4IiwxXQ", "x" * 400):
        with pytest.raises(errors.Refusal):
            pages.page(listed, select(_Item), _Item, dict, pages.PageRequest(1, bad))
