"""Card transactions in the platform's transaction list (``GET /transactions``): the published
document lists them there, identified by ``type: CARD`` (how a sandbox user finds the
``cardTransactionId`` the clearing and return simulations take), in the published
``CardTransaction`` shape of the ``CARD_TRANSACTION.*`` webhooks.

The payments and the card transactions are two tables in one order: (``createdAt``, ``id``),
paged by the same keyset cursor as every list (``db.pages``). A page takes, after the cursor,
the first ``limit + 1`` of each table and merges them; ``totalCount`` is the sum of both counts.

The filters, for a card transaction: ``customerId`` is the card's cardholder;
``accountIdentifier`` the funding source (``accountId``); ``senderAccountIdentifier`` the
funding source of a DEBIT, ``receiverAccountIdentifier`` that of a CREDIT; the dates its
creation. ``status`` and ``type`` take the published payment enums (``TransactionStatus``,
``TransactionType``: INCOMING, OUTGOING), which no card transaction has, and card transactions
have no ``reference``: with any of those three, only payments are listed. The agents' list
(``GET /agents/me/transactions``) lists payments only (an agent makes no card transaction).
``GET /transactions/{transactionId}`` reads a card transaction by its id too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from ..db.pages import MAX_LIMIT, PageRequest, count_of, encode_cursor, keyset
from ..db.tables_cards import Card, CardTransaction
from ..db.tables_payments import Transaction
from ..services import Services
from .card_simulations import card_transaction_body, confirm_due
from .errors import invalid, not_found
from .transaction_queries import (
    TransactionFilters,
    created_between,
    find_transaction,
    payments_query,
)
from .transactions import transaction_body

__all__ = ["card_transactions_query", "find_any_transaction", "list_with_cards"]


def card_transactions_query(filters: TransactionFilters) -> Select[Any] | None:
    """The card transactions matching ``filters``; None when a filter no card transaction can
    match is given (see the module)."""
    if filters.status is not None or filters.type is not None or filters.reference is not None:
        return None
    query = select(CardTransaction)
    if filters.customer_id is not None:
        cards = select(Card.id).where(Card.cardholder_id == filters.customer_id)
        query = query.where(CardTransaction.card_id.in_(cards))
    if filters.account_identifier is not None:
        query = query.where(CardTransaction.account_id == filters.account_identifier)
    if filters.sender_account_identifier is not None:
        query = query.where(
            CardTransaction.direction == "DEBIT",
            CardTransaction.account_id == filters.sender_account_identifier,
        )
    if filters.receiver_account_identifier is not None:
        query = query.where(
            CardTransaction.direction == "CREDIT",
            CardTransaction.account_id == filters.receiver_account_identifier,
        )
    return created_between(query, CardTransaction.created_at, filters.start, filters.end)


def list_with_cards(
    db: Session, services: Services, filters: TransactionFilters, request: PageRequest
) -> dict[str, Any]:
    """One page of the payments and card transactions matching ``filters``, merged (the
    delayed pulls that are due confirmed first)."""
    if not 1 <= request.limit <= MAX_LIMIT:
        raise invalid(f"limit must be an integer from 1 to {MAX_LIMIT}.")
    confirm_due(db, services)
    parts: list[tuple[Select[Any], Any, Callable[[Any], dict[str, Any]]]] = [
        (payments_query(filters), Transaction, transaction_body)
    ]
    cards = card_transactions_query(filters)
    if cards is not None:
        parts.append((cards, CardTransaction, lambda row: card_transaction_body(db, row)))
    total = 0
    rows: list[tuple[Any, Callable[[Any], dict[str, Any]]]] = []
    for query, table, render in parts:
        total += count_of(db, query)
        rows.extend((row, render) for row in db.scalars(keyset(query, table, request)))
    rows.sort(key=lambda item: (item[0].created_at, item[0].id), reverse=request.descending)
    shown = rows[: request.limit]
    body: dict[str, Any] = {
        "data": [render(row) for row, render in shown],
        "hasMore": len(rows) > request.limit,
        "totalCount": total,
    }
    if body["hasMore"]:
        last = shown[-1][0]
        body["nextCursor"] = encode_cursor(last.created_at, last.id)
    return body


def find_any_transaction(db: Session, services: Services, transaction_id: str) -> dict[str, Any]:
    """``GET /transactions/{transactionId}``: a payment, or a card transaction (its
    ``CardTransaction:`` id, as listed); 404 ``NOT_FOUND`` otherwise."""
    if transaction_id.startswith("CardTransaction:"):
        confirm_due(db, services)
        row = db.get(CardTransaction, transaction_id[:100])
        if row is None:
            raise not_found("No transaction has this id.")
        return card_transaction_body(db, row)
    return transaction_body(find_transaction(db, transaction_id))
