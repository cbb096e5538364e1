"""The platform's own internal accounts (``GET /platform/internal-accounts``).

The published document says they are "created automatically when the platform is configured
for each supported currency": the sandbox makes one, on the first list that misses it, for every
currency of the configuration's ``supportedCurrencies`` (``INTERNAL_CRYPTO`` for USDC, USDT and
BTC, ``INTERNAL_FIAT`` otherwise), balance 0. A currency removed from the configuration keeps
its account. The unique currency column decides "one per currency" across processes: a list
that loses the race to create one reads the winner's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.tables_platform import PlatformInternalAccount
from ..db.tables_wallet import InternalAccount
from ..ids import new_id
from .currencies import currency
from .funding import funding_instructions
from .platform_config import load_config

__all__ = ["list_platform_accounts", "platform_account_body"]

_CRYPTO = frozenset({"USDC", "USDT", "BTC"})


def platform_account_body(row: PlatformInternalAccount) -> dict[str, Any]:
    """The published InternalAccount of the platform (no ``customerId``)."""
    shown = InternalAccount(id=row.id, type=row.type, currency=row.currency)  # never stored
    instructions = [{**entry, "isPlatformAccount": True} for entry in funding_instructions(shown)]
    amount = {"amount": row.balance, "currency": currency(row.currency)}
    return {
        "id": row.id,
        "type": row.type,
        "status": row.status,
        "balance": amount,
        "totalBalance": dict(amount),
        "fundingPaymentInstructions": instructions,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def _ensure(db: Session, now: datetime) -> None:
    codes = [entry["currencyCode"] for entry in load_config(db).supported_currencies]
    have = set(db.scalars(select(PlatformInternalAccount.currency)).all())
    for code in codes:
        if code in have:
            continue
        try:
            with db.begin_nested():
                db.add(
                    PlatformInternalAccount(
                        id=new_id("InternalAccount"),
                        currency=code,
                        type="INTERNAL_CRYPTO" if code in _CRYPTO else "INTERNAL_FIAT",
                        status="ACTIVE",
                        balance=0,
                        created_at=now,
                        updated_at=now,
                    )
                )
        except IntegrityError:  # another request made it first
            continue


def list_platform_accounts(
    db: Session, now: datetime, currency_code: str | None, account_type: str | None
) -> dict[str, Any]:
    """The platform's internal accounts, oldest first; filters combine (unpaginated)."""
    _ensure(db, now)
    query = select(PlatformInternalAccount)
    if currency_code is not None:
        query = query.where(PlatformInternalAccount.currency == currency_code)
    if account_type is not None:
        query = query.where(PlatformInternalAccount.type == account_type)
    query = query.order_by(PlatformInternalAccount.created_at, PlatformInternalAccount.id)
    return {"data": [platform_account_body(row) for row in db.scalars(query).all()]}
