"""The request dependencies of every route, declared once.

- ``Db``: the request's database session (one transaction: the route commits it; anything it
  left open is rolled back when the request ends).
- ``Svc``: the app's :class:`~.services.Services`.
- ``Platform``: the platform's HTTP Basic credentials (checked by the request gate before
  anything else; the token id).
- ``Me``: the agent of a Bearer access token (``/agents/me``).
- ``Keyed``: the request's ``Idempotency-Key`` and fingerprint, or None.
- ``Signed``: the ``Service-Wallet-Signature`` and ``Request-Id`` headers.
- ``Paging``: a list's ``limit`` and ``cursor`` (``PageRequest.ordered`` sets the order).
- ``SANDBOX_ONLY``: 403 in production (after the credentials).

Only ``Me`` and the route itself touch the database, so a request hops to the thread pool once
(twice for an agent); the others read ``app.state`` or the request on the event loop. The route
ends its transaction with :func:`committed` (or ``api.common.idempotent``); one that raises is
rolled back in its own thread (:func:`rolled_back_on_error`, which ``api.routing`` puts around
every synchronous route).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Query, Request
from fastapi.security import HTTPBasic
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from .db.engine import Database
from .db.pages import DEFAULT_LIMIT, MAX_CURSOR_LENGTH, MAX_LIMIT, PageRequest
from .db.tables_agents import Agent
from .domain.agents.registry import agent_of_token
from .domain.api_tokens import ALL_PERMISSIONS, require_permission
from .domain.errors import Refusal
from .domain.idempotency import MAX_KEY_LENGTH, KeyedRequest, keyed_request
from .domain.platform_auth import BASIC_REALM, PlatformAuth, basic_credentials, invalid_credentials
from .domain.wallet import RetryHeaders
from .services import Services
from .settings import BASE_PATH

__all__ = [
    "AGENT_SCOPE_KEY",
    "PLATFORM_SCOPE_KEY",
    "SANDBOX_ONLY",
    "SIGNATURE_HEADERS",
    "Db",
    "Keyed",
    "Me",
    "Paging",
    "Platform",
    "Signed",
    "Svc",
    "check_agent",
    "check_platform",
    "committed",
    "require_agent",
    "require_platform",
    "require_sandbox",
    "rolled_back_on_error",
]

T = TypeVar("T")

#: Where the request gate leaves the token id it checked (``gate.RequestGate``).
PLATFORM_SCOPE_KEY = "ewc.platform_token"
#: Where the request gate leaves the id of the agent whose Bearer token it checked.
AGENT_SCOPE_KEY = "ewc.agent_id"
#: The stamp header, and the name the real service also accepts for it.
SIGNATURE_HEADERS = ("Service-Wallet-Signature", "Grid-Wallet-Signature")


async def database_session(request: Request) -> AsyncIterator[Session]:
    """The request's session: no connection until the route uses it. A transaction the route
    left open (it raised, or it only read) is rolled back off the event loop."""
    database: Database = request.app.state.database
    db = database.sessions()
    try:
        yield db
    finally:
        if db.in_transaction():
            await run_in_threadpool(db.close)
        else:
            db.close()


async def services(request: Request) -> Services:
    """The app's :class:`Services`."""
    found: Services = request.app.state.services
    return found


async def check_platform(
    auth: PlatformAuth, header: str | None, method: str | None = None, path: str = ""
) -> str:
    """The caller of valid platform Basic credentials in an ``Authorization`` header (a
    configured pair's id, or an API token's id), or a 401 :class:`Refusal`; with ``method``,
    a 403 when an API token lacks the permission for ``method`` on ``path`` (under the base
    path). A configured id is checked here; any other (an API token, a pair stored by
    another process) is read from the database, off the event loop."""
    token_id, secret = basic_credentials(header)
    if auth.known(token_id):
        found = (token_id, ALL_PERMISSIONS) if auth.check(token_id, secret) else None
    else:
        found = await run_in_threadpool(auth.authenticate, token_id, secret)
    if found is None:
        raise invalid_credentials()
    caller, permissions = found
    if method is not None:
        require_permission(permissions, method, path)
    return caller


class PlatformBasic(HTTPBasic):
    """The platform's Basic credentials as a dependency: the scheme in the OpenAPI document
    (it is an ``HTTPBasic``), the check of :func:`check_platform` when called (so that every
    failure has the service's error shape). Returns the token id."""

    async def __call__(self, request: Request) -> str:  # type: ignore[override]
        """The request gate has checked the credentials before the route was reached (before
        the body was read); this takes its result."""
        checked = request.scope.get(PLATFORM_SCOPE_KEY)
        if isinstance(checked, str):
            return checked
        return await check_platform(
            request.app.state.platform_auth,
            request.headers.get("authorization"),
            request.method,
            request.scope["path"].removeprefix(BASE_PATH),
        )


#: The platform's Basic credentials (a route's or a router's dependency); the token id.
require_platform = PlatformBasic(auto_error=False, realm=BASIC_REALM, scheme_name="HTTPBasic")


Db = Annotated[Session, Depends(database_session)]


def rolled_back_on_error(function: Callable[..., Any], *sessions: Session) -> Callable[..., Any]:
    """``function``, which rolls back ``sessions`` (and any session it is given by keyword)
    in its own thread when it raises, before the exception leaves it. A refusal after a write
    would otherwise keep the transaction, and SQLite's write lock, until the request's session
    is closed back on the event loop, while the loop may itself be waiting for that lock (see
    ``api.routing``)."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except BaseException:
            for value in (*sessions, *kwargs.values()):
                if isinstance(value, Session) and value.in_transaction():
                    try:
                        value.rollback()
                    except Exception:  # a database gone: the answer stays the first error's
                        value.invalidate()
            raise

    return run


def committed(db: Session, answer: T) -> T:
    """``answer``, once the request's transaction is committed (in the route, off the event
    loop; the answer is built first, so that nothing can fail once the change is saved)."""
    db.commit()
    return answer


Svc = Annotated[Services, Depends(services)]
Platform = Annotated[str, Depends(require_platform)]


async def check_agent(database: Database, found: Services, header: str | None) -> str:
    """The id of the agent whose Bearer access token is in an ``Authorization`` header, or a
    401 :class:`Refusal` (the request gate, before the body is read; off the event loop)."""

    def agent_id() -> str:
        with database.sessions() as db:
            return agent_of_token(db, found, header).id

    return await run_in_threadpool(agent_id)


def require_agent(request: Request, db: Db, found: Svc) -> Agent:
    """The agent of the Bearer access token (``/agents/me``). The request gate has checked the
    token before the route was reached (before the body was read); this loads its agent."""
    checked = request.scope.get(AGENT_SCOPE_KEY)
    if isinstance(checked, str):
        agent = db.get(Agent, checked)
        if agent is not None:
            return agent
    return agent_of_token(db, found, request.headers.get("authorization"))


Me = Annotated[Agent, Depends(require_agent)]


async def require_sandbox(found: Svc, platform: Platform) -> None:
    """Sandbox-only endpoints fail with 403 in production, once the credentials are valid
    (the check depends on them, so they are checked first)."""
    del platform
    if not found.sandbox:
        raise Refusal(403, "FORBIDDEN", "Sandbox-only endpoints are not available in production.")


#: The dependency list of a sandbox-only route.
SANDBOX_ONLY = [Depends(require_sandbox)]


async def idempotency_key(
    request: Request,
    key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            max_length=MAX_KEY_LENGTH,
            description="Makes a retry safe: a repeat with the same key and request gets the "
            "first response (kept 24 hours by default).",
        ),
    ] = None,
) -> KeyedRequest | None:
    """The request's key and fingerprint, or None without the header."""
    if key is None:
        return None
    found: Services = request.app.state.services
    return keyed_request(
        key,
        request.method,
        request.scope["path"],
        await request.body(),
        request.app.state.database,
        found.clock.seconds(found.settings.idempotency_retention),
    )


Keyed = Annotated[KeyedRequest | None, Depends(idempotency_key)]


def retry_headers(request: Request) -> RetryHeaders:
    """The ``Service-Wallet-Signature`` (or ``Grid-Wallet-Signature``) and ``Request-Id``."""
    stamp = next(
        (value for name in SIGNATURE_HEADERS if (value := request.headers.get(name))), None
    )
    return RetryHeaders(stamp=stamp, request_id=request.headers.get("Request-Id") or None)


async def signature_headers(request: Request) -> RetryHeaders:
    """:func:`retry_headers` as a dependency."""
    return retry_headers(request)


Signed = Annotated[RetryHeaders, Depends(signature_headers)]


async def paging(
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    cursor: Annotated[str | None, Query(max_length=MAX_CURSOR_LENGTH)] = None,
) -> PageRequest:
    """The page a list's ``limit`` and ``cursor`` ask for (oldest first; see
    ``PageRequest.ordered``)."""
    return PageRequest.of(limit, cursor, "asc")


Paging = Annotated[PageRequest, Depends(paging)]
