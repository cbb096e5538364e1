"""Transactions as the platform and the agents read them: the list filters (one query for
``GET /transactions`` and ``GET /agents/me/transactions``), one transaction, and the platform's
approval of an incoming payment held by the approval webhook."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import Select, or_, select
from sqlalchemy.orm import Session

from ..db.engine import lock
from ..db.pages import PageRequest, page
from ..db.tables_payments import Transaction
from ..models.transactions import ApproveBody
from .errors import Refusal, invalid, not_found
from .transactions import apply_approval, transaction_body

__all__ = [
    "TransactionFilters",
    "approve_incoming",
    "created_between",
    "find_transaction",
    "list_transactions",
    "payments_query",
]

#: Timestamps are shown to the millisecond: an inclusive end covers its whole millisecond.
_SHOWN = timedelta(milliseconds=1)


def _utc(moment: datetime) -> datetime:
    """``moment`` in UTC (without a zone it is UTC already)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def created_between(
    query: Select[Any], column: Any, start: datetime | None, end: datetime | None
) -> Select[Any]:
    """``query`` narrowed to ``start <= column`` and ``column <= end`` (both inclusive; the end
    as shown, to the end of its millisecond, so that an item's own ``createdAt`` matches it).
    400 for a bound that has no UTC time (before year 1 or after year 9999 in UTC)."""
    try:
        if start is not None:
            query = query.where(column >= _utc(start))
        if end is not None:
            query = query.where(column < _utc(end) + _SHOWN)
    except (OverflowError, ValueError):
        raise invalid("A date bound is out of range (years 1 to 9999 in UTC).") from None
    return query


@dataclass(frozen=True)
class TransactionFilters:
    """The list filters (all optional; they combine)."""

    customer_id: str | None = None
    account_identifier: str | None = None
    sender_account_identifier: str | None = None
    receiver_account_identifier: str | None = None
    status: str | None = None
    type: str | None = None
    reference: str | None = None
    start: datetime | None = None
    end: datetime | None = None


def payments_query(filters: TransactionFilters) -> Select[Any]:
    """The payments (``Transaction`` rows) matching ``filters``."""
    query = select(Transaction)
    if filters.customer_id is not None:
        query = query.where(Transaction.customer_id == filters.customer_id)
    if filters.account_identifier is not None:
        query = query.where(
            or_(
                Transaction.source_account_id == filters.account_identifier,
                Transaction.destination_account_id == filters.account_identifier,
            )
        )
    if filters.sender_account_identifier is not None:
        query = query.where(Transaction.source_account_id == filters.sender_account_identifier)
    if filters.receiver_account_identifier is not None:
        query = query.where(
            Transaction.destination_account_id == filters.receiver_account_identifier
        )
    if filters.status is not None:
        query = query.where(Transaction.status == filters.status)
    if filters.type is not None:
        query = query.where(Transaction.type == filters.type)
    if filters.reference is not None:
        query = query.where(Transaction.reference == filters.reference)
    return created_between(query, Transaction.created_at, filters.start, filters.end)


def list_transactions(
    db: Session, filters: TransactionFilters, request: PageRequest
) -> dict[str, Any]:
    """One page of the transactions matching ``filters``."""
    return page(db, payments_query(filters), Transaction, transaction_body, request)


def find_transaction(
    db: Session, transaction_id: str, *, customer_id: str | None = None
) -> Transaction:
    """The transaction (404 ``NOT_FOUND``); with ``customer_id``, only one of that customer's
    (404 ``TRANSACTION_NOT_FOUND``, as an agent is answered)."""
    row = db.get(Transaction, transaction_id)
    if customer_id is not None:
        if row is None or row.customer_id != customer_id:
            raise not_found("No transaction of this customer has this id.", "TRANSACTION_NOT_FOUND")
        return row
    if row is None:
        raise not_found("No transaction has this id.")
    return row


def approve_incoming(db: Session, transaction_id: str, body: ApproveBody) -> dict[str, Any]:
    """Approve an incoming payment held by the approval webhook: it completes and the
    receiver's account is credited. One decision: of concurrent approvals, the later ones see
    it made (the row is locked)."""
    row = find_transaction(db, transaction_id)
    lock(db, row)
    if row.type != "INCOMING" or row.status != "PENDING" or not row.extra.get("awaitingApproval"):
        raise Refusal(
            409, "TRANSACTION_NOT_AWAITING_APPROVAL", "This transaction awaits no approval."
        )
    missing = [
        field["name"]
        for field in row.extra.get("requestedReceiverCustomerInfoFields", [])
        if field.get("mandatory") and not body.receiverCustomerInfo.get(field["name"])
    ]
    if missing:
        raise invalid(
            f"receiverCustomerInfo needs {', '.join(missing)}.", "MISSING_MANDATORY_PAYEE_DATA"
        )
    row.extra = {
        **row.extra,
        "awaitingApproval": False,
        "receiverCustomerInfo": body.receiverCustomerInfo,
    }
    apply_approval(db, row, True, None)
    return transaction_body(row)
