"""The service's routers: a synchronous route ends its database transaction in its own thread.

A synchronous endpoint runs in the thread pool. When it raises after writing (a refusal after a
claim), its transaction would stay open until the request's session is closed back on the event
loop, and meanwhile hold its locks (SQLite's write lock). The event loop itself runs a few
statements of its own (the control plane's read, a wallet export's single-use claim, see
``control`` and ``domain.export``): it must never wait for a lock whose release waits for the
loop. So a synchronous endpoint that raises rolls its session back before its thread returns
(``deps.rolled_back_on_error``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter
from fastapi.routing import APIRoute

from ..deps import rolled_back_on_error

__all__ = ["Router", "ThreadEndedRoute"]


class ThreadEndedRoute(APIRoute):
    """An :class:`~fastapi.routing.APIRoute` whose synchronous endpoint is
    :func:`rolled_back_on_error` (FastAPI reads its parameters through ``__wrapped__``)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint):
            endpoint = rolled_back_on_error(endpoint)
        super().__init__(path, endpoint, **kwargs)


class Router(APIRouter):
    """An :class:`~fastapi.APIRouter` of :class:`ThreadEndedRoute` routes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(route_class=ThreadEndedRoute, **kwargs)
