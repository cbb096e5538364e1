"""The pages of a list from a hostile service, over real HTTP (``_hostile``): cursors that
cycle, cursors that grow without end, a ``data`` that is not a list; each is a typed error
after a bounded number of requests, in both clients."""

from __future__ import annotations

from typing import Any

import pytest
from embedded_wallet_crypto.client import ClientError
from embedded_wallet_crypto.client._groups import MAX_CURSOR

from ._hostile import Hostile, json_answer


def page(cursor: str | None, data: Any = ()) -> bytes:
    more = cursor is not None
    return json_answer(200, {"data": list(data), "hasMore": more, "nextCursor": cursor})


def _collect(client: Any, limit: int = 50) -> tuple[list[Any], ClientError | None]:
    pages: list[Any] = []
    try:
        for got in client.transactions.list.pages():
            pages.append(got)
            if len(pages) >= limit:
                break
    except ClientError as error:
        return pages, error
    return pages, None


def test_cursors_that_cycle_are_refused(hostile_client: Any, hostile: Hostile) -> None:
    hostile.script(*[page("A"), page("B"), page("C")] * 20)
    pages, error = _collect(hostile_client)
    assert error is not None and error.code == "RESPONSE_INVALID"
    assert "cursor" in error.reason
    # A, B, C, then A again: refused before it is followed twice (an async client's pages
    # are collected whole by the test's view, so only the sync one hands out the first four)
    assert len(hostile.seen) == 4 and len(pages) in (0, 4)


def test_cursors_that_grow_without_end_are_refused(hostile_client: Any, hostile: Hostile) -> None:
    hostile.script(*[page("c" * 2**size) for size in range(20)])
    pages, error = _collect(hostile_client)
    assert error is not None and error.code == "RESPONSE_INVALID"
    assert max(len(request) for request, _ in hostile.seen) < MAX_CURSOR + 200
    assert len(hostile.seen) < 20 and len(pages) in (0, len(hostile.seen))


def test_a_long_list_of_distinct_cursors_is_followed_to_its_end(
    hostile_client: Any, hostile: Hostile
) -> None:
    hostile.script(*[page(f"cursor-{n}") for n in range(30)], page(None))
    pages, error = _collect(hostile_client, limit=100)
    assert (len(pages), error) == (31, None)


@pytest.mark.parametrize(
    "body",
    [
        {"data": {"a": 1}, "hasMore": True, "nextCursor": "n"},
        {"data": None, "hasMore": False},
        {"data": [], "hasMore": True},
        {"data": [], "hasMore": True, "nextCursor": ""},
        {"data": [], "hasMore": True, "nextCursor": 5},
    ],
)
def test_a_page_that_is_not_the_envelope_is_refused(
    hostile_client: Any, hostile: Hostile, body: dict[str, Any]
) -> None:
    hostile.script(json_answer(200, body))
    _, error = _collect(hostile_client)
    assert error is not None and error.code == "RESPONSE_INVALID"
    assert len(hostile.seen) == 1
