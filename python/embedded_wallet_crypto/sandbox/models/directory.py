"""The answers of the platform's read-only directories (``api.directory``): exchange rates,
UMA providers, VASPs, discoveries, and the platform's own internal accounts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .customers import AccountType, CurrencyAmount, CurrencyOut

__all__ = [
    "DiscoveryList",
    "DiscoveryOut",
    "ExchangeRateFees",
    "ExchangeRateList",
    "ExchangeRateOut",
    "PlatformInternalAccountList",
    "PlatformInternalAccountOut",
    "UmaProviderList",
    "UmaProviderOut",
    "VaspList",
    "VaspOut",
]


class ExchangeRateFees(BaseModel):
    """The published ExchangeRateFees (in the sending currency's smallest unit)."""

    fixed: int | None = None
    total: int | None = None


class ExchangeRateOut(BaseModel):
    """The published ExchangeRate: one corridor, priced for ``sendingAmount``."""

    sourceCurrency: CurrencyOut
    sendingAmount: int
    minSendingAmount: int
    maxSendingAmount: int
    destinationCurrency: CurrencyOut
    destinationPaymentRail: str
    receivingAmount: int
    exchangeRate: float
    fees: ExchangeRateFees
    updatedAt: str


class ExchangeRateList(BaseModel):
    """The published ExchangeRateListResponse (every corridor at once: no pages)."""

    data: list[ExchangeRateOut]


class UmaProviderOut(BaseModel):
    """The published UmaProvider (every field optional in the published document)."""

    name: str | None = None
    supportedRegions: list[str] | None = None
    domain: str | None = None
    logoUrl: str | None = None
    supportedCurrencies: list[CurrencyOut] | None = None
    lei: str | None = None
    allowListStatus: bool | None = None


class UmaProviderList(BaseModel):
    data: list[UmaProviderOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class VaspOut(BaseModel):
    """The published Vasp."""

    vaspName: str
    url: str | None = None


class VaspList(BaseModel):
    data: list[VaspOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class DiscoveryOut(BaseModel):
    """A receiving institution of ``/discoveries`` (its ``bankName`` is what an external
    account names)."""

    bankName: str
    displayName: str
    country: str
    currency: str


class DiscoveryList(BaseModel):
    """The published DiscoveryListResponse (no pages)."""

    data: list[DiscoveryOut]


class PlatformInternalAccountOut(BaseModel):
    """The published InternalAccount of the platform itself (no ``customerId``)."""

    id: str
    type: AccountType
    status: str
    balance: CurrencyAmount
    totalBalance: CurrencyAmount
    fundingPaymentInstructions: list[dict[str, Any]]
    createdAt: str
    updatedAt: str


class PlatformInternalAccountList(BaseModel):
    """The published PlatformInternalAccountListResponse (no pages)."""

    data: list[PlatformInternalAccountOut]
