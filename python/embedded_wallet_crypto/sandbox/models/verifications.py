"""KYC and KYB verifications: ``POST /verifications``."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .fields import storable_text

__all__ = ["BeneficialOwner", "BusinessInfo", "PersonalInfo", "VerificationCreate"]

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
