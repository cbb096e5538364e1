"""The one check of a customer that an operation acts for: it exists and is not deleted.

A deletion (``DELETE /customers/{id}``, ``domain.customer_ops``) keeps the customer readable
(``isDeleted: true``), but nothing new is done for it: every operation that takes a customer
(beneficial owners, documents, SCA, contact verification, the accounts a stablecoin mint or
burn names) loads it with :func:`live_customer`, which answers an unknown or a deleted customer
404 ``USER_NOT_FOUND`` (the customers API's own answer to an update after a deletion).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..db.engine import lock
from ..db.tables_customer_ops import CustomerDeletion
from ..db.tables_wallet import Customer
from .errors import Refusal, not_found

__all__ = ["customer_gone", "is_deleted", "live_customer"]


def customer_gone() -> Refusal:
    """404 ``USER_NOT_FOUND``: the answer for an unknown or a deleted customer."""
    return not_found("No customer has this id.", "USER_NOT_FOUND")


def is_deleted(db: Session, customer_id: str) -> bool:
    """Whether the customer has been deleted (read in ``db``'s transaction)."""
    found = select(CustomerDeletion.customer_id).where(CustomerDeletion.customer_id == customer_id)
    return db.scalar(found) is not None


def live_customer(db: Session, customer_id: str, *, locked: bool = False) -> Customer:
    """The customer of this id, not deleted; else 404 ``USER_NOT_FOUND``.

    ``locked``: the customer's row is locked first (until the transaction ends) and the
    deletion read under that lock, so that a deletion, which takes the same lock, is either
    seen or comes after the change."""
    row = db.get(Customer, customer_id[:100]) if customer_id else None
    if row is None:
        raise customer_gone()
    if locked:
        lock(db, row)
    if is_deleted(db, row.id):
        raise customer_gone()
    return row
