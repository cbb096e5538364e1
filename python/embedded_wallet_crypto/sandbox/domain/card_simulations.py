"""The sandbox's card simulations (``/sandbox/cards/{id}/simulate/...``): what a card issuer's
events would do, with their effects on the funding sources' balances and their
``CARD_TRANSACTION.*`` webhooks.

Money moves through ``domain.balances`` (one conditional update per debit or credit, never below
zero, never past the ceiling), in the same transaction as the card transaction's change; each
change of a card transaction is a conditional update on its ``version``, so that of two
simulations on one transaction at once one wins and the other is refused 409 ``CONFLICT``.

Authorizations (``authorization``, ``financial_authorization``) are decided as the published
document's suffix table says, by the last three characters of ``merchant.descriptor``: ``002``
declines (insufficient funds), ``003`` declines (card paused), ``006`` pulls the money but the
transaction ends in ``EXCEPTION``; anything else is decided for real: the card must be ACTIVE
(a FROZEN card declines, as ``003`` does), the amount within ``maxSpendPerTransaction`` and the
card's currency, and the first funding source whose balance covers it is debited (none: a
decline). An embedded wallet funds a card only while the card funding source has an ACTIVE
delegated key (``domain.delegated_keys``): without one it is passed over, for authorizations
and for the later pulls of advices, clearings and return reversals (a failed pull). ``005``
(a delayed pull) is approved with its pull pending for 30 simulated seconds
(``domain.card_pulls``). A declined authorization leaves no card transaction and moves
nothing. The 202 carries the issuer's
transaction token; the card transaction is ``CardTransaction:<issuerTransactionToken>``.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

from sqlalchemy import update
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.engine import lock
from ..db.tables_cards import Card, CardTransaction
from ..db.tables_wallet import Customer, InternalAccount
from ..models.cards import (
    AdviceRequest,
    AuthorizationRequest,
    ClearingRequest,
    ReturnRequest,
    TransactionRefRequest,
)
from ..models.fields import MAX_AMOUNT
from ..services import Services
from .balances import credit, debit, limit_exceeded
from .card_pulls import (
    DELAYED,
    INSUFFICIENT,
    confirm_due_pulls,
    confirm_pull,
    pending_pull,
    pull,
    signable,
)
from .cards import load_card
from .currencies import currency
from .errors import Refusal, invalid, not_found
from .webhooks import emit

__all__ = [
    "advice",
    "authorize",
    "balance_inquiry",
    "card_transaction_body",
    "clearing",
    "confirm_due",
    "credit_authorize",
    "return_reversal",
    "returned",
]

_PAUSED: Final = "003"
_EXCEPTION: Final = "006"
_OPEN: Final = ("AUTHORIZED", "PARTIALLY_SETTLED")


def _amount(value: int, code: str) -> dict[str, Any]:
    return {"amount": value, "currency": currency(code)}


def card_transaction_body(db: Session, row: CardTransaction) -> dict[str, Any]:
    card = db.get(Card, row.card_id)
    customer = db.get(Customer, card.cardholder_id) if card is not None else None
    return {
        "type": "CARD",
        "id": row.id,
        "cardId": row.card_id,
        "customerId": card.cardholder_id if card is not None else "",
        "platformCustomerId": customer.platform_customer_id if customer is not None else "",
        "issuerTransactionToken": row.id.rsplit(":", 1)[-1],
        "status": row.status,
        "direction": row.direction,
        "merchant": row.merchant,
        "authorizedAmount": _amount(row.authorized, row.currency),
        "settledAmount": _amount(row.settled, row.currency),
        "refundedAmount": _amount(row.refunded, row.currency),
        "accountId": row.account_id,
        "pullSummary": {
            "count": row.pulls,
            "totalAmount": row.pulled,
            "pendingCount": 1 if pending_pull(row) else 0,
        },
        "refundSummary": {"count": row.refunds, "totalAmount": row.refunded},
        "settlementSummary": {"count": row.clearings, "totalAmount": row.settled},
        "authorizedAt": iso(row.created_at),
        "lastEventAt": iso(row.updated_at),
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def _event(db: Session, card: Card, row: CardTransaction) -> None:
    emit(db, f"CARD_TRANSACTION.{row.status}", card_transaction_body(db, row))


def _token() -> tuple[str, str]:
    token = str(uuid.uuid4())
    return token, f"CardTransaction:{token}"


def _card(db: Session, services: Services, card_id: str) -> Card:
    """The card, its row locked until the simulation's transaction ends: an authorization is
    decided on the state and limit that a concurrent update (a freeze, a lower limit) left."""
    card = load_card(db, services, card_id)
    lock(db, card)
    return card


def _pull_total(row: CardTransaction, more: int) -> int:
    """What the transaction has pulled in all, with ``more``: at most :data:`MAX_AMOUNT` over
    its life (re-sizing up and down, or reversing returns, adds to it), else 400."""
    if row.pulled + more > MAX_AMOUNT:
        raise invalid(
            "The card transaction would pull more than the largest amount in all.",
            "INVALID_AMOUNT",
        )
    return row.pulled + more


def _can_authorize(card: Card, body: AuthorizationRequest) -> bool:
    suffix = body.merchant.descriptor[-3:]
    if suffix in (INSUFFICIENT, _PAUSED) or card.state != "ACTIVE":
        return False
    return card.max_spend is None or body.amount <= card.max_spend


def _check_currency(card: Card, body: AuthorizationRequest) -> None:
    if body.currency.code is not None and body.currency.code != card.currency:
        raise invalid(f"The card transacts in {card.currency}.", "INVALID_CURRENCY")


def _new(
    db: Session, services: Services, card: Card, body: AuthorizationRequest, **fields: Any
) -> CardTransaction:
    now = services.clock.now()
    row = CardTransaction(
        currency=card.currency,
        card_id=card.id,
        merchant=body.merchant.model_dump(exclude_none=True),
        created_at=now,
        updated_at=now,
        version=0,
        **fields,
    )
    db.add(row)
    db.flush()
    _event(db, card, row)
    return row


def _delayed(
    db: Session, services: Services, card: Card, body: AuthorizationRequest, ident: str
) -> None:
    """``005``: approved on the first funding source that may be pulled from and covers the
    amount now, held, its pull pending (``domain.card_pulls``); none: declined."""
    for source in card.funding_sources:
        account = db.get(InternalAccount, source)
        if account is None or account.balance < body.amount or not signable(db, card.id, source):
            continue
        _new(
            db, services, card, body, id=ident, kind="AUTHORIZATION", status="AUTHORIZED",
            direction="DEBIT", account_id=source, authorized=body.amount, settled=0,
            clearings=0, held=body.amount, pulls=0, pulled=0,
        )  # fmt: skip
        return


def confirm_due(db: Session, services: Services) -> None:
    """Confirm the delayed pulls that are due (before card transactions are read)."""
    confirm_due_pulls(db, services, _announce)


def _announce(db: Session, row: CardTransaction) -> None:
    emit(db, f"CARD_TRANSACTION.{row.status}", card_transaction_body(db, row))


def authorize(
    db: Session, services: Services, card_id: str, body: AuthorizationRequest, *, financial: bool
) -> dict[str, str]:
    """A debit authorization (``financial``: single-message, settled at once)."""
    card = _card(db, services, card_id)
    _check_currency(card, body)
    token, ident = _token()
    if not _can_authorize(card, body):
        return {"issuerTransactionToken": token}
    if body.merchant.descriptor[-3:] == DELAYED and not financial:
        _delayed(db, services, card, body, ident)
        return {"issuerTransactionToken": token}
    for source in card.funding_sources:
        if not signable(db, card.id, source):
            continue
        try:
            debit(db, source, body.amount)  # one conditional update: nothing moved if refused
        except Refusal:
            continue
        exception = body.merchant.descriptor[-3:] == _EXCEPTION
        status = "EXCEPTION" if exception else ("SETTLED" if financial else "AUTHORIZED")
        _new(
            db, services, card, body, id=ident, kind="FINANCIAL" if financial else "AUTHORIZATION",
            status=status, direction="DEBIT", account_id=source, authorized=body.amount,
            settled=body.amount if financial else 0, clearings=1 if financial else 0,
            held=0 if financial else body.amount, pulls=1, pulled=body.amount,
        )  # fmt: skip
        break
    return {"issuerTransactionToken": token}


def credit_authorize(
    db: Session, services: Services, card_id: str, body: AuthorizationRequest, *, kind: str
) -> dict[str, str]:
    """A credit to the card (a credit authorization, its advice, a financial credit): posted
    at once to the first funding source and SETTLED; declined as an authorization is."""
    card = _card(db, services, card_id)
    _check_currency(card, body)
    token, ident = _token()
    suffix = body.merchant.descriptor[-3:]
    if suffix in (INSUFFICIENT, _PAUSED) or card.state != "ACTIVE":
        return {"issuerTransactionToken": token}
    source = card.funding_sources[0]
    if not credit(db, source, body.amount):
        raise limit_exceeded()
    _new(
        db, services, card, body, id=ident, kind=kind, direction="CREDIT", account_id=source,
        status="EXCEPTION" if suffix == _EXCEPTION else "SETTLED", authorized=body.amount,
        settled=body.amount, clearings=1, held=0, pulls=0, pulled=0,
    )  # fmt: skip
    return {"issuerTransactionToken": token}


def balance_inquiry(db: Session, services: Services, card_id: str) -> dict[str, str]:
    """A zero-amount authorization: it moves nothing and leaves no card transaction."""
    _card(db, services, card_id)
    return {"issuerTransactionToken": str(uuid.uuid4())}


def _parent(
    db: Session, services: Services, card_id: str, body: TransactionRefRequest
) -> tuple[Card, CardTransaction]:
    card = _card(db, services, card_id)
    row = db.get(CardTransaction, body.cardTransactionId)
    if row is None or row.card_id != card.id:
        raise not_found("No card transaction of this card has this id.")
    if confirm_pull(db, row):  # a delayed pull: confirmed before anything reconciles with it
        _announce(db, row)
    return card, row


def _save(db: Session, card: Card, row: CardTransaction, **values: Any) -> dict[str, str]:
    """Change the card transaction from the version it was read at (409 CONFLICT when another
    simulation changed it meanwhile), then emit its event."""
    saved = db.execute(
        update(CardTransaction)
        .where(CardTransaction.id == row.id, CardTransaction.version == row.version)
        .values(**values, version=row.version + 1)
    )
    if getattr(saved, "rowcount", 0) != 1:
        raise Refusal(409, "CONFLICT", "The card transaction changed meanwhile; retry.")
    db.refresh(row)
    _event(db, card, row)
    return {"issuerTransactionToken": row.id.rsplit(":", 1)[-1]}


def _give_back(db: Session, row: CardTransaction, amount: int) -> None:
    if amount > 0 and not credit(db, row.account_id, amount):
        raise limit_exceeded()


def advice(db: Session, services: Services, card_id: str, body: AdviceRequest) -> dict[str, str]:
    """Re-size an open authorization to ``amount`` (its new total): the difference is pulled
    or released; a failed pull leaves the transaction in EXCEPTION."""
    card, row = _parent(db, services, card_id, body)
    if row.status not in _OPEN or row.direction != "DEBIT":
        raise invalid("The card transaction is not an open authorization.", "INVALID_STATE")
    change = body.amount - row.authorized
    status = row.status
    held, pulls, pulled = row.held, row.pulls, row.pulled
    if change > 0:
        total = _pull_total(row, change)
        if pull(db, row, change):
            held, pulls, pulled = held + change, pulls + 1, total
        else:
            status = "EXCEPTION"
    elif change < 0:
        released = min(-change, held)
        _give_back(db, row, released)
        held -= released
    now = services.clock.now()
    return _save(
        db, card, row, authorized=body.amount, held=held, pulls=pulls, pulled=pulled,
        status=status, updated_at=now,
    )  # fmt: skip


def clearing(
    db: Session, services: Services, card_id: str, body: ClearingRequest
) -> dict[str, str]:
    """Settle an open authorization: ``0`` expires it (the hold is released), more than held
    pulls the rest (failing: EXCEPTION), less releases the rest; the transaction is SETTLED."""
    card, row = _parent(db, services, card_id, body)
    if row.status not in _OPEN or row.direction != "DEBIT":
        raise invalid("The card transaction is not an open authorization.", "INVALID_STATE")
    status, pulls, pulled = "SETTLED", row.pulls, row.pulled
    if body.amount > row.held:
        extra = body.amount - row.held
        total = _pull_total(row, extra)
        if pull(db, row, extra):
            pulls, pulled = pulls + 1, total
        else:
            status = "EXCEPTION"
    else:
        _give_back(db, row, row.held - body.amount)
    return _save(
        db, card, row, status=status, settled=row.settled + body.amount, held=0,
        clearings=row.clearings + (1 if body.amount else 0), pulls=pulls, pulled=pulled,
        updated_at=services.clock.now(),
    )  # fmt: skip


def returned(db: Session, services: Services, card_id: str, body: ReturnRequest) -> dict[str, str]:
    """A merchant's return: credits the funding source; REFUNDED when all that was settled is
    refunded, else it stays SETTLED."""
    card, row = _parent(db, services, card_id, body)
    if row.status not in ("SETTLED", "REFUNDED") or row.direction != "DEBIT" or not row.settled:
        raise invalid("The card transaction has no settled clearing.", "INVALID_STATE")
    if body.amount > row.settled - row.refunded:
        raise invalid("The return is larger than the net settled amount.", "INVALID_AMOUNT")
    _give_back(db, row, body.amount)
    refunded = row.refunded + body.amount
    return _save(
        db, card, row, refunded=refunded, refunds=row.refunds + 1,
        status="REFUNDED" if refunded == row.settled else "SETTLED",
        updated_at=services.clock.now(),
    )  # fmt: skip


def return_reversal(
    db: Session, services: Services, card_id: str, body: TransactionRefRequest
) -> dict[str, str]:
    """Reverse the returns of a REFUNDED transaction: what was refunded is pulled again
    (failing: EXCEPTION) and the transaction is SETTLED."""
    card, row = _parent(db, services, card_id, body)
    if row.status != "REFUNDED":
        raise invalid("The card transaction is not REFUNDED.", "INVALID_STATE")
    _pull_total(row, row.refunded)
    pulled = pull(db, row, row.refunded)
    return _save(
        db, card, row, refunded=0 if pulled else row.refunded,
        status="SETTLED" if pulled else "EXCEPTION",
        pulls=row.pulls + (1 if pulled else 0), pulled=row.pulled + (row.refunded if pulled else 0),
        updated_at=services.clock.now(),
    )  # fmt: skip
