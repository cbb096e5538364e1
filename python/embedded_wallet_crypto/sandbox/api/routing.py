"""The service's routers: a synchronous route ends its database transaction in its own thread.

A synchronous endpoint runs in the thread pool. When it raises after writing (a refusal after a
claim), its transaction would stay open until the request's session is closed back on the event
loop, and meanwhile hold its locks (SQLite's write lock). The event loop itself runs a few
statements of its own (the control plane's read, a wallet export's single-use claim, see
``control`` and ``domain.export``): it must never wait for a lock whose release waits for the
loop. So a synchronous endpoint that raises rolls its session back before its thread returns
(``deps.rolled_back_on_error``).

A JSON body is read by :class:`StrictJsonRequest`: a member repeated in one object is refused
(400 ``INVALID_INPUT``), since which of its values counts depends on the reader (``json.loads``
keeps the last, a proxy or a validator in front of the service may keep the first).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute

from ..deps import rolled_back_on_error
from ..domain.errors import invalid

__all__ = ["Router", "StrictJsonRequest", "ThreadEndedRoute"]


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One JSON object's members; a refusal naming the first repeated one (``json.dumps``:
    escaped, so that any character the answer could not carry as it is can be named)."""
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise invalid(f"The request body repeats the member {json.dumps(name[:50])}.")
        found[name] = value
    return found


_DECODER = json.JSONDecoder(object_pairs_hook=_members)


class StrictJsonRequest(Request):
    """A request whose JSON body has no member twice in one object (a :class:`Refusal`
    otherwise, answered by the error handlers as the cause of the framework's 400)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()  # decoded as json.loads decodes bytes
            self._json = _DECODER.decode(body.decode(json.detect_encoding(body), "surrogatepass"))
        return self._json


class ThreadEndedRoute(APIRoute):
    """An :class:`~fastapi.routing.APIRoute` whose synchronous endpoint is
    :func:`rolled_back_on_error` (FastAPI reads its parameters through ``__wrapped__``)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint):
            endpoint = rolled_back_on_error(endpoint)
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict


class Router(APIRouter):
    """An :class:`~fastapi.APIRouter` of :class:`ThreadEndedRoute` routes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(route_class=ThreadEndedRoute, **kwargs)
