"""What every HTTP request meets before the application reads it.

1. Authentication: a route that takes platform credentials (a configured pair or an API token;
   an API token without the route's permission is answered 403 here too), or an agent's
   Bearer access token (``/agents/me``), answers 401 without valid ones before anything else
   (before its body is read, before it is validated, before the sandbox-only check), whatever
   else is wrong with the request.
2. The declared body size: a ``Content-Length`` over the limit is answered 413
   ``BODY_TOO_LARGE`` without reading the body. A body without one (chunked) is counted while
   it is read, by the framework's own limit (``FastAPI(max_body_size=...)``), which stops at
   the limit; its 413 is answered in the error shape by the error handlers.

A body left unread after either answer is read and thrown away by the server (never kept), until
it ends or the request deadline closes the connection (``_http``); the client, which may still be
sending it, then reads the answer. The gate sits outside the framework's own middleware, whose
answer to a declared oversize body is plain text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from fastapi import APIRouter, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from .deps import (
    AGENT_SCOPE_KEY,
    PLATFORM_SCOPE_KEY,
    check_agent,
    check_platform,
    require_agent,
    require_platform,
)
from .domain.errors import Refusal
from .errors import body_too_large, error_response, unexpected
from .settings import BASE_PATH

__all__ = ["RequestGate", "needs", "needs_platform"]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")


def needs(dependant: Dependant, dependency: object) -> bool:
    """Whether a route's dependencies (at any depth) include ``dependency``."""
    stack = list(dependant.dependencies)
    while stack:
        child = stack.pop()
        if child.call is dependency:
            return True
        stack.extend(child.dependencies)
    return False


def needs_platform(dependant: Dependant) -> bool:
    """Whether a route's dependencies (at any depth) include the platform's credentials."""
    return needs(dependant, require_platform)


class RequestGate:
    """ASGI middleware around the whole service (see the module).

    Args:
        app: the service's middleware stack.
        service: the application (its ``state`` has the settings and the platform's
            credentials).
        routers: ``(prefix, router)`` of every router, in the order they were included: a
            request's route is the first whose path and method match, as the router finds it.
    """

    def __init__(
        self, app: ASGIApp, service: FastAPI, routers: Iterable[tuple[str, APIRouter]]
    ) -> None:
        self.app = app
        self.service = service
        self._routes: list[tuple[re.Pattern[str], frozenset[str], bool, bool]] = [
            (
                compile_path(prefix + route.path)[0],
                frozenset(route.methods or ()),
                needs_platform(route.dependant),
                needs(route.dependant, require_agent),
            )
            for prefix, router in routers
            for route in router.routes
            if isinstance(route, APIRoute)
        ]

    def _needs(self, scope: Scope) -> tuple[bool, bool]:
        """Whether the request's route takes the platform's credentials, an agent's token."""
        path, method = scope["path"], scope["method"]
        for pattern, methods, platform, agent in self._routes:
            if method in methods and pattern.match(path):
                return platform, agent
        return False, False

    async def _refusal(self, scope: Scope, headers: Headers) -> Refusal | None:
        platform, agent = self._needs(scope)
        state = self.service.state
        if platform:
            auth = state.platform_auth
            scope[PLATFORM_SCOPE_KEY] = await check_platform(
                auth,
                headers.get("authorization"),
                scope["method"],
                scope["path"].removeprefix(BASE_PATH),
            )
        if agent:
            scope[AGENT_SCOPE_KEY] = await check_agent(
                state.database, state.services, headers.get("authorization")
            )
        limit: int = self.service.state.settings.max_body_size
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return body_too_large(limit)
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        try:
            refusal = await self._refusal(scope, headers)
        except Refusal as error:
            refusal = error
        except Exception:
            logger.exception("unexpected error on %s %s", scope["method"], scope["path"])
            refusal = unexpected()
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await error_response(refusal)(scope, receive, send)
