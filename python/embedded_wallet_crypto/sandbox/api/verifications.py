"""``POST /verifications`` (KYC of an individual, KYB of a business and KYC of its beneficial
owners) and ``GET /verifications/{id}``; the sandbox outcomes are in
``domain.verifications``."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from ..deps import Db, Svc, require_platform
from ..domain import verifications
from ..models.verifications import VerificationCreate, VerificationOut
from .common import answer

__all__ = ["router"]

router = APIRouter(tags=["Verifications"], dependencies=[Depends(require_platform)])


@router.post("/verifications", response_model=VerificationOut)
def create_verification(body: VerificationCreate, db: Db, services: Svc) -> JSONResponse:
    """Verify a customer (KYC for an individual, KYB and owners' KYC for a business)."""
    return answer(db, verifications.create_verification(db, services, body))


@router.get("/verifications/{verificationId}", response_model=VerificationOut)
def get_verification(verificationId: str, db: Db) -> JSONResponse:
    """One verification."""
    return answer(db, verifications.get_verification(db, verificationId))
