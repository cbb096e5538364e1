"""API tokens: ``POST/GET /tokens``, ``GET/DELETE /tokens/{tokenId}`` (``domain.api_tokens``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Platform, Svc, committed, require_platform
from ..domain import api_tokens
from ..models.api_tokens import ApiTokenCreate, ApiTokenList, ApiTokenOut
from .common import PathId, answer, cap_response, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["API Tokens"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 403),
)

_Text = Annotated[str | None, Query(max_length=200)]
_When = Annotated[str | None, Query(max_length=64)]


@router.post(
    "/tokens",
    status_code=201,
    response_model=ApiTokenOut,
    response_model_exclude_none=True,
    responses=cap_response("API tokens of the platform"),
)
def create_token(body: ApiTokenCreate, db: Db, services: Svc, caller: Platform) -> JSONResponse:
    """Create a token with permissions the caller holds (403 ``PERMISSION_NOT_HELD`` for
    others); ``clientSecret`` is in this answer only (it is not stored)."""
    permissions = [permission.value for permission in body.permissions]
    created = api_tokens.create_token(db, services, caller, body.name, permissions)
    return answer(db, created, status=201, model=ApiTokenOut)


@router.get("/tokens", response_model=ApiTokenList, response_model_exclude_none=True)
def list_tokens(
    db: Db,
    paging: Paging,
    name: _Text = None,
    createdAfter: _When = None,
    createdBefore: _When = None,
    updatedAfter: _When = None,
    updatedBefore: _When = None,
) -> JSONResponse:
    """The tokens, oldest first (never their secrets); filters combine, bounds inclusive."""
    listed = api_tokens.list_tokens(
        db,
        paging,
        name=name,
        created_after=createdAfter,
        created_before=createdBefore,
        updated_after=updatedAfter,
        updated_before=updatedBefore,
    )
    return answer(db, listed, model=ApiTokenList)


@router.get(
    "/tokens/{tokenId}",
    response_model=ApiTokenOut,
    response_model_exclude_none=True,
    responses=error_responses(404),
)
def get_token(tokenId: PathId, db: Db) -> JSONResponse:
    """One token (without its secret)."""
    return answer(db, api_tokens.find_token(db, tokenId), model=ApiTokenOut)


@router.delete("/tokens/{tokenId}", status_code=204, responses=error_responses(404))
def delete_token(tokenId: PathId, db: Db) -> Response:
    """Delete a token: from the answer on, every process refuses it (401)."""
    api_tokens.delete_token(db, tokenId)
    return committed(db, Response(status_code=204))
