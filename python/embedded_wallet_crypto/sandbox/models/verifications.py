"""KYC and KYB verifications: ``POST /verifications``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .fields import storable_text

__all__ = [
    "BeneficialOwner",
    "BusinessInfo",
    "PersonalInfo",
    "VerificationCreate",
    "VerificationList",
    "VerificationOut",
]

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


class VerificationOut(BaseModel):
    """The real service's Verification, with the sandbox's results: ``kybStatus`` of a
    business, ``kycStatus`` of an individual, the ``beneficialOwners``' statuses."""

    id: str
    customerId: str
    verificationStatus: str
    errors: list[dict[str, Any]]
    createdAt: str
    updatedAt: str
    kybStatus: str | None = None
    kycStatus: str | None = None
    beneficialOwners: list[dict[str, Any]] | None = None


class VerificationList(BaseModel):
    data: list[VerificationOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None
