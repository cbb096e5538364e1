"""Stablecoin mint and burn operations, and the supply they keep.

(Links and registration are in ``domain.stablecoin_links``.)

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

A mint's funding account (``GRID_INTERNAL_ACCOUNT``, or the external account of an ACH debit)
holds the stablecoin's base currency (400 ``INVALID_CURRENCY``); an account of a deleted
customer is 404 ``USER_NOT_FOUND``. A stablecoin has at most 10000 operations (409
``COLLECTION_LIMIT_REACHED``, counted with its row locked in the operation's transaction).
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.engine import lock
from ..db.pages import PageRequest, page
from ..db.tables_cards import Stablecoin, StablecoinOperation
from ..db.tables_payments import ExternalAccount
from ..db.tables_wallet import InternalAccount
from ..ids import new_id
from ..models.fields import MAX_AMOUNT
from ..models.stablecoins import BurnRequest, MintRequest
from ..services import Services
from .balances import debit
from .collection_caps import MAX_STABLECOIN_OPERATIONS, ensure_room
from .errors import invalid, not_found
from .live_customers import customer_gone, is_deleted
from .stablecoin_links import DECIMALS, owned_stablecoin

__all__ = ["burn", "find_operation", "list_operations", "mint", "operation_body"]

#: An amount must be a whole cent: a multiple of this many units.
_UNITS_PER_CENT: Final[int] = 10 ** (DECIMALS - 2)
_WIRE_SECONDS: Final = 86_400
_TIMING = {
    "WIRE": "same business day",
    "ACH_CREDIT": "1-3 business days",
    "SAME_DAY_ACH_CREDIT": "same business day",
    "RTP_CREDIT": "within minutes",
}


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


def _account(
    db: Session,
    account_id: str,
    what: str,
    *,
    currency: str | None = None,
    internal: bool | None = None,
) -> None:
    """The account exists (an internal one when ``internal``, an external one when it is
    False; else by its id's prefix; 404), its customer is not deleted (404
    ``USER_NOT_FOUND``) and, for a funding account, it holds ``currency`` (400
    ``INVALID_CURRENCY``)."""
    if internal is None:
        internal = not account_id.startswith("ExternalAccount:")
    row: InternalAccount | ExternalAccount | None = (
        db.get(InternalAccount, account_id) if internal else db.get(ExternalAccount, account_id)
    )
    if row is None:
        raise not_found(f"No account has the {what}'s id.")
    if row.customer_id is not None and is_deleted(db, row.customer_id):
        raise customer_gone()
    if currency is not None and row.currency != currency:
        raise invalid(
            f"The {what} holds {row.currency}; this stablecoin is minted against {currency}.",
            "INVALID_CURRENCY",
        )


def _locked_coin(db: Session, stablecoin_id: str) -> Stablecoin:
    """The stablecoin, its row locked until the transaction ends, with room for one more
    operation (409 ``COLLECTION_LIMIT_REACHED`` past :data:`MAX_STABLECOIN_OPERATIONS`)."""
    coin = owned_stablecoin(db, stablecoin_id)
    lock(db, coin)
    operations = select(StablecoinOperation.id).where(StablecoinOperation.stablecoin_id == coin.id)
    ensure_room(db, operations, MAX_STABLECOIN_OPERATIONS, "operations per stablecoin")
    return coin


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


def mint(db: Session, services: Services, stablecoin_id: str, body: MintRequest) -> dict[str, Any]:
    """A mint: a wire waits for its funds, every other source completes and adds to the
    supply (in one conditional update, under the ceiling). A funding account (ACH debit, Grid
    internal account) holds the stablecoin's base currency (400 ``INVALID_CURRENCY``)."""
    coin = _locked_coin(db, stablecoin_id)
    amount = int(body.amount)
    cents = _whole_cents(amount)
    source = body.fundingSource.model_dump()
    _account(db, body.destination.accountId, "destination")
    external = source.get("externalAccountId")
    if external is not None:
        _account(db, external, "funding source", currency=coin.base_currency, internal=False)
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
        _account(
            db, source["accountId"], "funding source", currency=coin.base_currency, internal=True
        )
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


def burn(db: Session, services: Services, stablecoin_id: str, body: BurnRequest) -> dict[str, Any]:
    """A burn: its amount leaves the supply in one conditional update (never below zero: 400
    INSUFFICIENT_SUPPLY), and its fiat goes to the destination's rail."""
    coin = _locked_coin(db, stablecoin_id)
    amount = int(body.amount)
    cents = _whole_cents(amount)
    _account(db, body.destination.externalAccountId, "destination", internal=False)
    source = body.source.model_dump()
    if source["type"] == "GRID_INTERNAL_ACCOUNT":
        _account(db, source["accountId"], "source")
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
    stablecoin_id: str,
    request: PageRequest,
    operation_type: str | None = None,
) -> dict[str, Any]:
    """A stablecoin's operations, most recent first."""
    owned_stablecoin(db, stablecoin_id)
    table = StablecoinOperation
    query = select(table).where(table.stablecoin_id == stablecoin_id)
    if operation_type is not None:
        query = query.where(table.operation_type == operation_type)
    return page(db, query, table, operation_body, request)


def find_operation(db: Session, operation_id: str) -> dict[str, Any]:
    row = db.get(StablecoinOperation, operation_id)
    coin = None if row is None else db.get(Stablecoin, row.stablecoin_id)
    if row is None or coin is None:
        raise not_found("No stablecoin operation has this id.")
    return operation_body(row)
