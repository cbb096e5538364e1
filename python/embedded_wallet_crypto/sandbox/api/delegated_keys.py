"""Delegated signing keys: ``POST /auth/delegated-keys`` (three legs, each a signed retry),
``GET /auth/delegated-keys``, ``GET /auth/delegated-keys/{id}`` and
``DELETE /auth/delegated-keys/{id}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Signed, Svc, committed, require_platform
from ..domain import delegated_keys
from ..models.delegated_keys import DelegatedKeyCreate, DelegatedKeyList, DelegatedKeyOut
from .common import CHALLENGE_RESPONSE, PathId, answer, error_responses, signed_answer
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Embedded Wallet Auth"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)
_Filter = Annotated[str | None, Query(min_length=1, max_length=200)]


@router.post(
    "/auth/delegated-keys",
    status_code=201,
    response_model=DelegatedKeyOut,
    responses={
        **CHALLENGE_RESPONSE,
        409: {"description": "DELEGATED_KEY_ALREADY_ACTIVE: revoke the ACTIVE key first."},
    },
)
def create_delegated_key(
    body: DelegatedKeyCreate, signed: Signed, db: Db, services: Svc
) -> JSONResponse:
    """Three legs with the same body: 202 (the signer identity's challenge), 202 (the
    policies' challenge), then 201 and the ACTIVE key. The service makes and holds the key;
    only its public key is returned."""
    status, made = delegated_keys.create_delegated_key(db, services, body, signed)
    return signed_answer(db, status, made, model=DelegatedKeyOut)


@router.get("/auth/delegated-keys", response_model=DelegatedKeyList)
def list_delegated_keys(
    db: Db, accountId: _Filter = None, fundingSourceId: _Filter = None
) -> JSONResponse:
    """The keys of an account and/or a card funding source (at least one of them)."""
    listed = delegated_keys.list_delegated_keys(db, accountId, fundingSourceId)
    return answer(db, listed, model=DelegatedKeyList)


@router.get("/auth/delegated-keys/{key_id}", response_model=DelegatedKeyOut)
def get_delegated_key(key_id: PathId, db: Db) -> JSONResponse:
    return answer(db, delegated_keys.get_delegated_key(db, key_id), model=DelegatedKeyOut)


@router.delete("/auth/delegated-keys/{key_id}", status_code=204)
def revoke_delegated_key(key_id: PathId, db: Db, services: Svc) -> Response:
    """Revoke an ACTIVE key (stamped by the key itself); 400 DELEGATED_KEY_NOT_ACTIVE
    otherwise."""
    delegated_keys.revoke_delegated_key(db, services, key_id)
    return committed(db, Response(status_code=204))
