"""External accounts: ``POST /platform/external-accounts`` and ``POST
/customers/external-accounts``, with the three account-info variants."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .fields import Id

__all__ = [
    "AccountInfo",
    "AedAccount",
    "Beneficiary",
    "BrlAccount",
    "ExternalAccountCreate",
    "ExternalAccountList",
    "ExternalAccountOut",
    "PlatformExternalAccountCreate",
    "UsdAccount",
]


class Address(BaseModel):
    model_config = ConfigDict(extra="ignore")
    line1: Id | None = None
    line2: Id | None = None
    city: Id | None = None
    state: Id | None = None
    postalCode: Annotated[str, Field(max_length=20)] | None = None
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None


class Beneficiary(BaseModel):
    model_config = ConfigDict(extra="ignore")
    beneficiaryType: Literal["INDIVIDUAL", "BUSINESS"] = "INDIVIDUAL"
    fullName: Id
    birthDate: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = None
    nationality: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None
    address: Address | None = None


class UsdAccount(BaseModel):
    model_config = ConfigDict(extra="ignore")
    accountType: Literal["USD_ACCOUNT"]
    accountNumber: Annotated[str, Field(pattern=r"^\d{4,17}$")]
    routingNumber: Annotated[str, Field(pattern=r"^\d{9}$")]
    bankAccountType: Literal["CHECKING", "SAVINGS"] = "CHECKING"
    bankName: Id | None = None
    platformAccountId: Id | None = None
    beneficiary: Beneficiary | None = None


class BrlAccount(BaseModel):
    model_config = ConfigDict(extra="ignore")
    accountType: Literal["BRL_ACCOUNT"]
    pixKey: Id
    pixKeyType: Literal["CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"]
    taxId: Annotated[str, Field(pattern=r"^[0-9./-]{11,18}$")]
    beneficiary: Beneficiary | None = None


class AedAccount(BaseModel):
    model_config = ConfigDict(extra="ignore")
    accountType: Literal["AED_ACCOUNT"]
    iban: Annotated[str, Field(pattern=r"^AE\d{21}$")]
    swiftCode: Annotated[str, Field(pattern=r"^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$")]
    beneficiary: Beneficiary | None = None


AccountInfo = Annotated[UsdAccount | BrlAccount | AedAccount, Field(discriminator="accountType")]


class ExternalAccountCreate(BaseModel):
    model_config = ConfigDict(extra="ignore")
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    accountInfo: AccountInfo
    platformAccountId: Id | None = None
    customerId: Id | None = None
    defaultUmaDepositAccount: bool = False


class PlatformExternalAccountCreate(ExternalAccountCreate):
    customerId: None = None
    defaultUmaDepositAccount: Literal[False] = False


class ExternalAccountOut(BaseModel):
    """An external account (a customer's or the platform's)."""

    id: str
    status: str
    currency: str
    #: The account's details as given, with the ``paymentRails`` it reaches.
    accountInfo: dict[str, Any]
    customerId: str | None = None
    platformAccountId: str | None = None
    defaultUmaDepositAccount: bool
    beneficiaryVerificationStatus: str | None = None
    beneficiaryVerifiedData: dict[str, Any] | None = None
    createdAt: str
    updatedAt: str


class ExternalAccountList(BaseModel):
    data: list[ExternalAccountOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None
