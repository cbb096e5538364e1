"""The FastAPI application: every route under the base path ``/2025-10-13``, the OpenAPI
document at ``/2025-10-13/openapi.json``, the error handlers, ``GET /`` for the page, and the
request gate in front of them all (authentication first, the body size limit)."""

from __future__ import annotations

import importlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse
from starlette.types import ASGIApp

from .. import __version__
from ._auth import PlatformAuth
from ._db import Database
from ._errors import ApiError, install_error_handlers
from ._gate import RequestGate
from ._services import Services
from ._settings import Settings

__all__ = ["BASE_PATH", "ROUTE_MODULES", "create_app"]

#: The interface version, the last segment of the base URL.
BASE_PATH = "/2025-10-13"

#: The route modules of ``embedded_wallet_crypto.sandbox.routes``, one per area; each has an
#: ``APIRouter`` named ``router`` whose paths are relative to :data:`BASE_PATH`.
ROUTE_MODULES: tuple[str, ...] = (
    "customers",
    "credentials",
    "sessions",
    "export",
    "quotes",
    "transactions",
    "config",
    "sandbox",
    "transfers",
    "external_accounts",
    "agents",
    "invitations",
    "verifications",
    "receivers",
)

_STATIC = Path(__file__).parent / "static"


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
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


class _Service(FastAPI):
    """The application with :class:`~._gate.RequestGate` outside all of its middleware."""

    gate_routers: list[tuple[str, APIRouter]]

    def build_middleware_stack(self) -> ASGIApp:
        return RequestGate(super().build_middleware_stack(), self, self.gate_routers)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The sandbox service as an ASGI application.

    Creates the database tables (and, without configured platform credentials and none stored,
    one generated pair: ``app.state.generated_credentials``) before returning.
    """
    settings = settings or Settings()
    database = Database(settings.database)
    for name in ROUTE_MODULES:  # their models join Base before the tables are created
        importlib.import_module(f"{__package__}.routes.{name}")
    database.create_tables()
    services = Services.build(settings, database)
    platform_auth = PlatformAuth(database)
    generated = platform_auth.setup(list(settings.platform_credentials))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
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
        docs_url=f"{BASE_PATH}/docs",
        redoc_url=None,
        lifespan=lifespan,
        max_body_size=settings.max_body_size,
    )
    app.state.settings = settings
    app.state.database = database
    app.state.platform_auth = platform_auth
    app.state.services = services
    app.state.generated_credentials = generated
    install_error_handlers(app)
    app.gate_routers = [
        (BASE_PATH, importlib.import_module(f"{__package__}.routes.{name}").router)
        for name in ROUTE_MODULES
    ]
    app.gate_routers.append(("", importlib.import_module(f"{__package__}.routes.page").router))
    for prefix, router in app.gate_routers:  # the page's router (/page.js) has no prefix
        app.include_router(router, prefix=prefix)

    _without_422(app)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        index = _STATIC / "index.html"
        if not index.is_file():
            raise ApiError(404, "NOT_FOUND", "No page is installed.")
        return FileResponse(index, media_type="text/html")

    return app
