"""The API explorer without a network: ``GET /2025-10-13/docs`` is Swagger UI on the OpenAPI
document, its script, style sheet and icon served by the service itself (from the
``fastapi-offline`` package's copy of Swagger UI 5, which renders OpenAPI 3.1, a dependency of
the ``sandbox`` extra) under ``/2025-10-13/docs/assets/``; ``GET /docs`` redirects to it and
``GET /openapi.json`` is the document, at the root too. Outside the OpenAPI document and open
to everyone, like the document itself."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from ..settings import BASE_PATH
from .routing import Router

__all__ = ["ASSETS", "ASSETS_PATH", "assets", "router"]

#: Where the explorer's files are served.
ASSETS_PATH = f"{BASE_PATH}/docs/assets"
#: The files the explorer needs (all in the package's ``static`` directory).
ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon.png")

router = Router(include_in_schema=False)


def _directory() -> Path:
    """The installed copy of Swagger UI's files.

    Raises:
        ImportError: the ``fastapi-offline`` package (the ``sandbox`` extra) is missing.
    """
    try:
        found = Path(str(files("fastapi_offline").joinpath("static")))
    except ModuleNotFoundError:
        raise ImportError(
            "the API explorer needs the sandbox extra (fastapi-offline is missing): "
            'pip install "embedded-wallet-crypto[sandbox]"'
        ) from None
    missing = [name for name in ASSETS if not (found / name).is_file()]
    if missing:
        raise ImportError(
            f"fastapi-offline has no {', '.join(missing)}; reinstall the sandbox extra"
        )
    return found


def assets() -> StaticFiles:
    """The explorer's files, to mount at :data:`ASSETS_PATH`."""
    return StaticFiles(directory=_directory())


@router.get(f"{BASE_PATH}/docs")
def explorer(request: Request) -> HTMLResponse:
    """Swagger UI on ``/2025-10-13/openapi.json``, every file from this service."""
    root = request.scope.get("root_path", "")
    return get_swagger_ui_html(
        openapi_url=f"{root}{BASE_PATH}/openapi.json",
        title=f"{request.app.title} - API explorer",
        swagger_js_url=f"{root}{ASSETS_PATH}/swagger-ui-bundle.js",
        swagger_css_url=f"{root}{ASSETS_PATH}/swagger-ui.css",
        swagger_favicon_url=f"{root}{ASSETS_PATH}/favicon.png",
    )


@router.get("/docs")
def root_docs() -> RedirectResponse:
    """The explorer is under the base path."""
    return RedirectResponse(f"{BASE_PATH}/docs", status_code=307)


@router.get("/openapi.json")
def root_openapi(request: Request) -> JSONResponse:
    """The OpenAPI document, also at the root (the same as ``/2025-10-13/openapi.json``)."""
    return JSONResponse(request.app.openapi())
