"""Stablecoins: provider account links, registration, and mint and burn operations.

No provider is contacted (the service runs offline): a link is ACTIVE at once (its secret is
kept only as a SHA-256, never returned), a registered stablecoin is PROVISIONED with its name and
symbol taken from the provider's token identifier and 6 decimals against USD.

The supply is the service's own: a completed mint adds to it, a burn takes from it. A burn takes
its amount in one conditional ``UPDATE ... WHERE supply >= amount`` in the burn's transaction,
so that no two burns at once (in any process, on any backend) take more than was minted: the
one that would pass zero is refused 400 ``INSUFFICIENT_SUPPLY``. A mint adds in one
conditional ``UPDATE`` under the balance ceiling (400 ``BALANCE_LIMIT_EXCEEDED`` past it).

A wire-funded mint waits for the wire (``PENDING_FUNDING``, with funding instructions, expiring
after a day) and adds nothing; every other mint completes at once. A mint funded by a Grid
internal account debits that account the amount in cents (the balance rules of
``domain.balances``). A burn completes at once; an external-account burn also carries the
deposit address the tokens go to.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.pages import PageRequest, page
from ..db.tables_cards import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from ..db.tables_payments import ExternalAccount
from ..db.tables_wallet import InternalAccount
from ..ids import new_id
from ..models.fields import MAX_AMOUNT
from ..models.stablecoins import BurnRequest, MintRequest, ProviderAccountLink, StablecoinRegister
from ..services import Services
from .balances import debit
from .errors import Refusal, invalid, not_found

__all__ = [
    "DECIMALS",
    "burn",
    "find_operation",
    "find_provider_account",
    "find_stablecoin",
    "link_provider_account",
    "list_operations",
    "list_provider_accounts",
    "list_stablecoins",
    "mint",
    "register_stablecoin",
]

#: The decimals of every registered stablecoin; an amount must be a whole cent (10**4 units).
DECIMALS: Final = 6
_UNITS_PER_CENT: Final = 10 ** (DECIMALS - 2)
_WIRE_SECONDS: Final = 86_400
_TIMING = {
    "WIRE": "same business day",
    "ACH_CREDIT": "1-3 business days",
    "SAME_DAY_ACH_CREDIT": "same business day",
    "RTP_CREDIT": "within minutes",
}


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
    db: Session, services: Services, platform: str, body: ProviderAccountLink
) -> dict[str, Any]:
    """Link provider credentials; 409 CONFLICT when this provider account is linked already."""
    secret_hash = hashlib.sha256(body.apiClientSecret.encode("utf-8", "surrogatepass")).hexdigest()
    account = body.providerAccountId
    if account is None:  # the one account the credentials expose (the sandbox: one per client)
        account = "brale_" + hashlib.sha256(body.apiClientId.encode()).hexdigest()[:16]
    now = services.clock.now()
    row = StablecoinProviderAccount(
        id=new_id("StablecoinProviderAccount"),
        platform=platform,
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


def _provider_account(db: Session, platform: str, link_id: str) -> StablecoinProviderAccount:
    row = db.get(StablecoinProviderAccount, link_id)
    if row is None or row.platform != platform:
        raise not_found("No stablecoin provider account link has this id.")
    return row


def find_provider_account(db: Session, platform: str, link_id: str) -> dict[str, Any]:
    return provider_account_body(_provider_account(db, platform, link_id))


def list_provider_accounts(
    db: Session,
    platform: str,
    request: PageRequest,
    *,
    provider: str | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    table = StablecoinProviderAccount
    query = select(table).where(table.platform == platform)
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


def _chosen_link(db: Session, platform: str, link_id: str | None) -> StablecoinProviderAccount:
    if link_id is not None:
        return _provider_account(db, platform, link_id)
    table = StablecoinProviderAccount
    active = db.scalars(
        select(table).where(table.platform == platform, table.status == "ACTIVE").limit(2)
    ).all()
    if not active:
        raise not_found("No active stablecoin provider account is linked.")
    if len(active) > 1:
        raise invalid(
            "Several provider accounts are linked: name one in stablecoinProviderAccountId.",
            "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED",
        )
    return active[0]


def register_stablecoin(
    db: Session, services: Services, platform: str, body: StablecoinRegister
) -> dict[str, Any]:
    """Register a provider's token; 409 CONFLICT when this network token is registered."""
    link = _chosen_link(db, platform, body.stablecoinProviderAccountId)
    now = services.clock.now()
    row = Stablecoin(
        id=new_id("Stablecoin"),
        platform=platform,
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


def _stablecoin(db: Session, platform: str, stablecoin_id: str) -> Stablecoin:
    row = db.get(Stablecoin, stablecoin_id)
    if row is None or row.platform != platform:
        raise not_found("No stablecoin has this id.")
    return row


def find_stablecoin(db: Session, platform: str, stablecoin_id: str) -> dict[str, Any]:
    return stablecoin_body(_stablecoin(db, platform, stablecoin_id))


def list_stablecoins(
    db: Session, platform: str, request: PageRequest, filters: dict[str, str | None]
) -> dict[str, Any]:
    """The platform's stablecoins, newest first. Every one is PROVISIONED, NOT_ENABLED and
    BRALE: another value of those filters matches none."""
    query = select(Stablecoin).where(Stablecoin.platform == platform)
    fixed = {"issuanceStatus": "PROVISIONED", "gridOperationsStatus": "NOT_ENABLED"}
    for name, value in {**fixed, "provider": "BRALE"}.items():
        if filters.get(name) not in (None, value):
            query = query.where(Stablecoin.id.is_(None))
    return page(db, query, Stablecoin, stablecoin_body, request)


# --- operations --------------------------------------------------------------------------------


def operation_body(row: StablecoinOperation) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": row.id,
        "stablecoinId": row.stablecoin_id,
        "operationType": row.operation_type,
        "status": row.status,
        "amount": str(row.amount),
        "provider": "BRALE",
        "providerEnvironment": row.extra["environment"],
        "stablecoinProviderAccountId": row.extra["link"],
        "source": row.source,
        "destination": row.destination,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    for key in ("fundingInstructions", "estimatedDelivery", "expiresAt", "providerStatus"):
        if key in row.extra:
            body[key] = row.extra[key]
    if row.description is not None:
        body["description"] = row.description
    return body


def _whole_cents(amount: int) -> int:
    if amount % _UNITS_PER_CENT:
        raise invalid(
            f"amount must be a whole cent: a multiple of {_UNITS_PER_CENT} units "
            f"({DECIMALS} decimals).",
            "INVALID_AMOUNT",
        )
    return amount // _UNITS_PER_CENT


def _account_exists(db: Session, account_id: str, what: str) -> None:
    kind = ExternalAccount if account_id.startswith("ExternalAccount:") else InternalAccount
    if db.get(kind, account_id) is None:
        raise not_found(f"No account has the {what}'s id.")


def _operation(
    db: Session, services: Services, coin: Stablecoin, kind: str, status: str, **fields: Any
) -> StablecoinOperation:
    now = services.clock.now()
    extra = {"environment": coin.environment, "link": coin.provider_account_id}
    extra.update(fields.pop("extra", {}))
    row = StablecoinOperation(
        id=new_id("StablecoinOperation"),
        stablecoin_id=coin.id,
        operation_type=kind,
        status=status,
        extra=extra,
        created_at=now,
        updated_at=now,
        **fields,
    )
    db.add(row)
    db.flush()
    return row


def mint(
    db: Session, services: Services, platform: str, stablecoin_id: str, body: MintRequest
) -> dict[str, Any]:
    """A mint: a wire waits for its funds, every other source completes and adds to the
    supply (in one conditional update, under the ceiling)."""
    coin = _stablecoin(db, platform, stablecoin_id)
    amount = int(body.amount)
    cents = _whole_cents(amount)
    source = body.fundingSource.model_dump()
    _account_exists(db, body.destination.accountId, "destination")
    external = source.get("externalAccountId")
    if external is not None:
        _account_exists(db, external, "funding source")
    extra: dict[str, Any] = {}
    if source["type"] == "WIRE":
        expires = services.clock.later(_WIRE_SECONDS)
        extra["fundingInstructions"] = {
            "rail": "WIRE",
            "bankName": "Sandbox Bank",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
            "reference": coin.id.rsplit(":", 1)[-1][:12].upper(),
            "amount": str(cents),
            "currency": "USD",
        }
        extra["expiresAt"] = iso(expires)
        row = _operation(
            db, services, coin, "MINT", "PENDING_FUNDING", amount=amount, source=source,
            destination={"accountId": body.destination.accountId},
            description=body.description, extra=extra,
        )  # fmt: skip
        return operation_body(row)
    if source["type"] == "GRID_INTERNAL_ACCOUNT":
        _account_exists(db, source["accountId"], "funding source")
        debit(db, source["accountId"], cents)
    added = db.execute(
        update(Stablecoin)
        .where(Stablecoin.id == coin.id, Stablecoin.supply <= MAX_AMOUNT - amount)
        .values(supply=Stablecoin.supply + amount, updated_at=services.clock.now())
    )
    if getattr(added, "rowcount", 0) != 1:
        raise invalid(
            f"The supply would pass the ceiling of {MAX_AMOUNT} units.", "BALANCE_LIMIT_EXCEEDED"
        )
    row = _operation(
        db, services, coin, "MINT", "COMPLETED", amount=amount, source=source,
        destination={"accountId": body.destination.accountId},
        description=body.description, extra={"providerStatus": "complete"},
    )  # fmt: skip
    return operation_body(row)


def burn(
    db: Session, services: Services, platform: str, stablecoin_id: str, body: BurnRequest
) -> dict[str, Any]:
    """A burn: its amount leaves the supply in one conditional update (never below zero: 400
    INSUFFICIENT_SUPPLY), and its fiat goes to the destination's rail."""
    coin = _stablecoin(db, platform, stablecoin_id)
    amount = int(body.amount)
    cents = _whole_cents(amount)
    _account_exists(db, body.destination.externalAccountId, "destination")
    source = body.source.model_dump()
    if source["type"] == "GRID_INTERNAL_ACCOUNT":
        _account_exists(db, source["accountId"], "source")
    taken = db.execute(
        update(Stablecoin)
        .where(Stablecoin.id == coin.id, Stablecoin.supply >= amount)
        .values(supply=Stablecoin.supply - amount, updated_at=services.clock.now())
    )
    if getattr(taken, "rowcount", 0) != 1:
        raise invalid("The burn is larger than the supply minted.", "INSUFFICIENT_SUPPLY")
    rail = body.destination.rail
    extra: dict[str, Any] = {
        "providerStatus": "complete",
        "estimatedDelivery": {
            "rail": rail,
            "amount": str(cents),
            "currency": coin.base_currency,
            "timing": _TIMING[rail],
        },
    }
    if source["type"] == "EXTERNAL_ACCOUNT":
        extra["fundingInstructions"] = {
            "rail": "SPARK",
            "network": "SPARK",
            "address": "sprt1sandbox" + hashlib.sha256(coin.id.encode()).hexdigest()[:40],
            "valueType": coin.provider_token,
        }
    row = _operation(
        db, services, coin, "BURN", "COMPLETED", amount=amount, source=source,
        destination={"accountId": body.destination.externalAccountId, "rail": rail},
        description=body.description, extra=extra,
    )  # fmt: skip
    return operation_body(row)


def list_operations(
    db: Session,
    platform: str,
    stablecoin_id: str,
    request: PageRequest,
    operation_type: str | None = None,
) -> dict[str, Any]:
    """A stablecoin's operations, most recent first."""
    _stablecoin(db, platform, stablecoin_id)
    table = StablecoinOperation
    query = select(table).where(table.stablecoin_id == stablecoin_id)
    if operation_type is not None:
        query = query.where(table.operation_type == operation_type)
    return page(db, query, table, operation_body, request)


def find_operation(db: Session, platform: str, operation_id: str) -> dict[str, Any]:
    row = db.get(StablecoinOperation, operation_id)
    coin = None if row is None else db.get(Stablecoin, row.stablecoin_id)
    if row is None or coin is None or coin.platform != platform:
        raise not_found("No stablecoin operation has this id.")
    return operation_body(row)
