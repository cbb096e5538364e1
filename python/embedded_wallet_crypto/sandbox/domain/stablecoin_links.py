"""Stablecoin provider account links and stablecoin registration (``domain.stablecoins`` has
the mints and burns).

No provider is contacted (the service runs offline): a link is ACTIVE at once (its secret is
kept only as a SHA-256, never returned), a registered stablecoin is PROVISIONED with its name and
symbol taken from the provider's token identifier and :data:`DECIMALS` decimals against USD.

Links and stablecoins belong to the platform, not to the credential that made them: the service
serves one platform per database (as for its customers and accounts), so every credential of
it (the configured ones and the API tokens) sees them all, and deleting a token orphans none.
The platform holds at most 20 links and 100 stablecoins (409 ``COLLECTION_LIMIT_REACHED``,
counted under the platform's lock in the transaction of the insert).
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.pages import PageRequest, page
from ..db.tables_cards import Stablecoin, StablecoinProviderAccount
from ..ids import new_id
from ..models.stablecoins import ProviderAccountLink, StablecoinRegister
from ..services import Services
from .collection_caps import MAX_STABLECOIN_LINKS, MAX_STABLECOINS, ensure_room, lock_platform
from .errors import Refusal, invalid, not_found

__all__ = [
    "DECIMALS",
    "PLATFORM",
    "find_provider_account",
    "find_stablecoin",
    "link_provider_account",
    "list_provider_accounts",
    "list_stablecoins",
    "owned_stablecoin",
    "register_stablecoin",
]

#: The decimals of every registered stablecoin.
DECIMALS: Final = 6
#: The ``platform`` column of the rows made now: the database's one platform.
PLATFORM: Final = "platform"


def _environment(services: Services) -> str:
    return "SANDBOX" if services.sandbox else "PRODUCTION"


# --- provider accounts -------------------------------------------------------------------------


def provider_account_body(row: StablecoinProviderAccount) -> dict[str, Any]:
    return {
        "id": row.id,
        "provider": row.provider,
        "providerAccountId": row.provider_account_id,
        "providerEnvironment": row.environment,
        "status": row.status,
        "lastVerifiedAt": iso(row.verified_at),
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def link_provider_account(
    db: Session, services: Services, body: ProviderAccountLink
) -> dict[str, Any]:
    """Link provider credentials; 409 CONFLICT when this provider account is linked already."""
    secret_hash = hashlib.sha256(body.apiClientSecret.encode("utf-8", "surrogatepass")).hexdigest()
    account = body.providerAccountId
    if account is None:  # the one account the credentials expose (the sandbox: one per client)
        account = "brale_" + hashlib.sha256(body.apiClientId.encode()).hexdigest()[:16]
    lock_platform(db)
    links = select(StablecoinProviderAccount.id)
    ensure_room(db, links, MAX_STABLECOIN_LINKS, "stablecoin provider account links")
    if db.scalar(
        links.where(
            StablecoinProviderAccount.provider == body.provider,
            StablecoinProviderAccount.provider_account_id == account,
        ).limit(1)
    ):
        raise Refusal(409, "CONFLICT", "This provider account is linked already.")
    now = services.clock.now()
    row = StablecoinProviderAccount(
        id=new_id("StablecoinProviderAccount"),
        platform=PLATFORM,
        provider=body.provider,
        provider_account_id=account,
        environment=_environment(services),
        status="ACTIVE",
        client_id=body.apiClientId,
        secret_hash=secret_hash,
        verified_at=now,
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    try:
        db.flush()
    except IntegrityError:
        raise Refusal(409, "CONFLICT", "This provider account is linked already.") from None
    return provider_account_body(row)


def _provider_account(db: Session, link_id: str) -> StablecoinProviderAccount:
    row = db.get(StablecoinProviderAccount, link_id)
    if row is None:
        raise not_found("No stablecoin provider account link has this id.")
    return row


def find_provider_account(db: Session, link_id: str) -> dict[str, Any]:
    return provider_account_body(_provider_account(db, link_id))


def list_provider_accounts(
    db: Session,
    request: PageRequest,
    *,
    provider: str | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    table = StablecoinProviderAccount
    query = select(table)
    if provider is not None:
        query = query.where(table.provider == provider)
    if status is not None:
        query = query.where(table.status == status)
    return page(db, query, table, provider_account_body, request)


# --- stablecoins -------------------------------------------------------------------------------


def stablecoin_body(row: Stablecoin) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "symbol": row.symbol,
        "baseCurrency": row.base_currency,
        "network": row.network,
        "decimals": row.decimals,
        "issuanceStatus": "PROVISIONED",
        "gridOperationsStatus": "NOT_ENABLED",
        "networkTokenIdentifier": row.network_token,
        "provider": "BRALE",
        "stablecoinProviderAccountId": row.provider_account_id,
        "providerEnvironment": row.environment,
        "providerTokenIdentifier": row.provider_token,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def _chosen_link(db: Session, link_id: str | None) -> StablecoinProviderAccount:
    if link_id is not None:
        return _provider_account(db, link_id)
    table = StablecoinProviderAccount
    active = db.scalars(select(table).where(table.status == "ACTIVE").limit(2)).all()
    if not active:
        raise not_found("No active stablecoin provider account is linked.")
    if len(active) > 1:
        raise invalid(
            "Several provider accounts are linked: name one in stablecoinProviderAccountId.",
            "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED",
        )
    return active[0]


def register_stablecoin(
    db: Session, services: Services, body: StablecoinRegister
) -> dict[str, Any]:
    """Register a provider's token; 409 CONFLICT when this network token is registered."""
    link = _chosen_link(db, body.stablecoinProviderAccountId)
    lock_platform(db)
    coins = select(Stablecoin.id)
    ensure_room(db, coins, MAX_STABLECOINS, "stablecoins")
    if db.scalar(
        coins.where(
            Stablecoin.network == body.network,
            Stablecoin.network_token == body.networkTokenIdentifier,
        ).limit(1)
    ):
        raise Refusal(409, "CONFLICT", "This network token is registered already.")
    now = services.clock.now()
    row = Stablecoin(
        id=new_id("Stablecoin"),
        platform=PLATFORM,
        provider_account_id=link.id,
        provider_token=body.providerTokenIdentifier,
        network_token=body.networkTokenIdentifier,
        network=body.network,
        name=body.providerTokenIdentifier,
        symbol=body.providerTokenIdentifier.upper()[:20],
        decimals=DECIMALS,
        base_currency="USD",
        environment=link.environment,
        supply=0,
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    try:
        db.flush()
    except IntegrityError:
        raise Refusal(409, "CONFLICT", "This network token is registered already.") from None
    return stablecoin_body(row)


def owned_stablecoin(db: Session, stablecoin_id: str) -> Stablecoin:
    """The platform's stablecoin of this id; 404 otherwise."""
    row = db.get(Stablecoin, stablecoin_id)
    if row is None:
        raise not_found("No stablecoin has this id.")
    return row


def find_stablecoin(db: Session, stablecoin_id: str) -> dict[str, Any]:
    return stablecoin_body(owned_stablecoin(db, stablecoin_id))


def list_stablecoins(
    db: Session, request: PageRequest, filters: dict[str, str | None]
) -> dict[str, Any]:
    """The platform's stablecoins, newest first. Every one is PROVISIONED, NOT_ENABLED and
    BRALE: another value of those filters matches none."""
    query = select(Stablecoin)
    fixed = {"issuanceStatus": "PROVISIONED", "gridOperationsStatus": "NOT_ENABLED"}
    for name, value in {**fixed, "provider": "BRALE"}.items():
        if filters.get(name) not in (None, value):
            query = query.where(Stablecoin.id.is_(None))
    return page(db, query, Stablecoin, stablecoin_body, request)
