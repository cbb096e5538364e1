"""``GET /config`` and ``PATCH /config``: the platform configuration."""

from __future__ import annotations

from fastapi import Depends
from fastapi.responses import JSONResponse

from ..deps import Db, require_platform
from ..domain import platform_config
from ..domain.webhooks import TEST, emit
from ..models.config import ConfigOut, ConfigUpdate
from .common import answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Configuration"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401),
)


@router.get("/config", response_model=ConfigOut)
def get_config(db: Db) -> JSONResponse:
    """The platform configuration."""
    return answer(db, platform_config.config_body(platform_config.load_config(db)))


@router.patch("/config", response_model=ConfigOut)
def patch_config(body: ConfigUpdate, db: Db) -> JSONResponse:
    """Change umaDomain, webhookEndpoint or supportedCurrencies (the others are read-only). A
    new webhookEndpoint gets a ``TEST`` webhook (never retried), as the published docs say."""
    previous = platform_config.load_config(db).webhook_endpoint
    changed = platform_config.update_config(db, body)
    if changed.get("webhookEndpoint") and changed["webhookEndpoint"] != previous:
        emit(db, "TEST", {}, kind=TEST)
    return answer(db, changed)
