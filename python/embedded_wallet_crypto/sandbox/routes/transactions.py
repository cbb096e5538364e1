"""The platform's transactions: ``GET /transactions`` (filters, cursor, sort order),
``GET /transactions/{transactionId}`` and ``POST /transactions/{transactionId}/approve`` (an
incoming payment held by the approval webhook)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from enum import Enum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from sqlalchemy import Select, or_, select
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._db import get_session, lock
from .._errors import ApiError, error_responses
from .._lists import page
from .._models_payments import TransactionRow
from .._transactions import apply_approval, transaction_body

__all__ = ["DateTimeQuery", "TransactionFilters", "router", "transaction_query"]


_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def _iso_only(value: Any) -> Any:
    """A query's date-time is ISO 8601 text: a bare number (which pydantic would read as Unix
    time) is not one."""
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        raise ValueError("must be an ISO 8601 date-time such as 2025-10-13T09:30:00Z")
    return value


#: A date-time query parameter (``startDate``, ``endDate``).
DateTimeQuery = Annotated[Annotated[datetime, BeforeValidator(_iso_only)] | None, Query()]

router = APIRouter(
    tags=["Transactions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

Db = Annotated[Session, Depends(get_session)]


class Status(str, Enum):
    CREATED = "CREATED"
    PENDING = "PENDING"
    PROCESSING = "PROCESSING"
    COMPLETED = "COMPLETED"
    REJECTED = "REJECTED"
    FAILED = "FAILED"
    REFUNDED = "REFUNDED"
    EXPIRED = "EXPIRED"


class Direction(str, Enum):
    INCOMING = "INCOMING"
    OUTGOING = "OUTGOING"


class SortOrder(str, Enum):
    asc = "asc"
    desc = "desc"


class TransactionFilters(BaseModel):
    """The list filters (all optional; they combine)."""

    customerId: str | None = None
    agentId: str | None = None
    accountIdentifier: str | None = None
    senderAccountIdentifier: str | None = None
    receiverAccountIdentifier: str | None = None
    status: Status | None = None
    type: Direction | None = None
    reference: str | None = None
    startDate: datetime | None = None
    endDate: datetime | None = None


def transaction_query(filters: TransactionFilters) -> Select[Any]:
    """The rows matching ``filters`` (unordered)."""
    query = select(TransactionRow)
    if filters.customerId is not None:
        query = query.where(TransactionRow.customer_id == filters.customerId)
    if filters.agentId is not None:
        query = query.where(TransactionRow.agent_id == filters.agentId)
    if filters.accountIdentifier is not None:
        query = query.where(
            or_(
                TransactionRow.source_account_id == filters.accountIdentifier,
                TransactionRow.destination_account_id == filters.accountIdentifier,
            )
        )
    if filters.senderAccountIdentifier is not None:
        query = query.where(TransactionRow.source_account_id == filters.senderAccountIdentifier)
    if filters.receiverAccountIdentifier is not None:
        query = query.where(
            TransactionRow.destination_account_id == filters.receiverAccountIdentifier
        )
    if filters.status is not None:
        query = query.where(TransactionRow.status == filters.status.value)
    if filters.type is not None:
        query = query.where(TransactionRow.type == filters.type.value)
    if filters.reference is not None:
        query = query.where(TransactionRow.reference == filters.reference)
    if filters.startDate is not None:
        query = query.where(TransactionRow.created_at >= filters.startDate)
    if filters.endDate is not None:  # inclusive at the millisecond the bodies show
        query = query.where(TransactionRow.created_at < filters.endDate + timedelta(milliseconds=1))
    return query


def order_of(sort: str) -> tuple[Any, ...]:
    if sort == "asc":
        return (TransactionRow.created_at.asc(), TransactionRow.id.asc())
    return (TransactionRow.created_at.desc(), TransactionRow.id.desc())


_Text = Annotated[str | None, Query(max_length=300)]


@router.get("/transactions")
def list_transactions(
    db: Db,
    customerId: _Text = None,
    accountIdentifier: _Text = None,
    senderAccountIdentifier: _Text = None,
    receiverAccountIdentifier: _Text = None,
    status: Annotated[Status | None, Query()] = None,
    type: Annotated[Direction | None, Query()] = None,
    reference: _Text = None,
    startDate: DateTimeQuery = None,
    endDate: DateTimeQuery = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    sortOrder: Annotated[SortOrder, Query()] = SortOrder.desc,
) -> dict[str, Any]:
    """Transactions, newest first unless ``sortOrder=asc``; dates are inclusive."""
    filters = TransactionFilters(
        customerId=customerId,
        accountIdentifier=accountIdentifier,
        senderAccountIdentifier=senderAccountIdentifier,
        receiverAccountIdentifier=receiverAccountIdentifier,
        status=status,
        type=type,
        reference=reference,
        startDate=startDate,
        endDate=endDate,
    )
    return page(
        db,
        transaction_query(filters),
        order_of(sortOrder.value),
        transaction_body,
        limit=limit,
        cursor=cursor,
    )


def find_transaction(db: Session, transaction_id: str) -> TransactionRow:
    row = db.get(TransactionRow, transaction_id)
    if row is None:
        raise ApiError(404, "NOT_FOUND", "No transaction has this id.")
    return row


_TransactionId = Annotated[str, Path(max_length=200)]


@router.get("/transactions/{transactionId}")
def get_transaction(transactionId: _TransactionId, db: Db) -> dict[str, Any]:
    return transaction_body(find_transaction(db, transactionId))


class ApproveBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    receiverCustomerInfo: dict[str, Annotated[str, Field(max_length=500)]] = {}


@router.post("/transactions/{transactionId}/approve")
def approve(transactionId: _TransactionId, body: ApproveBody, db: Db) -> dict[str, Any]:
    """Approve an incoming payment held by the approval webhook: it completes and the
    receiver's account is credited."""
    row = find_transaction(db, transactionId)
    lock(db, row)  # one decision: of concurrent approvals, the later ones see it made
    if row.type != "INCOMING" or row.status != "PENDING" or not row.extra.get("awaitingApproval"):
        raise ApiError(
            409, "TRANSACTION_NOT_AWAITING_APPROVAL", "This transaction awaits no approval."
        )
    missing = [
        field["name"]
        for field in row.extra.get("requestedReceiverCustomerInfoFields", [])
        if field.get("mandatory") and not body.receiverCustomerInfo.get(field["name"])
    ]
    if missing:
        raise ApiError(
            400,
            "MISSING_MANDATORY_PAYEE_DATA",
            f"receiverCustomerInfo needs {', '.join(missing)}.",
        )
    row.extra = {
        **row.extra,
        "awaitingApproval": False,
        "receiverCustomerInfo": body.receiverCustomerInfo,
    }
    apply_approval(db, row, True, None)
    db.commit()
    return transaction_body(row)
