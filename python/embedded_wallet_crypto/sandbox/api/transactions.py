"""The platform's transactions: ``GET /transactions`` (filters, cursor, sort order),
``GET /transactions/{transactionId}`` and ``POST /transactions/{transactionId}/approve`` (an
incoming payment held by the approval webhook)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from ..deps import Db, Paging, committed, require_platform
from ..domain import transaction_queries
from ..domain.transaction_queries import TransactionFilters
from ..domain.transactions import transaction_body
from ..models.common import SortOrder
from ..models.fields import IsoDateTime
from ..models.transactions import ApproveBody, Direction, Status
from .common import PathId, Sort, error_responses

__all__ = ["DateTimeQuery", "TextQuery", "router"]

router = APIRouter(
    tags=["Transactions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

#: A date-time query parameter (``startDate``, ``endDate``; inclusive).
DateTimeQuery = Annotated[IsoDateTime | None, Query()]
#: A text query parameter that is matched as it is.
TextQuery = Annotated[str | None, Query(max_length=300)]


@router.get("/transactions")
def list_transactions(
    db: Db,
    paging: Paging,
    customerId: TextQuery = None,
    accountIdentifier: TextQuery = None,
    senderAccountIdentifier: TextQuery = None,
    receiverAccountIdentifier: TextQuery = None,
    status: Annotated[Status | None, Query()] = None,
    type: Annotated[Direction | None, Query()] = None,
    reference: TextQuery = None,
    startDate: DateTimeQuery = None,
    endDate: DateTimeQuery = None,
    sortOrder: Sort = SortOrder.desc,
) -> dict[str, Any]:
    """Transactions, newest first unless ``sortOrder=asc``; dates are inclusive."""
    filters = TransactionFilters(
        customer_id=customerId,
        account_identifier=accountIdentifier,
        sender_account_identifier=senderAccountIdentifier,
        receiver_account_identifier=receiverAccountIdentifier,
        status=status.value if status is not None else None,
        type=type.value if type is not None else None,
        reference=reference,
        start=startDate,
        end=endDate,
    )
    listed = transaction_queries.list_transactions(db, filters, paging.ordered(sortOrder.value))
    return committed(db, listed)


@router.get("/transactions/{transactionId}")
def get_transaction(transactionId: PathId, db: Db) -> dict[str, Any]:
    """One transaction."""
    found = transaction_queries.find_transaction(db, transactionId)
    return committed(db, transaction_body(found))


@router.post("/transactions/{transactionId}/approve")
def approve(transactionId: PathId, body: ApproveBody, db: Db) -> dict[str, Any]:
    """Approve an incoming payment held by the approval webhook: it completes and the
    receiver's account is credited."""
    return committed(db, transaction_queries.approve_incoming(db, transactionId, body))
