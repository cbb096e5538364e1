"""The FastAPI application: every route under the base path ``/2025-10-13`` (the routers of
``api``, included by plain imports), the OpenAPI document at ``/2025-10-13/openapi.json``, the
error handlers, the page at ``GET /``, the request gate in front of them all (authentication
first, the body size limit), and the background worker for as long as the app runs."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.types import ASGIApp

from .. import __version__
from .api import (
    account_settings,
    agent_accounts,
    agent_me,
    agents,
    api_tokens,
    beneficial_owners,
    card_simulations,
    cards,
    config,
    contact_verification,
    control,
    credentials,
    crypto,
    customer_ops,
    customers,
    delegated_keys,
    directory,
    documents,
    events,
    explorer,
    export,
    external_account_ops,
    external_accounts,
    invitations,
    page,
    quotes,
    receivers,
    sandbox,
    sca,
    sca_flows,
    sessions,
    stablecoins,
    transaction_ops,
    transactions,
    transfers,
    verifications,
)
from .control import ensure_state
from .db.engine import Database
from .domain.at_rest import seal_plain_mnemonics
from .domain.platform_auth import PlatformAuth
from .domain.platform_config import ensure_config
from .domain.webhooks import signing_key
from .errors import install_error_handlers
from .faults import operation_key
from .gate import RequestGate
from .ids import configure_seed, seeded_scope
from .published import PublishedAnswers, published_document
from .request_log import RequestLog
from .services import Services
from .settings import BASE_PATH, Settings
from .worker import running_worker

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

__all__ = ["BASE_PATH", "ROUTERS", "create_app"]

#: Every router, as ``(prefix, router)``, in the order they are included (the order in which a
#: request's route is found: ``/agents/me`` before ``/agents/{agentId}``). The page's router
#: (``/``, ``/page.js``) is outside the base path.
ROUTERS: tuple[tuple[str, APIRouter], ...] = (
    (BASE_PATH, crypto.router),  # /customers/end-user-terms before any /customers/{id}
    (BASE_PATH, customers.router),
    (BASE_PATH, credentials.router),
    (BASE_PATH, sessions.router),
    (BASE_PATH, delegated_keys.router),
    (BASE_PATH, export.router),
    (BASE_PATH, account_settings.router),
    (BASE_PATH, quotes.router),
    (BASE_PATH, transactions.router),
    (BASE_PATH, config.router),
    (BASE_PATH, sandbox.router),
    (BASE_PATH, events.router),
    (BASE_PATH, control.router),
    (BASE_PATH, transfers.router),
    (BASE_PATH, external_accounts.router),
    (BASE_PATH, agent_me.router),
    (BASE_PATH, agents.router),
    (BASE_PATH, invitations.router),
    (BASE_PATH, verifications.router),
    (BASE_PATH, receivers.router),
    # After the routers with a /customers/<literal> path (/customers/{customerId} matches any).
    (BASE_PATH, customer_ops.router),
    (BASE_PATH, transaction_ops.router),
    (BASE_PATH, external_account_ops.router),
    (BASE_PATH, agent_accounts.router),
    (BASE_PATH, api_tokens.router),
    (BASE_PATH, directory.router),
    (BASE_PATH, beneficial_owners.router),
    (BASE_PATH, documents.router),
    (BASE_PATH, sca.router),
    (BASE_PATH, sca_flows.router),
    (BASE_PATH, contact_verification.router),
    (BASE_PATH, stablecoins.router),
    (BASE_PATH, cards.router),
    (BASE_PATH, card_simulations.router),
    ("", page.router),
    ("", customer_ops.page_router),
    ("", explorer.router),
    ("", cards.reveal_router),
)


def _without_422(app: FastAPI) -> None:
    """The OpenAPI document without FastAPI's default 422 answers: validation failures are 400
    here, in the service's error shape (documented per router). A 422 an operation declares
    itself (``IDEMPOTENCY_KEY_REUSED``) stays."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            for path in document.get("paths", {}).values():
                for operation in path.values():
                    responses = operation.get("responses", {})
                    if "HTTPValidationError" in json.dumps(responses.get("422", "")):
                        responses.pop("422")  # FastAPI's own; an operation's declared 422 stays
            schemas = document.get("components", {}).get("schemas", {})
            schemas.pop("HTTPValidationError", None)
            schemas.pop("ValidationError", None)
            if app.state.settings.names == "published":
                document = published_document(document)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


class _Service(FastAPI):
    """The application with :class:`~.gate.RequestGate` outside all of its middleware (and,
    with ``--names published``, :class:`~.published.PublishedAnswers` outside the gate)."""

    def build_middleware_stack(self) -> ASGIApp:
        gate = RequestGate(super().build_middleware_stack(), self, ROUTERS)
        if self.state.settings.names != "published":
            return gate
        return PublishedAnswers(gate, skip=("/openapi.json",))


def create_app(settings: Settings | None = None) -> FastAPI:
    """The sandbox service as an ASGI application.

    Creates the database tables and the platform configuration (and, without configured
    platform credentials and none stored, one generated pair:
    ``app.state.generated_credentials``), and seals the wallet mnemonics an earlier release
    stored in the clear (``domain.at_rest``), before returning.
    """
    settings = settings or Settings()
    database = Database(settings.database)
    # Every session knows the names mode: a webhook's body is made in it (domain/webhooks).
    database.sessions.configure(info={"names": settings.names})
    database.create_tables()
    ensure_state(database)
    configure_seed(settings.seed)
    with seeded_scope("startup"):
        ensure_config(database)
        signing_key(database)  # the webhooks' key, made or read before any request
        services = Services.build(settings, database)
    # Wallet mnemonics an earlier release stored in the clear (domain.at_rest).
    if sealed := seal_plain_mnemonics(database, services.sealing_key):
        logger.info("sealed %d wallet mnemonics stored in the clear", sealed)
    request_log = RequestLog(database)
    platform_auth = PlatformAuth(database)
    generated = platform_auth.setup(list(settings.platform_credentials))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with running_worker(database, services.clock, services.sealing_key, request_log):
            yield
        services.close()
        database.dispose()

    app = _Service(
        title="Embedded-wallet sandbox service",
        version=__version__,
        description=(
            "A local stand-in of the embedded-wallet service interface, built on "
            "embedded-wallet-crypto. Platform endpoints use HTTP Basic authentication."
        ),
        openapi_url=f"{BASE_PATH}/openapi.json",
        docs_url=None,  # the offline explorer (api/explorer.py) instead
        redoc_url=None,
        lifespan=lifespan,
        max_body_size=settings.max_body_size,
    )
    app.state.settings = settings
    app.state.database = database
    app.state.platform_auth = platform_auth
    app.state.services = services
    app.state.generated_credentials = generated
    app.state.request_log = request_log
    #: Every served operation (``METHOD /template``): what a fault may name.
    app.state.operations = frozenset(
        operation_key(method, route.path)
        for prefix, router in ROUTERS
        if prefix == BASE_PATH
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in route.methods or ()
    )
    install_error_handlers(app)
    for prefix, router in ROUTERS:
        app.include_router(router, prefix=prefix)
    app.mount(explorer.ASSETS_PATH, explorer.assets(), name="explorer-assets")
    _without_422(app)
    return app
