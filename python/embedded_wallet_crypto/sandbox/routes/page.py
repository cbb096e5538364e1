"""The page's script, ``GET /page.js``, beside the page itself (``GET /``), outside the base
path and outside the OpenAPI document: both are files of the package, ``sandbox/static``."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_SCRIPT = Path(__file__).resolve().parent.parent / "static" / "page.js"


@router.get("/page.js")
def page_script() -> FileResponse:
    """The page's JavaScript module (its cryptography: formats.md sections 1, 3 and 4)."""
    return FileResponse(_SCRIPT, media_type="text/javascript")
