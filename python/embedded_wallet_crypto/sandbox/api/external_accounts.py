"""External accounts: ``POST/GET /platform/external-accounts`` (the platform's own) and
``POST/GET /customers/external-accounts`` (a customer's)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Svc, require_platform
from ..domain import external_accounts
from ..domain.errors import invalid
from ..models.external_accounts import (
    ExternalAccountCreate,
    ExternalAccountList,
    ExternalAccountOut,
    PlatformExternalAccountCreate,
)
from .common import PathId, answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["External accounts"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

_Currency = Annotated[str | None, Query(max_length=10)]


@router.post("/platform/external-accounts", status_code=201, response_model=ExternalAccountOut)
def create_platform_account(
    body: PlatformExternalAccountCreate, db: Db, services: Svc
) -> JSONResponse:
    """Register an external account of the platform itself (``customerId`` is null)."""
    created = external_accounts.create_external_account(db, services, body, None)
    return answer(db, created, status=201)


@router.post("/customers/external-accounts", status_code=201, response_model=ExternalAccountOut)
def create_customer_account(body: ExternalAccountCreate, db: Db, services: Svc) -> JSONResponse:
    """Register a customer's external account (``customerId`` required)."""
    if body.customerId is None:
        raise invalid("customerId is required.")
    created = external_accounts.create_external_account(db, services, body, body.customerId)
    return answer(db, created, status=201)


@router.get("/platform/external-accounts", response_model=ExternalAccountList)
def list_platform_accounts(db: Db, paging: Paging, currency: _Currency = None) -> JSONResponse:
    """The platform's own external accounts, oldest first."""
    listed = external_accounts.list_external_accounts(
        db, paging, platform=True, currency_code=currency
    )
    return answer(db, listed)


@router.get("/customers/external-accounts", response_model=ExternalAccountList)
def list_customer_accounts(
    db: Db,
    paging: Paging,
    customerId: Annotated[str | None, Query(max_length=200)] = None,
    currency: _Currency = None,
) -> JSONResponse:
    """The customers' external accounts, oldest first; filters combine."""
    listed = external_accounts.list_external_accounts(
        db, paging, platform=False, customer_id=customerId, currency_code=currency
    )
    return answer(db, listed)


@router.get("/platform/external-accounts/{externalAccountId}", response_model=ExternalAccountOut)
def get_platform_account(externalAccountId: PathId, db: Db) -> JSONResponse:
    """One of the platform's own external accounts."""
    return answer(db, external_accounts.find_external_account(db, externalAccountId, platform=True))


@router.get("/customers/external-accounts/{externalAccountId}", response_model=ExternalAccountOut)
def get_customer_account(externalAccountId: PathId, db: Db) -> JSONResponse:
    """One customer's external account."""
    return answer(
        db, external_accounts.find_external_account(db, externalAccountId, platform=False)
    )
