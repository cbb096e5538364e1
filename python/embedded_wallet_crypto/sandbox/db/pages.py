"""The one pager of every list: the envelope ``{data, hasMore, nextCursor, totalCount}``, ordered
by (``createdAt``, ``id``), paged by keyset, with one opaque cursor format.

The cursor names the last item of the page it came with (its creation time to the microsecond
and its id, as base64url of compact JSON), and the next page starts after that item in the
order asked for: items created meanwhile never shift a page, and no page is counted by offset.
``totalCount`` counts every match of the filters (before paging). A cursor this service did not
issue is 400 ``INVALID_INPUT``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Final

from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session

from ..domain.errors import invalid

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_CURSOR_LENGTH",
    "MAX_LIMIT",
    "PageRequest",
    "count_of",
    "decode_cursor",
    "encode_cursor",
    "keyset",
    "page",
    "page_of",
    "parse_limit",
    "parse_sort_order",
]

DEFAULT_LIMIT: Final = 20
MAX_LIMIT: Final = 100
#: The longest cursor accepted (every cursor this service issues is shorter).
MAX_CURSOR_LENGTH: Final = 300
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND: Final = timedelta(microseconds=1)


def parse_limit(value: str | int | None) -> int:
    """The page size: 1 to 100, default 20; else 400."""
    if value is None:
        return DEFAULT_LIMIT
    try:
        limit = int(value)
    except (TypeError, ValueError):
        limit = 0
    if isinstance(value, bool) or not 1 <= limit <= MAX_LIMIT or str(limit) != str(value).strip():
        raise invalid(f"limit must be an integer from 1 to {MAX_LIMIT}.")
    return limit


def parse_sort_order(value: str | None, default: str = "desc") -> str:
    """``asc`` or ``desc`` (``default`` when absent); else 400."""
    if value is None:
        return default
    if value not in ("asc", "desc"):
        raise invalid("sortOrder must be asc or desc.")
    return value


@dataclass(frozen=True)
class PageRequest:
    """Which page: its size, the cursor of the page before (None: the first), the order."""

    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    descending: bool = False

    @classmethod
    def of(cls, limit: str | int | None, cursor: str | None, sort_order: str | None) -> PageRequest:
        """The request of the query values ``limit``, ``cursor`` and ``sortOrder``, checked."""
        return cls(parse_limit(limit), cursor, parse_sort_order(sort_order) == "desc")

    def ordered(self, sort_order: str | None) -> PageRequest:
        """This page in the order ``sortOrder`` asks (``asc``, ``desc``; None: newest first)."""
        return replace(self, descending=parse_sort_order(sort_order) == "desc")


def encode_cursor(created: datetime, ident: str) -> str:
    """The cursor of the item created at ``created`` (aware) with id ``ident``."""
    micros = (created - _EPOCH) // _MICROSECOND
    raw = json.dumps([micros, ident], separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode("utf-8", "surrogatepass")).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The (creation time, id) a cursor names; 400 for a cursor this service did not issue."""
    try:
        if len(cursor) > MAX_CURSOR_LENGTH:
            raise ValueError
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        micros, ident = json.loads(raw)
        if isinstance(micros, bool) or not isinstance(micros, int) or not isinstance(ident, str):
            raise ValueError
        created = _EPOCH + micros * _MICROSECOND
        ident.encode("utf-8")  # a lone surrogate was never an id
    except (ValueError, TypeError, OverflowError, binascii.Error, UnicodeError):
        raise invalid("The cursor is not one this service issued.") from None
    return created, ident


def count_of(db: Session, query: Select[Any]) -> int:
    """How many rows ``query`` has (its order dropped)."""
    return db.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0


def keyset(query: Select[Any], table: Any, request: PageRequest) -> Select[Any]:
    """``query`` (rows of ``table``, which has ``created_at`` and ``id``) from after the
    request's cursor on, in the order asked, ``limit + 1`` rows: one more than the page, which
    says whether another page follows."""
    created, ident = table.created_at, table.id
    if request.cursor is not None:
        after_created, after_id = decode_cursor(request.cursor)
        if request.descending:
            query = query.where(
                or_(created < after_created, and_(created == after_created, ident < after_id))
            )
        else:
            query = query.where(
                or_(created > after_created, and_(created == after_created, ident > after_id))
            )
    order = (created.desc(), ident.desc()) if request.descending else (created.asc(), ident.asc())
    return query.order_by(None).order_by(*order).limit(request.limit + 1)


def page(
    db: Session,
    query: Select[Any],
    table: Any,
    render: Callable[[Any], dict[str, Any]],
    request: PageRequest,
) -> dict[str, Any]:
    """One page of ``query`` (the rows of ``table``, which has ``created_at`` and ``id``), each
    row rendered by ``render``, as the list envelope. Only the page's rows are rendered."""
    if not 1 <= request.limit <= MAX_LIMIT:
        raise invalid(f"limit must be an integer from 1 to {MAX_LIMIT}.")
    total = count_of(db, query)
    rows = db.scalars(keyset(query, table, request)).all()
    shown = rows[: request.limit]
    body: dict[str, Any] = {
        "data": [render(row) for row in shown],
        "hasMore": len(rows) > request.limit,
        "totalCount": total,
    }
    if body["hasMore"]:
        body["nextCursor"] = encode_cursor(shown[-1].created_at, shown[-1].id)
    return body


def page_of(
    items: list[tuple[str, dict[str, Any]]], request: PageRequest, total: int | None = None
) -> dict[str, Any]:
    """One page of a fixed list (the sandbox's directories), as the list envelope: ``items``
    are ``(key, body)`` with distinct keys, ordered by key; the cursor is the same keyset
    cursor as :func:`page` (the epoch and the last key)."""
    ordered = sorted(items, key=lambda item: item[0], reverse=request.descending)
    if request.cursor is not None:
        _, after = decode_cursor(request.cursor)
        ordered = [
            item for item in ordered if (item[0] < after if request.descending else item[0] > after)
        ]
    shown = ordered[: request.limit]
    body: dict[str, Any] = {
        "data": [item[1] for item in shown],
        "hasMore": len(ordered) > request.limit,
        "totalCount": len(items) if total is None else total,
    }
    if body["hasMore"]:
        body["nextCursor"] = encode_cursor(_EPOCH, shown[-1][0])
    return body
