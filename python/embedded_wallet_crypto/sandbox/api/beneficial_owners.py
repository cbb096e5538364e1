"""Beneficial owners: ``POST/GET /beneficial-owners``, ``GET/PATCH
/beneficial-owners/{beneficialOwnerId}`` (``domain.beneficial_owners``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Svc, require_platform
from ..domain import beneficial_owners
from ..models.kyc import (
    BeneficialOwnerCreate,
    BeneficialOwnerList,
    BeneficialOwnerOut,
    BeneficialOwnerUpdate,
)
from .common import PathId, answer, cap_response, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["KYC/KYB Verifications"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 403),
)


@router.post(
    "/beneficial-owners",
    status_code=201,
    response_model=BeneficialOwnerOut,
    responses={**error_responses(404), **cap_response("beneficial owners of the customer")},
)
def create_beneficial_owner(body: BeneficialOwnerCreate, db: Db, services: Svc) -> JSONResponse:
    """Add a beneficial owner to a BUSINESS customer (the owners' shares stay <= 100%)."""
    created = beneficial_owners.create_beneficial_owner(db, services, body)
    return answer(db, created, status=201)


@router.get("/beneficial-owners", response_model=BeneficialOwnerList)
def list_beneficial_owners(
    db: Db, paging: Paging, customerId: Annotated[str, Query(min_length=1, max_length=200)]
) -> JSONResponse:
    """A business customer's beneficial owners, oldest first."""
    return answer(db, beneficial_owners.list_beneficial_owners(db, paging, customerId))


@router.get(
    "/beneficial-owners/{beneficialOwnerId}",
    response_model=BeneficialOwnerOut,
    responses=error_responses(404),
)
def get_beneficial_owner(beneficialOwnerId: PathId, db: Db) -> JSONResponse:
    """One beneficial owner."""
    return answer(db, beneficial_owners.find_beneficial_owner(db, beneficialOwnerId))


@router.patch(
    "/beneficial-owners/{beneficialOwnerId}",
    response_model=BeneficialOwnerOut,
    responses=error_responses(404),
)
def update_beneficial_owner(
    beneficialOwnerId: PathId, body: BeneficialOwnerUpdate, db: Db, services: Svc
) -> JSONResponse:
    """Change the given fields of a beneficial owner."""
    updated = beneficial_owners.update_beneficial_owner(db, services, beneficialOwnerId, body)
    return answer(db, updated)
