"""``POST /verifications`` (KYC of an individual, KYB of a business and KYC of its beneficial
owners), ``GET /verifications`` and ``GET /verifications/{id}``; the sandbox outcomes are in
``domain.verifications``."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Depends, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Svc, require_platform
from ..domain import verifications
from ..models.verifications import VerificationCreate, VerificationList, VerificationOut
from .common import answer
from .routing import Router

__all__ = ["router"]

router = Router(tags=["Verifications"], dependencies=[Depends(require_platform)])


@router.post("/verifications", response_model=VerificationOut)
def create_verification(body: VerificationCreate, db: Db, services: Svc) -> JSONResponse:
    """Verify a customer (KYC for an individual, KYB and owners' KYC for a business)."""
    return answer(db, verifications.create_verification(db, services, body))


@router.get("/verifications/{verificationId}", response_model=VerificationOut)
def get_verification(verificationId: str, db: Db) -> JSONResponse:
    """One verification."""
    return answer(db, verifications.get_verification(db, verificationId))


_Status = Literal[
    "RESOLVE_ERRORS",
    "PENDING_MANUAL_REVIEW",
    "IN_PROGRESS",
    "APPROVED",
    "REJECTED",
    "READY_FOR_VERIFICATION",
]


@router.get("/verifications", response_model=VerificationList)
def list_verifications(
    db: Db,
    paging: Paging,
    customerId: Annotated[str | None, Query(max_length=200)] = None,
    verificationStatus: Annotated[_Status | None, Query()] = None,
) -> JSONResponse:
    """Verifications, oldest first; the filters combine."""
    listed = verifications.list_verifications(db, paging, customerId, verificationStatus)
    return answer(db, listed)
