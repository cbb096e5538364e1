"""Stablecoins: provider account links, registered stablecoins, and their mint and burn
operations (``/stablecoins``, ``/stablecoin-operations``, ``/stablecoin-provider-accounts``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .fields import MAX_AMOUNT, Id, storable_text

__all__ = [
    "BurnRequest",
    "MintRequest",
    "ProviderAccountLink",
    "ProviderAccountList",
    "ProviderAccountOut",
    "StablecoinList",
    "StablecoinOperationList",
    "StablecoinOperationOut",
    "StablecoinOut",
    "StablecoinRegister",
]

_Text = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(storable_text)]


def _amount(value: str) -> str:
    if int(value) < 1 or int(value) > MAX_AMOUNT:
        raise ValueError(f"it must be from 1 to {MAX_AMOUNT} smallest units")
    return value


#: An amount as the published document writes it: decimal digits in a string, 1 to MAX_AMOUNT.
_Amount = Annotated[
    str, Field(pattern=r"^[0-9]+$", min_length=1, max_length=16), AfterValidator(_amount)
]
_Description = Annotated[str, Field(max_length=1024), AfterValidator(storable_text)]
Provider = Literal["BRALE"]
Rail = Literal["WIRE", "ACH_CREDIT", "SAME_DAY_ACH_CREDIT", "RTP_CREDIT"]


class ProviderAccountLink(BaseModel):
    """StablecoinProviderAccountLinkRequest."""

    model_config = ConfigDict(extra="ignore")

    provider: Provider
    apiClientId: _Text
    apiClientSecret: Annotated[str, Field(min_length=1, max_length=1000)]
    providerAccountId: _Text | None = None


class ProviderAccountOut(BaseModel):
    id: str
    provider: str
    providerAccountId: str
    providerEnvironment: str
    status: str
    lastVerifiedAt: str | None = None
    createdAt: str
    updatedAt: str


class ProviderAccountList(BaseModel):
    data: list[ProviderAccountOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class StablecoinRegister(BaseModel):
    """StablecoinRegisterRequest."""

    model_config = ConfigDict(extra="ignore")

    providerTokenIdentifier: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]
    networkTokenIdentifier: _Text
    network: Literal["SPARK"]
    stablecoinProviderAccountId: Id | None = None


class StablecoinOut(BaseModel):
    id: str
    name: str
    symbol: str
    baseCurrency: str
    network: str
    decimals: int
    issuanceStatus: str
    gridOperationsStatus: str
    networkTokenIdentifier: str
    currency: str | None = None
    provider: str
    stablecoinProviderAccountId: str
    providerEnvironment: str
    providerTokenIdentifier: str
    createdAt: str
    updatedAt: str


class StablecoinList(BaseModel):
    data: list[StablecoinOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class _WireSource(BaseModel):
    type: Literal["WIRE"]


class _AchSource(BaseModel):
    type: Literal["ACH_DEBIT", "SAME_DAY_ACH_DEBIT"]
    externalAccountId: Id


class _InternalSource(BaseModel):
    type: Literal["GRID_INTERNAL_ACCOUNT"]
    accountId: Id


class _ProviderBalanceMintSource(BaseModel):
    type: Literal["PROVIDER_INTERNAL_BALANCE"]
    sourceTokenIdentifier: _Text
    cryptoNetwork: _Text


class _ExternalBurnSource(BaseModel):
    type: Literal["EXTERNAL_ACCOUNT"]


class _ProviderBalanceBurnSource(BaseModel):
    type: Literal["PROVIDER_INTERNAL_BALANCE"]


class _MintDestination(BaseModel):
    accountId: Id


class _BurnDestination(BaseModel):
    type: Literal["EXTERNAL_ACCOUNT"]
    externalAccountId: Id
    rail: Rail


class MintRequest(BaseModel):
    """StablecoinMintRequest."""

    model_config = ConfigDict(extra="ignore")

    amount: _Amount
    fundingSource: Annotated[
        _WireSource | _AchSource | _InternalSource | _ProviderBalanceMintSource,
        Field(discriminator="type"),
    ]
    destination: _MintDestination
    description: _Description | None = None


class BurnRequest(BaseModel):
    """StablecoinBurnRequest."""

    model_config = ConfigDict(extra="ignore")

    amount: _Amount
    source: Annotated[
        _ExternalBurnSource | _InternalSource | _ProviderBalanceBurnSource,
        Field(discriminator="type"),
    ]
    destination: _BurnDestination
    description: _Description | None = None


class StablecoinOperationOut(BaseModel):
    id: str
    stablecoinId: str
    operationType: str
    status: str
    amount: str
    provider: str
    providerEnvironment: str
    stablecoinProviderAccountId: str
    source: dict[str, Any] | None = None
    fundingInstructions: dict[str, Any] | None = None
    destination: dict[str, Any] | None = None
    estimatedDelivery: dict[str, Any] | None = None
    expiresAt: str | None = None
    providerStatus: str | None = None
    failureReason: str | None = None
    description: str | None = None
    createdAt: str
    updatedAt: str


class StablecoinOperationList(BaseModel):
    data: list[StablecoinOperationOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None
