"""The operations of the table bound to a client, in their groups (``client.quotes.execute``),
sync and async, and what both share: query parameters, pages, a client's settings with an
agent's token."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Iterable, Iterator, Mapping
from typing import Any, Generic, Protocol, TypeVar

from ._errors import ClientError
from ._flows import Flow, operation_flow
from ._operations import Operation, operations_of
from ._results import AgentCredentials
from ._wire import ClientConfig, bearer

__all__ = ["AsyncGroup", "AsyncOperation", "SyncGroup", "SyncOperation", "with_agent"]

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
    if not isinstance(page, dict) or not isinstance(page.get("data"), list):
        raise ClientError(
            f"{op.qualified_name} answered a page that is not a list envelope",
            "RESPONSE_INVALID",
        )
    return list(page["data"])


def next_cursor(op: Operation, page: Any, cursor: Any) -> str | None:
    """The cursor of the page after ``page``, or None after the last one.

    Raises:
        ClientError: ``RESPONSE_INVALID`` for a page that is not the list envelope, or
            one that says there is more without a new cursor (it would loop forever).
    """
    _page_data(op, page)
    if not page.get("hasMore"):
        return None
    following = page.get("nextCursor")
    if not isinstance(following, str) or not following or following == cursor:
        raise ClientError(
            f"{op.qualified_name} says hasMore without a new nextCursor", "RESPONSE_INVALID"
        )
    return following


def with_agent(settings: ClientConfig, agent_token: str | AgentCredentials) -> ClientConfig:
    """``settings`` with the agent's Bearer token (the platform credentials stay)."""
    token = agent_token.access_token if isinstance(agent_token, AgentCredentials) else agent_token
    return dataclasses.replace(settings, agent_authorization=bearer(token))


R = TypeVar("R")


class _Bound(Generic[R]):
    """One operation of the table, bound to a client: call it with the path arguments in
    the template's order, then ``body=``, ``params=`` (or query parameters as keywords),
    ``headers=``, ``idempotency_key=`` and, for a signed operation, ``session=``. It
    returns the parsed JSON (None for an empty answer; a 202 challenge as it is when no
    ``session=`` was given)."""

    def __init__(self, client: R, op: Operation) -> None:
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

    def _first_page(self, params: Mapping[str, Any] | None, keywords: Any) -> dict[str, Any]:
        if not self.operation.paginated:
            raise TypeError(f"{self.operation.qualified_name} is not a paginated list")
        return dict(query(params, keywords) or {})


class SyncOperation(_Bound[_SyncRunner]):
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
    ) -> Any:
        flow = self._flow(args, body, params, query_params, headers, idempotency_key, session)
        return self._client._run(flow)

    def pages(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> Iterator[dict[str, Any]]:
        """Every page of a list, following ``nextCursor`` while ``hasMore``.

        Raises:
            TypeError: at once, for an operation that is not a paginated list.
        """
        return self._pages(args, self._first_page(params, query_params))

    def _pages(self, args: tuple[str, ...], merged: dict[str, Any]) -> Iterator[dict[str, Any]]:
        while True:
            page: dict[str, Any] = self(*args, params=merged)
            yield page
            cursor = next_cursor(self.operation, page, merged.get("cursor"))
            if cursor is None:
                return
            merged["cursor"] = cursor

    def items(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> Iterator[Any]:
        """Every item of a list (the ``data`` of each page), page after page."""
        pages = self.pages(*args, params=params, **query_params)
        return (item for page in pages for item in _page_data(self.operation, page))


class AsyncOperation(_Bound[_AsyncRunner]):
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
    ) -> Any:
        flow = self._flow(args, body, params, query_params, headers, idempotency_key, session)
        return await self._client._run(flow)

    def pages(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Every page of a list (``async for``), following ``nextCursor`` while ``hasMore``.

        Raises:
            TypeError: at once, for an operation that is not a paginated list.
        """
        return self._pages(args, self._first_page(params, query_params))

    async def _pages(
        self, args: tuple[str, ...], merged: dict[str, Any]
    ) -> AsyncIterator[dict[str, Any]]:
        while True:
            page: dict[str, Any] = await self(*args, params=merged)
            yield page
            cursor = next_cursor(self.operation, page, merged.get("cursor"))
            if cursor is None:
                return
            merged["cursor"] = cursor

    def items(
        self, *args: str, params: Mapping[str, Any] | None = None, **query_params: Any
    ) -> AsyncIterator[Any]:
        """Every item of a list (``async for``: the ``data`` of each page), page after page."""
        return self._items(self.pages(*args, params=params, **query_params))

    async def _items(self, pages: AsyncIterator[dict[str, Any]]) -> AsyncIterator[Any]:
        async for page in pages:
            for item in _page_data(self.operation, page):
                yield item


Op = TypeVar("Op", SyncOperation, AsyncOperation)


class _Group(Generic[Op]):
    """The operations of one group of the published document (``client.quotes``)."""

    _kind: type[Op]

    def __init__(self, client: Any, group: str) -> None:
        self._name = group
        self._operations: dict[str, Op] = {
            op.name: self._kind(client, op) for op in operations_of(group)
        }

    def __getattr__(self, name: str) -> Op:
        try:
            return self.__dict__["_operations"][name]  # type: ignore[no-any-return]
        except KeyError:
            raise AttributeError(f"the group {self._name!r} has no operation {name!r}") from None

    def __dir__(self) -> Iterable[str]:
        return [*super().__dir__(), *self._operations]

    def __repr__(self) -> str:
        return f"<group {self._name}: {', '.join(self._operations)}>"


class SyncGroup(_Group[SyncOperation]):
    __doc__ = _Group.__doc__
    _kind = SyncOperation


class AsyncGroup(_Group[AsyncOperation]):
    __doc__ = _Group.__doc__
    _kind = AsyncOperation
