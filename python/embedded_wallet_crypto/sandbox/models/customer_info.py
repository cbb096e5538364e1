"""A customer's ``address`` and ``businessInfo`` as the published document defines them
(``Address``, ``BusinessInfo``/``BusinessInfoUpdate``), bounded, for ``POST /customers``,
``PATCH /customers/{customerId}`` and the bulk CSV import.

``address`` needs ``line1``, ``postalCode`` and ``country`` (ISO 3166-1 alpha-2), as the
published ``Address``. ``businessInfo`` has the published fields and enums; of its fields the
service requires ``legalName`` on creation (what the published ``BusinessInfoResponse`` of
every answer requires), not ``country``, ``taxId`` and ``incorporatedOn``, which the published
create request also requires: the bulk CSV's business rows and the interface's KYB examples
give a business by its legal name (and registration number) only. Unknown members are ignored.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .fields import storable_text
from .kyc import Address

__all__ = ["Address", "BusinessInfo", "BusinessInfoUpdate"]

_Text = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(storable_text)]
_Long = Annotated[str, Field(min_length=1, max_length=500), AfterValidator(storable_text)]
_Name = Annotated[str, Field(min_length=1, max_length=250), AfterValidator(storable_text)]
_Countries = Annotated[list[Annotated[str, Field(pattern=r"^[A-Z]{2}$")]], Field(max_length=250)]


EntityType = Literal[
    "SOLE_PROPRIETORSHIP",
    "PARTNERSHIP",
    "LLC",
    "CORPORATION",
    "S_CORPORATION",
    "NON_PROFIT",
    "PUBLICLY_LISTED_COMPANY",
    "TRUST",
    "PRIVATE_FOUNDATION",
    "CHARITY",
    "OTHER",
]
BusinessType = Literal[
    "AGRICULTURE_FORESTRY_FISHING_AND_HUNTING",
    "MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION",
    "UTILITIES",
    "CONSTRUCTION",
    "MANUFACTURING",
    "WHOLESALE_TRADE",
    "RETAIL_TRADE",
    "TRANSPORTATION_AND_WAREHOUSING",
    "INFORMATION",
    "FINANCE_AND_INSURANCE",
    "REAL_ESTATE_AND_RENTAL_AND_LEASING",
    "PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES",
    "MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES",
    "ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES",
    "EDUCATIONAL_SERVICES",
    "HEALTH_CARE_AND_SOCIAL_ASSISTANCE",
    "ARTS_ENTERTAINMENT_AND_RECREATION",
    "ACCOMMODATION_AND_FOOD_SERVICES",
    "OTHER_SERVICES",
    "PUBLIC_ADMINISTRATION",
]
PurposeOfAccount = Literal[
    "CONTRACTOR_PAYOUTS",
    "CREATOR_PAYOUTS",
    "EMPLOYEE_PAYOUTS",
    "MARKETPLACE_SELLER_PAYOUTS",
    "SUPPLIER_PAYMENTS",
    "CROSS_BORDER_B2B",
    "AR_AUTOMATION",
    "AP_AUTOMATION",
    "EMBEDDED_PAYMENTS",
    "PLATFORM_FEE_COLLECTION",
    "P2P_TRANSFERS",
    "CHARITABLE_DONATIONS",
    "OTHER",
]
TransactionCount = Literal[
    "COUNT_UNDER_10",
    "COUNT_10_TO_100",
    "COUNT_100_TO_500",
    "COUNT_500_TO_1000",
    "COUNT_OVER_1000",
]
TransactionVolume = Literal[
    "VOLUME_UNDER_10K",
    "VOLUME_10K_TO_100K",
    "VOLUME_100K_TO_1M",
    "VOLUME_1M_TO_10M",
    "VOLUME_OVER_10M",
]


class BusinessInfoUpdate(BaseModel):
    """The published ``BusinessInfoUpdate``: every field optional, bounded."""

    model_config = ConfigDict(extra="ignore")

    legalName: _Text | None = None
    doingBusinessAs: _Text | None = None
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None
    registrationNumber: _Text | None = None
    incorporatedOn: date | None = None
    entityType: EntityType | None = None
    taxId: _Text | None = None
    countriesOfOperation: _Countries | None = None
    businessType: BusinessType | None = None
    purposeOfAccount: PurposeOfAccount | None = None
    sourceOfFunds: _Long | None = None
    expectedMonthlyTransactionCount: TransactionCount | None = None
    expectedMonthlyTransactionVolume: TransactionVolume | None = None
    expectedRecipientJurisdictions: _Countries | None = None
    naicsCode: Annotated[str, Field(pattern=r"^\d{2,6}$")] | None = None
    sourceOfFundsOtherDescription: _Long | None = None
    purposeOfAccountOtherDescription: _Long | None = None
    expectedCounterpartyCountries: _Countries | None = None
    primaryContactFirstName: _Name | None = None
    primaryContactLastName: _Name | None = None


class BusinessInfo(BusinessInfoUpdate):
    """A business customer's ``businessInfo`` on creation: ``legalName`` required (see the
    module)."""

    legalName: _Text
