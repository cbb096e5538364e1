"""What every HTTP request meets before the application reads it.

1. Authentication: a route that takes platform credentials (a configured pair or an API token;
   an API token without the route's permission is answered 403 here too), or an agent's
   Bearer access token (``/agents/me``), answers 401 without valid ones before anything else
   (before its body is read, before it is validated, before the sandbox-only check), whatever
   else is wrong with the request; and 401 with more than one ``Authorization`` header.
2. The declared body size: a ``Content-Length`` over the limit is answered 413
   ``BODY_TOO_LARGE`` without reading the body. A body without one (chunked) is counted while
   it is read, by the framework's own limit (``FastAPI(max_body_size=...)``), which stops at
   the limit; its 413 is answered in the error shape by the error handlers.
3. A header the service reads once (``Content-Type``, ``Idempotency-Key``, ``Request-Id``, a
   wallet signature) given more than once: 400 ``INVALID_INPUT``.

In the sandbox environment, once a request has passed them, the control plane's hooks run:
the test clock's offset is read from the database (``control.refresh``, on the event loop's
own connection); only when there is a write to make first does the request go off the loop for
it (``control.begin_request``): its share of a fault armed for its operation (``faults``), or
the seed scope of a changing request of a ``--seed`` service (``ids``). Every answered
request is noted in the request log (``request_log``), with its error ``code``. The gate matches
the request's route template first and leaves it in the scope (``ROUTE_TEMPLATE_KEY``), so that
the logs hide the path's codes in every answer, the gate's own (401, 413, a fault) included.

A body left unread after either answer is read and thrown away by the server (never kept), until
it ends or the request deadline closes the connection (``_http``); the client, which may still be
sending it, then reads the answer. The gate sits outside the framework's own middleware, whose
answer to a declared oversize body is plain text.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, cast

from fastapi import APIRouter, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .control import begin_request, refresh, writes_first
from .deps import (
    AGENT_SCOPE_KEY,
    PLATFORM_SCOPE_KEY,
    SIGNATURE_HEADERS,
    check_agent,
    check_platform,
    require_agent,
    require_platform,
)
from .domain.agents.registry import BEARER_CHALLENGE
from .domain.errors import Refusal, invalid
from .domain.platform_auth import BASIC_REALM
from .errors import body_too_large, error_response, unexpected
from .faults import Fault, operation_key, refusal_of
from .ids import seeded, seeded_scope
from .request_log import (
    ROUTE_TEMPLATE_KEY,
    error_code,
    has_codes,
    logged_path,
    nearest_template,
)
from .settings import BASE_PATH

__all__ = ["RequestGate", "needs", "needs_platform"]

#: The request headers the service reads one value of: a request that repeats one is refused
#: (400; ``Authorization``, 401), rather than one of its values taken, which a proxy in front
#: may not have taken.
_READ_ONCE = ("Content-Type", "Idempotency-Key", "Request-Id", *SIGNATURE_HEADERS)

#: Where the gate keeps its match of the request's route (:meth:`RequestGate._match`).
_MATCHED_KEY = "ewc.gate_match"

logger = logging.getLogger("embedded_wallet_crypto.sandbox")


def _repeated(name: str) -> str:
    return f"The request has more than one {name} header."


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
        self._routes: list[tuple[re.Pattern[str], frozenset[str], bool, bool, str, str]] = [
            (
                compile_path(prefix + route.path)[0],
                frozenset(route.methods or ()),
                needs_platform(route.dependant),
                needs(route.dependant, require_agent),
                route.path,
                prefix + route.path,
            )
            for prefix, router in routers
            for route in router.routes
            if isinstance(route, APIRoute)
        ]
        #: The templates with a code parameter: what a path that matches no route is read by.
        self._code_templates = [full for *_, full in self._routes if has_codes(full)]

    def _match(self, scope: Scope) -> tuple[bool, bool, str | None, str | None]:
        """Whether the request's route takes the platform's credentials, an agent's token; its
        operation (``METHOD /template``, see ``faults.operation_key``); the full template of
        the first route whose path matches (whatever its methods: a 405 hides codes too), else
        of the code route the path begins with (``request_log.nearest_template``)."""
        path, method = scope["path"], scope["method"]
        template = None
        for pattern, methods, platform, agent, operation, full in self._routes:
            if pattern.match(path):
                if method in methods:
                    return platform, agent, operation_key(method, operation), full
                template = template or full
        if template is None:
            template = nearest_template(path, self._code_templates)
        return False, False, None, template

    def _needs(self, scope: Scope) -> tuple[bool, bool, str | None]:
        """:meth:`_match` without the template (matched once per request, kept in the scope)."""
        matched = scope.get(_MATCHED_KEY)
        if matched is None:
            matched = scope[_MATCHED_KEY] = self._match(scope)
        return cast("tuple[bool, bool, str | None]", matched[:3])

    async def _refusal(self, scope: Scope, headers: Headers) -> Refusal | None:
        platform, agent, _ = self._needs(scope)
        state = self.service.state
        if (platform or agent) and len(headers.getlist("authorization")) > 1:
            challenge = {"WWW-Authenticate": BEARER_CHALLENGE["WWW-Authenticate"]}
            if platform:
                challenge = {"WWW-Authenticate": f'Basic realm="{BASIC_REALM}"'}
            raise Refusal(401, "UNAUTHORIZED", _repeated("Authorization"), challenge)
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
        for name in _READ_ONCE:
            if len(headers.getlist(name)) > 1:
                return invalid(_repeated(name))
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        matched = scope[_MATCHED_KEY] = self._match(scope)
        scope[ROUTE_TEMPLATE_KEY] = matched[3]
        if not self.service.state.settings.sandbox:
            await self._gated(scope, receive, send, control=False)
            return
        began = time.perf_counter()
        answer: dict[str, Any] = {"status": 500, "body": b""}

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = int(message["status"])
            elif message["type"] == "http.response.body" and answer["status"] >= 400:
                answer["body"] = (answer["body"] + message.get("body", b""))[:4096]
            await send(message)

        try:
            await self._gated(scope, receive, noting, control=True)
        finally:
            status = answer["status"]
            self.service.state.request_log.record(
                scope["method"],
                logged_path(scope),
                status,
                (time.perf_counter() - began) * 1e3,
                error_code(answer["body"]) if status >= 400 else None,
            )

    async def _gated(self, scope: Scope, receive: Receive, send: Send, *, control: bool) -> None:
        headers = Headers(scope=scope)
        try:
            refusal = await self._refusal(scope, headers)
        except Refusal as error:
            refusal = error
        except Exception:
            logger.exception("unexpected error on %s %s", scope["method"], logged_path(scope))
            refusal = unexpected()
        if refusal is not None:
            await error_response(refusal)(scope, receive, send)
        elif control:
            await self._controlled(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _controlled(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The request in the sandbox: the clock read, its fault taken, its seed scope set."""
        operation = self._needs(scope)[2]
        changing = seeded() and scope["method"] not in ("GET", "HEAD", "OPTIONS")
        database = self.service.state.database
        fault: Fault | None = None
        seed_scope: str | None = None
        try:
            snapshot = refresh(database, on_loop=True)
            if writes_first(snapshot, operation, changing):
                fault, seed_scope = await run_in_threadpool(
                    begin_request, database, snapshot, operation, changing
                )
        except Exception:  # the database failed us: answered in the error shape, logged
            logger.exception("control plane on %s %s", scope["method"], logged_path(scope))
            await error_response(unexpected())(scope, receive, send)
            return
        within: AbstractContextManager[None] = (
            nullcontext() if seed_scope is None else seeded_scope(seed_scope)
        )
        with within:
            if fault is not None and fault.latency_ms:
                await asyncio.sleep(fault.latency_ms / 1000)
            if fault is None or fault.status is None:
                await self.app(scope, receive, send)
                return
            if fault.after_commit:  # the work is done; its answer goes nowhere

                async def discard(_: Message) -> None:
                    return None

                await self.app(scope, receive, discard)
            await error_response(refusal_of(fault))(scope, receive, send)
