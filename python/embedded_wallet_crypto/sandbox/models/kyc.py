"""Beneficial owners (``/beneficial-owners``) and documents (``/documents``): the published
request bodies, bounded, and the answers."""

from __future__ import annotations

from datetime import date
from enum import Enum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .fields import Id, storable_text

__all__ = [
    "Address",
    "BeneficialOwnerCreate",
    "BeneficialOwnerList",
    "BeneficialOwnerOut",
    "BeneficialOwnerRole",
    "BeneficialOwnerUpdate",
    "DocumentList",
    "DocumentOut",
    "DocumentReplaceForm",
    "DocumentSide",
    "DocumentType",
    "DocumentUploadForm",
    "IdentificationType",
    "PersonalInfo",
    "PersonalInfoUpdate",
]

_Text = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(storable_text)]
_Country = Annotated[str, Field(pattern=r"^[A-Z]{2}$")]
_Email = Annotated[str, Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
_Phone = Annotated[str, Field(pattern=r"^\+[1-9]\d{1,14}$")]
_Percent = Annotated[int, Field(strict=True, ge=0, le=100)]


class BeneficialOwnerRole(str, Enum):
    UBO = "UBO"
    DIRECTOR = "DIRECTOR"
    COMPANY_OFFICER = "COMPANY_OFFICER"
    CONTROL_PERSON = "CONTROL_PERSON"
    TRUSTEE = "TRUSTEE"
    GENERAL_PARTNER = "GENERAL_PARTNER"


class IdentificationType(str, Enum):
    SSN = "SSN"
    ITIN = "ITIN"
    EIN = "EIN"
    NON_US_TAX_ID = "NON_US_TAX_ID"


def _distinct(values: list[BeneficialOwnerRole]) -> list[BeneficialOwnerRole]:
    if len(set(values)) != len(values):
        raise ValueError("names a role twice")
    return values


_Roles = Annotated[
    list[BeneficialOwnerRole], Field(min_length=1, max_length=6), AfterValidator(_distinct)
]


class Address(BaseModel):
    model_config = ConfigDict(extra="ignore")

    line1: _Text
    line2: _Text | None = None
    city: _Text | None = None
    state: _Text | None = None
    postalCode: Annotated[str, Field(min_length=1, max_length=20), AfterValidator(storable_text)]
    country: _Country


class PersonalInfoUpdate(BaseModel):
    """The published BeneficialOwnerPersonalInfoUpdate: only the given fields change."""

    model_config = ConfigDict(extra="ignore")

    firstName: _Text | None = None
    middleName: _Text | None = None
    lastName: _Text | None = None
    birthDate: date | None = None
    nationality: _Country | None = None
    email: _Email | None = None
    phoneNumber: _Phone | None = None
    address: Address | None = None
    idType: IdentificationType | None = None
    identifier: _Text | None = None
    countryOfIssuance: _Country | None = None


class PersonalInfo(PersonalInfoUpdate):
    """The published BeneficialOwnerPersonalInfo."""

    firstName: _Text
    lastName: _Text
    birthDate: date
    nationality: _Country
    address: Address
    idType: IdentificationType
    identifier: _Text


class BeneficialOwnerCreate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    customerId: Id
    roles: _Roles
    ownershipPercentage: _Percent
    personalInfo: PersonalInfo


class BeneficialOwnerUpdate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    roles: _Roles | None = None
    ownershipPercentage: _Percent | None = None
    personalInfo: PersonalInfoUpdate | None = None


class DocumentType(str, Enum):
    PASSPORT = "PASSPORT"
    DRIVERS_LICENSE = "DRIVERS_LICENSE"
    NATIONAL_ID = "NATIONAL_ID"
    PROOF_OF_ADDRESS = "PROOF_OF_ADDRESS"
    BANK_STATEMENT = "BANK_STATEMENT"
    TAX_RETURN = "TAX_RETURN"
    CERTIFICATE_OF_INCORPORATION = "CERTIFICATE_OF_INCORPORATION"
    ARTICLES_OF_INCORPORATION = "ARTICLES_OF_INCORPORATION"
    ARTICLES_OF_ASSOCIATION = "ARTICLES_OF_ASSOCIATION"
    STATE_REGISTRY_EXCERPT = "STATE_REGISTRY_EXCERPT"
    GOOD_STANDING_CERTIFICATE = "GOOD_STANDING_CERTIFICATE"
    INFORMATION_STATEMENT = "INFORMATION_STATEMENT"
    INCUMBENCY_CERTIFICATE = "INCUMBENCY_CERTIFICATE"
    BUSINESS_LICENSE = "BUSINESS_LICENSE"
    SHAREHOLDER_REGISTER = "SHAREHOLDER_REGISTER"
    POWER_OF_ATTORNEY = "POWER_OF_ATTORNEY"
    UTILITY_BILL = "UTILITY_BILL"
    ELECTRICITY_BILL = "ELECTRICITY_BILL"
    RENT_OR_LEASE_AGREEMENT = "RENT_OR_LEASE_AGREEMENT"
    DIRECTOR_REGISTRY = "DIRECTOR_REGISTRY"
    TRUST_AGREEMENT = "TRUST_AGREEMENT"
    STATE_COMPANY_REGISTRY = "STATE_COMPANY_REGISTRY"
    PARTNERSHIP_CONTROL_AGREEMENT = "PARTNERSHIP_CONTROL_AGREEMENT"
    PARTNERSHIP_AGREEMENT = "PARTNERSHIP_AGREEMENT"
    SELFIE = "SELFIE"
    OTHER = "OTHER"


class DocumentSide(str, Enum):
    FRONT = "FRONT"
    BACK = "BACK"


class DocumentReplaceForm(BaseModel):
    """The metadata fields of the published DocumentReplaceRequest (its ``file`` apart)."""

    model_config = ConfigDict(extra="ignore")

    documentType: DocumentType
    country: _Country
    side: DocumentSide | None = None
    documentNumber: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    issuingAuthority: _Text | None = None


class DocumentUploadForm(DocumentReplaceForm):
    """The metadata fields of the published DocumentUploadRequest."""

    documentHolder: Id


class BeneficialOwnerOut(BaseModel):
    """The published BeneficialOwner (``personalInfo`` as it was sent)."""

    id: str
    customerId: str
    roles: list[BeneficialOwnerRole]
    ownershipPercentage: int
    personalInfo: dict[str, Any]
    kycStatus: str
    createdAt: str
    updatedAt: str | None = None


class BeneficialOwnerList(BaseModel):
    data: list[BeneficialOwnerOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class DocumentOut(BaseModel):
    """The published Document (its metadata: the file itself is never answered)."""

    id: str
    documentHolder: str
    documentType: DocumentType
    side: DocumentSide | None = None
    country: str
    documentNumber: str | None = None
    issuingAuthority: str | None = None
    fileName: str
    createdAt: str
    updatedAt: str | None = None


class DocumentList(BaseModel):
    data: list[DocumentOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None
