"""``POST /verifications`` (KYC of an individual, KYB of a business and KYC of its beneficial
owners) and ``GET /verifications/{id}``.

Sandbox outcomes: the last 3 characters of the business's ``registrationNumber`` select the KYB
status, those of a person's ``lastName`` the KYC status: 001 PENDING, 002 REJECTED, anything
else APPROVED. The verification is REJECTED if any status is, PENDING_MANUAL_REVIEW if any is
PENDING, APPROVED otherwise; a missing value gives RESOLVE_ERRORS with a MISSING_FIELD error.
In production no outcome is simulated: every complete verification is PENDING_MANUAL_REVIEW.

The values come from the request (``businessInfo.registrationNumber``, ``personalInfo.lastName``,
``beneficialOwners[].personalInfo.lastName``), else from the customer: its ``businessInfo`` and,
for an individual, the last word of its ``fullName``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from .. import _agents as rules
from .._auth import require_platform
from .._clock import iso
from .._db import get_session
from .._errors import ApiError
from .._ids import new_id
from .._limits import storable_text
from .._models import Customer
from .._models_agents import Verification
from .._services import Services, get_services

__all__ = ["router", "verification_body"]

router = APIRouter(tags=["Verifications"], dependencies=[Depends(require_platform)])

Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]

_Text = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(storable_text)]


class PersonalInfo(BaseModel):
    model_config = ConfigDict(extra="ignore")

    firstName: _Text | None = None
    lastName: _Text | None = None


class BusinessInfo(BaseModel):
    model_config = ConfigDict(extra="ignore")

    legalName: _Text | None = None
    registrationNumber: _Text | None = None


class BeneficialOwner(BaseModel):
    model_config = ConfigDict(extra="ignore")

    personalInfo: PersonalInfo


class VerificationCreate(BaseModel):
    """The real service's VerificationRequest, with the sandbox's optional data fields."""

    model_config = ConfigDict(extra="ignore")

    customerId: Annotated[str, Field(min_length=1, max_length=100)]
    businessInfo: BusinessInfo | None = None
    personalInfo: PersonalInfo | None = None
    beneficialOwners: Annotated[list[BeneficialOwner], Field(max_length=50)] | None = None


def verification_body(row: Verification) -> dict[str, Any]:
    """The real service's Verification, with the sandbox's kybStatus / kycStatus results."""
    body: dict[str, Any] = {
        "id": row.id,
        "customerId": row.customer_id,
        "verificationStatus": row.status,
        "errors": list(row.errors),
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    body.update(row.details)
    return body


def _text(value: str | None, where: str) -> str | None:
    return None if value is None else rules.check_text(value, where)


def _missing(resource: str, field: str, reason: str) -> dict[str, Any]:
    return {"resourceId": resource, "type": "MISSING_FIELD", "field": field, "reason": reason}


def _evaluate(
    customer: Customer, body: VerificationCreate, sandbox: bool
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    errors: list[dict[str, Any]] = []
    details: dict[str, Any] = {}
    statuses: list[str] = []
    stored: dict[str, Any] = customer.details or {}
    if customer.customer_type == "BUSINESS":
        number = _text(
            body.businessInfo.registrationNumber if body.businessInfo else None,
            "businessInfo.registrationNumber",
        )
        if number is None:
            info = stored.get("businessInfo")
            value = info.get("registrationNumber") if isinstance(info, dict) else None
            number = value if isinstance(value, str) and value else None
        if number is None:
            errors.append(
                _missing(
                    customer.id,
                    "customer.businessInfo.registrationNumber",
                    "The business registration number is required.",
                )
            )
        else:
            details["kybStatus"] = rules.kyb_status(number, sandbox=sandbox)
            statuses.append(details["kybStatus"])
        owners = []
        for index, owner in enumerate(body.beneficialOwners or []):
            last = _text(owner.personalInfo.lastName, "beneficialOwners[].personalInfo.lastName")
            if last is None:
                errors.append(
                    _missing(
                        customer.id,
                        f"beneficialOwners[{index}].personalInfo.lastName",
                        "The beneficial owner's last name is required.",
                    )
                )
                continue
            status = rules.kyc_status(last, sandbox=sandbox)
            owners.append({"lastName": last, "kycStatus": status})
            statuses.append(status)
        if owners:
            details["beneficialOwners"] = owners
    else:
        last = _text(
            body.personalInfo.lastName if body.personalInfo else None, "personalInfo.lastName"
        )
        if last is None:
            full = stored.get("fullName")
            last = full.split()[-1] if isinstance(full, str) and full.split() else None
        if last is None:
            errors.append(
                _missing(customer.id, "customer.lastName", "The customer's last name is required.")
            )
        else:
            details["kycStatus"] = rules.kyc_status(last, sandbox=sandbox)
            statuses.append(details["kycStatus"])
    return errors, details, statuses


@router.post("/verifications")
def create_verification(body: VerificationCreate, session: Db, services: Svc) -> dict[str, Any]:
    """Verify a customer (KYC for an individual, KYB and owners' KYC for a business)."""
    customer = session.get(Customer, body.customerId)
    if customer is None:
        raise ApiError(404, "CUSTOMER_NOT_FOUND", "No customer has this id.")
    errors, details, statuses = _evaluate(customer, body, services.sandbox)
    status = "RESOLVE_ERRORS" if errors else rules.verification_status(statuses)
    now = services.clock.now()
    row = Verification(
        id=new_id("Verification"),
        customer_id=customer.id,
        status=status,
        errors=errors,
        details=details,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    session.commit()  # before the answer leaves
    return verification_body(row)


@router.get("/verifications/{verificationId}")
def get_verification(verificationId: str, session: Db) -> dict[str, Any]:
    """One verification."""
    row = session.get(Verification, verificationId)
    if row is None:
        raise ApiError(404, "VERIFICATION_NOT_FOUND", "No verification has this id.")
    return verification_body(row)
