"""The list envelope ``{data, hasMore, nextCursor, totalCount}`` of every list operation, with an
opaque ``offset:N`` cursor, limit 1 to 100, default 20."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from ._errors import ApiError

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "page"]

DEFAULT_LIMIT = 20
MAX_LIMIT = 100


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
        kind, _, number = text.partition(":")
        if kind != "offset" or not number.isdigit() or len(number) > 12:
            raise ValueError
        return int(number)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ApiError(400, "INVALID_INPUT", "The cursor is not one this service issued.") from None


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode().rstrip("=")


def page(
    session: Session,
    query: Select[Any],
    order: tuple[Any, ...],
    render: Callable[[Any], dict[str, Any]],
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> dict[str, Any]:
    """One page of ``query`` (rows of one entity) in ``order``, as the list envelope."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, "INVALID_INPUT", "limit must be between 1 and 100.")
    offset = _offset(cursor)
    total = session.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0
    rows = session.scalars(query.order_by(*order).offset(offset).limit(limit + 1)).all()
    has_more = len(rows) > limit
    body: dict[str, Any] = {
        "data": [render(row) for row in rows[:limit]],
        "hasMore": has_more,
        "totalCount": total,
    }
    if has_more:
        body["nextCursor"] = _cursor(offset + limit)
    return body
