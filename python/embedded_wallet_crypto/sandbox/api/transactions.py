"""The platform's transactions: ``GET /transactions`` (filters, cursor, sort order),
``GET /transactions/{transactionId}`` and ``POST /transactions/{transactionId}/approve`` (an
incoming payment held by the approval webhook)."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from fastapi import Depends, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Svc, require_platform
from ..domain import card_transaction_list, transaction_queries
from ..domain.transaction_queries import TransactionFilters
from ..models.cards import CardTransactionOut
from ..models.common import SortOrder
from ..models.fields import IsoDateTime
from ..models.transactions import (
    ApproveBody,
    Direction,
    Status,
    TransactionListWithCards,
    TransactionOut,
)
from .common import PathId, Sort, answer, error_responses
from .routing import Router

__all__ = ["DateTimeQuery", "Filters", "TextQuery", "router"]

router = Router(
    tags=["Transactions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

#: A date-time query parameter (``startDate``, ``endDate``; inclusive).
DateTimeQuery = Annotated[IsoDateTime | None, Query()]
#: A text query parameter that is matched as it is.
TextQuery = Annotated[str | None, Query(max_length=300)]


async def transaction_filters(
    accountIdentifier: TextQuery = None,
    senderAccountIdentifier: TextQuery = None,
    receiverAccountIdentifier: TextQuery = None,
    status: Annotated[Status | None, Query()] = None,
    type: Annotated[Direction | None, Query()] = None,
    reference: TextQuery = None,
    startDate: DateTimeQuery = None,
    endDate: DateTimeQuery = None,
) -> TransactionFilters:
    """The filters of a transaction list (all optional; they combine; dates inclusive)."""
    return TransactionFilters(
        account_identifier=accountIdentifier,
        sender_account_identifier=senderAccountIdentifier,
        receiver_account_identifier=receiverAccountIdentifier,
        status=status.value if status is not None else None,
        type=type.value if type is not None else None,
        reference=reference,
        start=startDate,
        end=endDate,
    )


#: The filters of a transaction list, from its query parameters.
Filters = Annotated[TransactionFilters, Depends(transaction_filters)]


@router.get("/transactions", response_model=TransactionListWithCards)
def list_transactions(
    db: Db,
    services: Svc,
    paging: Paging,
    filters: Filters,
    customerId: TextQuery = None,
    sortOrder: Sort = SortOrder.desc,
) -> JSONResponse:
    """Transactions (payments and card transactions), newest first unless ``sortOrder=asc``;
    dates are inclusive."""
    filters = replace(filters, customer_id=customerId)
    listed = card_transaction_list.list_with_cards(
        db, services, filters, paging.ordered(sortOrder.value)
    )
    return answer(db, listed)


@router.get("/transactions/{transactionId}", response_model=TransactionOut | CardTransactionOut)
def get_transaction(transactionId: PathId, db: Db, services: Svc) -> JSONResponse:
    """One transaction: a payment or a card transaction."""
    return answer(db, card_transaction_list.find_any_transaction(db, services, transactionId))


@router.post("/transactions/{transactionId}/approve", response_model=TransactionOut)
def approve(transactionId: PathId, body: ApproveBody, db: Db) -> JSONResponse:
    """Approve an incoming payment held by the approval webhook: it completes and the
    receiver's account is credited."""
    return answer(db, transaction_queries.approve_incoming(db, transactionId, body))
