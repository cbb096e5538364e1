"""The operations of the table bound to a client, in their groups (``client.quotes.execute``),
sync and async, and what both share: query parameters, pages, a client's settings with an
agent's token."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Iterable, Iterator, Mapping
from typing import Any, Generic, Protocol, TypeVar

from ._answers import page_field
from ._errors import ClientError
from ._flows import Flow, operation_flow
from ._operations import Operation, operations_of
from ._results import AgentCredentials
from ._wire import ClientConfig, bearer

__all__ = [
    "AsyncGroup",
    "AsyncListOperation",
    "AsyncOperation",
    "SyncGroup",
    "SyncListOperation",
    "SyncOperation",
    "with_agent",
]

T = TypeVar("T")


class _SyncRunner(Protocol):
    def _run(self, flow: Flow[T]) -> T: ...


class _AsyncRunner(Protocol):
    def _run(self, flow: Flow[T]) -> Awaitable[T]: ...


def query(params: Mapping[str, Any] | None, keywords: Mapping[str, Any]) -> dict[str, Any] | None:
    """The query parameters of ``params=`` and of the call's other keywords together."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping, not {type(params).__name__}")
    if not params and not keywords:
        return None
    return {**(params or {}), **keywords}


def _page_data(op: Operation, page: Any) -> list[Any]:
    data = page_field(page, "data")
    if not isinstance(data, list):
        raise ClientError(
            f"{op.qualified_name} answered a page that is not a list envelope",
            "RESPONSE_INVALID",
        )
    return list(data)


#: The longest ``nextCursor`` the client follows (the cursor goes into the next URL).
MAX_CURSOR = 4096


def next_cursor(op: Operation, page: Any, seen: set[str]) -> str | None:
    """The cursor of the page after ``page``, or None after the last one; ``seen`` holds the
    cursors followed so far (the new one is added).

    Raises:
        ClientError: ``RESPONSE_INVALID`` for a page that is not the list envelope, one that
            says there is more without a new cursor (a cursor followed before: the pages
            would cycle forever), or a cursor longer than :data:`MAX_CURSOR`.
    """
    _page_data(op, page)
    if not page_field(page, "hasMore"):
        return None
    following = page_field(page, "nextCursor")
    if not isinstance(following, str) or not following or following in seen:
        raise ClientError(
            f"{op.qualified_name} says hasMore without a new nextCursor (a cursor it gave "
            "before, or none)",
            "RESPONSE_INVALID",
        )
    if len(following) > MAX_CURSOR:
        raise ClientError(
            f"{op.qualified_name} gave a nextCursor longer than {MAX_CURSOR} characters",
            "RESPONSE_INVALID",
        )
    seen.add(following)
    return following


def with_agent(settings: ClientConfig, agent_token: str | AgentCredentials) -> ClientConfig:
    """``settings`` with the agent's Bearer token (the platform credentials stay)."""
    token = agent_token.access_token if isinstance(agent_token, AgentCredentials) else agent_token
    return dataclasses.replace(settings, agent_authorization=bearer(token))


ClientT = TypeVar("ClientT")
#: What an operation returns (its row's ``response_model``).
R = TypeVar("R")
#: A list operation's page and item.
PageT = TypeVar("PageT")
ItemT = TypeVar("ItemT")


class _Bound(Generic[ClientT]):
    """One operation of the table, bound to a client: call it with the path arguments in
    the template's order, then ``body=``, ``params=`` (or query parameters as keywords),
    ``headers=``, ``idempotency_key=`` and, for a signed operation, ``session=``. It
    returns the answer read into the operation's model (the service's own; None for an
    empty answer; a retry-signed operation's 202 as a ``SignedRequestChallengeOut`` when no
    ``session=`` was given). A list operation also has ``pages`` and ``items``."""

    def __init__(self, client: ClientT, op: Operation) -> None:
        self._client = client
        self.operation = op

    def __repr__(self) -> str:
        op = self.operation
        return f"<operation {op.qualified_name}: {op.method} {op.path}>"

    def _flow(
        self,
        args: tuple[str, ...],
        body: Any,
        params: Mapping[str, Any] | None,
        keywords: Mapping[str, Any],
        headers: Mapping[str, str] | None,
        idempotency_key: str | None,
        session: Any,
    ) -> Flow[Any]:
        return operation_flow(
            self.operation,
            args,
            body=body,
            params=query(params, keywords),
            headers=headers,
            idempotency_key=idempotency_key,
            session=session,
        )


class SyncOperation(_Bound[_SyncRunner], Generic[R]):
    __doc__ = _Bound.__doc__

    def __call__(
        self,
        *args: str,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        session: Any = None,
        **query_params: Any,
    ) -> R:
        flow = self._flow(args, body, params, query_params, headers, idempotency_key, session)
        result: R = self._client._run(flow)
        return result


class SyncListOperation(SyncOperation[PageT], Generic[PageT, ItemT]):
    """A list operation (a page of ``{data, hasMore, nextCursor}``), with its pages and items."""

    def pages(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> Iterator[PageT]:
        """Every page of the list, following ``nextCursor`` while ``hasMore``."""
        return self._pages(args, dict(query(params, query_params) or {}))

    def _pages(self, args: tuple[str, ...], merged: dict[str, Any]) -> Iterator[PageT]:
        seen = {merged["cursor"]} if isinstance(merged.get("cursor"), str) else set()
        while True:
            page = self(*args, params=merged)
            yield page
            cursor = next_cursor(self.operation, page, seen)
            if cursor is None:
                return
            merged["cursor"] = cursor

    def items(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> Iterator[ItemT]:
        """Every item of the list (the ``data`` of each page), page after page."""
        pages = self.pages(*args, params=params, **query_params)
        return (item for page in pages for item in _page_data(self.operation, page))


class AsyncOperation(_Bound[_AsyncRunner], Generic[R]):
    __doc__ = _Bound.__doc__

    async def __call__(
        self,
        *args: str,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        session: Any = None,
        **query_params: Any,
    ) -> R:
        flow = self._flow(args, body, params, query_params, headers, idempotency_key, session)
        result: R = await self._client._run(flow)
        return result


class AsyncListOperation(AsyncOperation[PageT], Generic[PageT, ItemT]):
    """A list operation of an AsyncClient: ``async for`` over its pages and items."""

    def pages(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> AsyncIterator[PageT]:
        """Every page of the list (``async for``), following ``nextCursor`` while ``hasMore``."""
        return self._pages(args, dict(query(params, query_params) or {}))

    async def _pages(self, args: tuple[str, ...], merged: dict[str, Any]) -> AsyncIterator[PageT]:
        seen = {merged["cursor"]} if isinstance(merged.get("cursor"), str) else set()
        while True:
            page = await self(*args, params=merged)
            yield page
            cursor = next_cursor(self.operation, page, seen)
            if cursor is None:
                return
            merged["cursor"] = cursor

    def items(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> AsyncIterator[ItemT]:
        """Every item of the list (``async for``: the ``data`` of each page), page after page."""
        return self._items(self.pages(*args, params=params, **query_params))

    async def _items(self, pages: AsyncIterator[PageT]) -> AsyncIterator[ItemT]:
        async for page in pages:
            for item in _page_data(self.operation, page):
                yield item


Op = TypeVar("Op", SyncOperation[Any], AsyncOperation[Any])


class _Group(Generic[Op]):
    """The operations of one group of the published document (``client.quotes``)."""

    _kind: type[Op]
    _list_kind: type[Op]

    def __init__(self, client: Any, group: str) -> None:
        self._name = group
        self._operations: dict[str, Op] = {
            op.name: (self._list_kind if op.paginated else self._kind)(client, op)
            for op in operations_of(group)
        }

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_operations"][name]
        except KeyError:
            raise AttributeError(f"the group {self._name!r} has no operation {name!r}") from None

    def __dir__(self) -> Iterable[str]:
        return [*super().__dir__(), *self._operations]

    def __repr__(self) -> str:
        return f"<group {self._name}: {', '.join(self._operations)}>"


class SyncGroup(_Group[SyncOperation[Any]]):
    __doc__ = _Group.__doc__
    _kind = SyncOperation
    _list_kind = SyncListOperation


class AsyncGroup(_Group[AsyncOperation[Any]]):
    __doc__ = _Group.__doc__
    _kind = AsyncOperation
    _list_kind = AsyncListOperation
