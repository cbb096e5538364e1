"""Balance moves of internal accounts: every debit and credit is one conditional ``UPDATE``, so
the rule it keeps (never below zero, never above :data:`BALANCE_CEILING`) is decided by the
database in the same transaction as the move, across requests, workers and processes.

Balances are 64-bit integers (``BIGINT``) on every backend. The ceiling (9000000000000000
smallest units) keeps each one an exact integer everywhere: SQLite would store a sum past
2**63 - 1 as a floating-point number, PostgreSQL would refuse it.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from ..clock import Clock
from ..db.tables_wallet import InternalAccount
from .customers import account_body
from .errors import Refusal, invalid
from .payment_tables import BALANCE_CEILING
from .webhooks import emit

__all__ = [
    "BALANCE_CEILING",
    "credit",
    "debit",
    "limit_exceeded",
    "require_funds",
    "require_room",
]


def debit(db: Session, account_id: str, amount: int) -> None:
    """Take ``amount`` from an internal account (400 INSUFFICIENT_FUNDS when short)."""
    taken = db.execute(
        update(InternalAccount)
        .where(InternalAccount.id == account_id)
        .where(InternalAccount.balance >= amount)
        .values(balance=InternalAccount.balance - amount, updated_at=Clock.now())
    )
    if getattr(taken, "rowcount", 0) != 1:
        raise _insufficient()
    _announce(db, account_id)


def _announce(db: Session, account_id: str) -> None:
    """``INTERNAL_ACCOUNT.BALANCE_UPDATED`` with the account as it is now (in the move's
    transaction)."""
    account = db.get(InternalAccount, account_id, populate_existing=True)
    if account is not None:
        emit(db, "INTERNAL_ACCOUNT.BALANCE_UPDATED", account_body(account))


def _insufficient() -> Refusal:
    return invalid("The source account's balance is too low.", "INSUFFICIENT_FUNDS")


def require_funds(db: Session, account_id: str, amount: int) -> None:
    """Refuse, before anything moves, a payment the account cannot cover now (400
    INSUFFICIENT_FUNDS). Advisory: the debit itself decides again when it is made."""
    account = db.get(InternalAccount, account_id, populate_existing=True)
    if account is None or account.balance < amount:
        raise _insufficient()


def credit(db: Session, account_id: str, amount: int) -> bool:
    """Add ``amount`` to an internal account unless its balance would pass the ceiling;
    False when it was refused for that (True for any other id: nothing to credit)."""
    if not 0 <= amount <= BALANCE_CEILING:
        return False
    added = db.execute(
        update(InternalAccount)
        .where(InternalAccount.id == account_id)
        .where(InternalAccount.balance <= BALANCE_CEILING - amount)
        .values(balance=InternalAccount.balance + amount, updated_at=Clock.now())
    )
    if getattr(added, "rowcount", 0) == 1:
        if amount:
            _announce(db, account_id)
        return True
    return db.get(InternalAccount, account_id) is None


def require_room(db: Session, account_id: str, amount: int) -> None:
    """Refuse, before anything moves, a payment whose credit to the internal account
    ``account_id`` would pass the ceiling now (400 BALANCE_LIMIT_EXCEEDED). Advisory: the
    credit itself decides again when it is made."""
    account = db.get(InternalAccount, account_id, populate_existing=True)
    if account is not None and account.balance > BALANCE_CEILING - amount:
        raise limit_exceeded()


def limit_exceeded() -> Refusal:
    return invalid(
        f"The account's balance would pass the ceiling of {BALANCE_CEILING} smallest units.",
        "BALANCE_LIMIT_EXCEEDED",
    )
