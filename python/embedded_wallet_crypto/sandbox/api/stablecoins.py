"""Stablecoins: ``POST/GET /stablecoins``, ``GET /stablecoins/{id}``, its mints, burns and
operations, ``GET /stablecoin-operations/{id}`` and the provider account links. The rules are
in ``domain.stablecoins``. Every POST takes an ``Idempotency-Key`` (required, as published)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import Depends, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Keyed, Paging, Platform, Svc, require_platform
from ..domain import stablecoin_links, stablecoins
from ..domain.errors import invalid
from ..models.stablecoins import (
    BurnRequest,
    MintRequest,
    ProviderAccountLink,
    ProviderAccountList,
    ProviderAccountOut,
    StablecoinList,
    StablecoinOperationList,
    StablecoinOperationOut,
    StablecoinOut,
    StablecoinRegister,
)
from .common import IDEMPOTENCY_RESPONSES, PathId, answer, error_responses, idempotent
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Stablecoins"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

_Provider = Annotated[Literal["BRALE"] | None, Query()]


def _keyed_once(
    db: Db, platform: str, keyed: Keyed, produce: Callable[[], dict[str, Any]]
) -> JSONResponse:
    if keyed is None:
        raise invalid("The Idempotency-Key header is required.")
    return idempotent(db, platform, keyed, lambda: (201, produce()))


@router.post(
    "/stablecoin-provider-accounts",
    status_code=201,
    responses=IDEMPOTENCY_RESPONSES,
    response_model=ProviderAccountOut,
)
def link_provider_account(
    body: ProviderAccountLink, platform: Platform, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Link provider API credentials (the secret is never returned)."""
    return _keyed_once(
        db,
        platform,
        keyed,
        lambda: stablecoin_links.link_provider_account(db, services, body),
    )


@router.get("/stablecoin-provider-accounts", response_model=ProviderAccountList)
def list_provider_accounts(
    db: Db,
    paging: Paging,
    provider: _Provider = None,
    status: Annotated[Literal["ACTIVE", "INVALID", "REVOKED"] | None, Query()] = None,
) -> JSONResponse:
    """The platform's provider account links, oldest first."""
    listed = stablecoin_links.list_provider_accounts(db, paging, provider=provider, status=status)
    return answer(db, listed)


@router.get(
    "/stablecoin-provider-accounts/{stablecoinProviderAccountId}",
    response_model=ProviderAccountOut,
)
def get_provider_account(stablecoinProviderAccountId: PathId, db: Db) -> JSONResponse:
    """One provider account link."""
    found = stablecoin_links.find_provider_account(db, stablecoinProviderAccountId)
    return answer(db, found)


@router.post(
    "/stablecoins", status_code=201, responses=IDEMPOTENCY_RESPONSES, response_model=StablecoinOut
)
def register_stablecoin(
    body: StablecoinRegister, platform: Platform, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Register a provider-created stablecoin."""
    return _keyed_once(
        db,
        platform,
        keyed,
        lambda: stablecoin_links.register_stablecoin(db, services, body),
    )


@router.get("/stablecoins", response_model=StablecoinList)
def list_stablecoins(
    db: Db,
    paging: Paging,
    issuanceStatus: Annotated[
        Literal["PENDING_REVIEW", "PROVISIONING", "PROVISIONED", "REJECTED", "FAILED"] | None,
        Query(),
    ] = None,
    gridOperationsStatus: Annotated[
        Literal["NOT_ENABLED", "PENDING_APPROVAL", "ENABLING", "ENABLED", "DISABLED"] | None,
        Query(),
    ] = None,
    provider: _Provider = None,
) -> JSONResponse:
    """The platform's stablecoins, newest first."""
    filters: dict[str, str | None] = {
        "issuanceStatus": issuanceStatus,
        "gridOperationsStatus": gridOperationsStatus,
        "provider": provider,
    }
    listed = stablecoin_links.list_stablecoins(db, paging.ordered("desc"), filters)
    return answer(db, listed)


@router.get("/stablecoins/{stablecoinId}", response_model=StablecoinOut)
def get_stablecoin(stablecoinId: PathId, db: Db) -> JSONResponse:
    """One stablecoin."""
    return answer(db, stablecoin_links.find_stablecoin(db, stablecoinId))


@router.post(
    "/stablecoins/{stablecoinId}/mints",
    status_code=201,
    responses=IDEMPOTENCY_RESPONSES,
    response_model=StablecoinOperationOut,
)
def mint(
    stablecoinId: PathId,
    body: MintRequest,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: Keyed,
) -> JSONResponse:
    """Mint: completes at once (adding to the supply), or waits for a wire."""
    return _keyed_once(
        db, platform, keyed, lambda: stablecoins.mint(db, services, stablecoinId, body)
    )


@router.post(
    "/stablecoins/{stablecoinId}/burns",
    status_code=201,
    responses=IDEMPOTENCY_RESPONSES,
    response_model=StablecoinOperationOut,
)
def burn(
    stablecoinId: PathId,
    body: BurnRequest,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: Keyed,
) -> JSONResponse:
    """Burn: never more than the supply (400 INSUFFICIENT_SUPPLY)."""
    return _keyed_once(
        db, platform, keyed, lambda: stablecoins.burn(db, services, stablecoinId, body)
    )


@router.get("/stablecoins/{stablecoinId}/operations", response_model=StablecoinOperationList)
def list_operations(
    stablecoinId: PathId,
    db: Db,
    paging: Paging,
    operationType: Annotated[Literal["MINT", "BURN"] | None, Query()] = None,
) -> JSONResponse:
    """A stablecoin's mints and burns, most recent first."""
    listed = stablecoins.list_operations(db, stablecoinId, paging.ordered("desc"), operationType)
    return answer(db, listed)


@router.get("/stablecoin-operations/{stablecoinOperationId}", response_model=StablecoinOperationOut)
def get_operation(stablecoinOperationId: PathId, db: Db) -> JSONResponse:
    """One mint or burn."""
    return answer(db, stablecoins.find_operation(db, stablecoinOperationId))
