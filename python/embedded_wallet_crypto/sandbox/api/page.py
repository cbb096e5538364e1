"""The page, ``GET /``, and its script, ``GET /page.js``: outside the base path and outside the
OpenAPI document, both files of the package (``sandbox/static``)."""

from __future__ import annotations

from pathlib import Path

from fastapi.responses import FileResponse

from ..domain.errors import not_found
from .routing import Router

__all__ = ["router"]

router = Router(include_in_schema=False)

_STATIC = Path(__file__).resolve().parent.parent / "static"


@router.get("/")
def page() -> FileResponse:
    """The page (formats.md sections 1, 3 and 4 run in the browser)."""
    index = _STATIC / "index.html"
    if not index.is_file():
        raise not_found("No page is installed.")
    return FileResponse(index, media_type="text/html")


@router.get("/page.js")
def page_script() -> FileResponse:
    """The page's JavaScript module (its cryptography: formats.md sections 1, 3 and 4)."""
    return FileResponse(_STATIC / "page.js", media_type="text/javascript")
