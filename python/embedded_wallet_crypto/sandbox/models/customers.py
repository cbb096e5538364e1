"""Customers and their internal accounts: ``POST /customers``, ``GET
/customers/internal-accounts``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from .customer_info import Address, BusinessInfo

__all__ = [
    "AccountType",
    "CurrencyAmount",
    "CurrencyOut",
    "CustomerCreate",
    "CustomerOut",
    "CustomerType",
    "InternalAccountList",
    "InternalAccountOut",
    "InternalAccountUpdate",
]


class CustomerType(str, Enum):
    INDIVIDUAL = "INDIVIDUAL"
    BUSINESS = "BUSINESS"


class AccountType(str, Enum):
    INTERNAL_FIAT = "INTERNAL_FIAT"
    INTERNAL_CRYPTO = "INTERNAL_CRYPTO"
    EMBEDDED_WALLET = "EMBEDDED_WALLET"


class CustomerCreate(BaseModel):
    """The real service's CustomerCreateRequest (fields the sandbox keeps; others ignored)."""

    model_config = ConfigDict(extra="ignore")

    customerType: CustomerType
    platformCustomerId: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    region: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None
    currencies: (
        Annotated[
            list[Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")]], Field(min_length=1, max_length=20)
        ]
        | None
    ) = None
    email: Annotated[str, Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")] | None = (
        None
    )
    phoneNumber: Annotated[str, Field(pattern=r"^\+[1-9]\d{1,14}$")] | None = None
    umaAddress: Annotated[str, Field(min_length=3, max_length=300)] | None = None
    fullName: Annotated[str, Field(max_length=300)] | None = None
    birthDate: Annotated[str, Field(max_length=10)] | None = None
    nationality: Annotated[str, Field(max_length=2)] | None = None
    #: As the published document defines them (``customer_info``), bounded.
    address: Address | None = None
    businessInfo: BusinessInfo | None = None


class CurrencyOut(BaseModel):
    code: str
    name: str
    symbol: str
    decimals: int


class CurrencyAmount(BaseModel):
    amount: int
    currency: CurrencyOut


class CustomerOut(BaseModel):
    id: str
    platformCustomerId: str
    customerType: CustomerType
    region: str | None = None
    currencies: list[str]
    email: str | None = None
    phoneNumber: str | None = None
    umaAddress: str
    fullName: str | None = None
    birthDate: str | None = None
    nationality: str | None = None
    address: dict[str, Any] | None = None
    businessInfo: dict[str, Any] | None = None
    createdAt: str
    updatedAt: str
    isDeleted: bool
    #: EEA customers (contact verification): ``{"email": ..., "phone": ...}``, PENDING or VERIFIED.
    contactVerification: dict[str, str] | None = None


class InternalAccountOut(BaseModel):
    id: str
    customerId: str
    type: AccountType
    status: str
    balance: CurrencyAmount
    totalBalance: CurrencyAmount
    fundingPaymentInstructions: list[dict[str, Any]]
    #: The wallet's privacy; only present for EMBEDDED_WALLET accounts.
    privateEnabled: bool | None = None
    createdAt: str
    updatedAt: str


class InternalAccountUpdate(BaseModel):
    """The published InternalAccountUpdateRequest: at least one update field (checked by the
    route), the same on both legs of the signed retry."""

    model_config = ConfigDict(extra="forbid")
    privateEnabled: StrictBool | None = None


class InternalAccountList(BaseModel):
    data: list[InternalAccountOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int
