"""``GET /config`` and ``PATCH /config``: the platform configuration."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from ..deps import Db, committed, require_platform
from ..domain import platform_config
from ..models.config import ConfigUpdate
from .common import error_responses

__all__ = ["router"]

router = APIRouter(
    tags=["Configuration"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401),
)


@router.get("/config")
def get_config(db: Db) -> dict[str, Any]:
    """The platform configuration."""
    return committed(db, platform_config.config_body(platform_config.load_config(db)))


@router.patch("/config")
def patch_config(body: ConfigUpdate, db: Db) -> dict[str, Any]:
    """Change umaDomain, webhookEndpoint or supportedCurrencies (the others are read-only)."""
    return committed(db, platform_config.update_config(db, body))
