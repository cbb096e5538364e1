"""The platform's read-only directories: ``GET /exchange-rates``, ``/uma-providers``,
``/vasps``, ``/discoveries`` (``domain.directory``) and ``GET /platform/internal-accounts``
(``domain.platform_accounts``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Svc, require_platform
from ..domain import directory, platform_accounts
from ..domain.payment_tables import MAX_LOCKED_AMOUNT
from ..models.common import SortOrder
from ..models.customers import AccountType
from ..models.directory import (
    DiscoveryList,
    ExchangeRateList,
    PlatformInternalAccountList,
    UmaProviderList,
    VaspList,
)
from .common import Sort, answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(dependencies=[Depends(require_platform)], responses=error_responses(400, 401))

_Code = Annotated[str | None, Query(max_length=10)]


@router.get("/exchange-rates", tags=["Exchange Rates"], response_model=ExchangeRateList)
def get_exchange_rates(
    db: Db,
    services: Svc,
    sourceCurrency: _Code = None,
    destinationCurrency: Annotated[list[str] | None, Query(max_length=20)] = None,
    sendingAmount: Annotated[
        int, Query(ge=0, le=MAX_LOCKED_AMOUNT)
    ] = directory.DEFAULT_SENDING_AMOUNT,
) -> JSONResponse:
    """The sandbox's fixed rates for each corridor, priced for ``sendingAmount``."""
    rates = directory.exchange_rates(
        db, services.clock.now(), sourceCurrency, destinationCurrency or [], sendingAmount
    )
    return answer(db, rates)


@router.get("/uma-providers", tags=["Available UMA Providers"], response_model=UmaProviderList)
def list_uma_providers(
    db: Db,
    paging: Paging,
    countryCode: _Code = None,
    currencyCode: _Code = None,
    hasBlockedProviders: bool = True,
    sortOrder: Sort = SortOrder.desc,
) -> JSONResponse:
    """The sandbox's UMA providers (``hasBlockedProviders=false`` leaves out the one not on
    the allow list), by name; newest first means Z to A."""
    request = paging.ordered(sortOrder.value)
    found = directory.uma_providers(request, countryCode, currencyCode, hasBlockedProviders)
    return answer(db, found)


@router.get("/vasps", tags=["VASPs"], response_model=VaspList)
def list_vasps(db: Db, paging: Paging) -> JSONResponse:
    """The sandbox's VASP directory, by name."""
    return answer(db, directory.vasps(paging))


@router.get("/discoveries", tags=["Discoveries"], response_model=DiscoveryList)
def get_discoveries(db: Db, country: _Code = None, currency: _Code = None) -> JSONResponse:
    """The sandbox's receiving institutions, filtered by country and currency."""
    return answer(db, directory.discoveries(country, currency))


@router.get(
    "/platform/internal-accounts",
    tags=["Internal Accounts"],
    response_model=PlatformInternalAccountList,
)
def list_platform_internal_accounts(
    db: Db,
    services: Svc,
    currency: _Code = None,
    type: AccountType | None = None,
) -> JSONResponse:
    """The platform's own internal accounts: one per supported currency (made on first list)."""
    listed = platform_accounts.list_platform_accounts(
        db, services.clock.now(), currency, type.value if type is not None else None
    )
    return answer(db, listed)
