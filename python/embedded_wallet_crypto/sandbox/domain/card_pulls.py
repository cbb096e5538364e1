"""The delayed pull of the published ``005`` descriptor suffix ("Delayed pull (~30s):
exercises the PENDING -> CONFIRMED path"): the authorization is approved (``AUTHORIZED``, its
amount held) but the funding source is not debited yet; its pull is pending
(``pullSummary.pendingCount`` 1) for :data:`PULL_DELAY_SECONDS` of the service's clock (times
``--time-scale``; ``POST /sandbox/clock/advance`` moves it), then confirmed: the funding
source is debited (``pendingCount`` 0, ``count`` 1) and the card transaction's event is emitted
again; a pull that fails then (the balance, or no ACTIVE delegated key of an embedded wallet)
leaves nothing held and the transaction in ``EXCEPTION``.

A pull is confirmed when it is due at the next request that reads card transactions
(``GET /transactions``, ``GET /transactions/{id}``), and at once, due or not, by a simulation
on its transaction (an advice, a clearing or a return reconciles against money taken).

Pending is ``direction == DEBIT`` and ``pulls == 0`` in an open state (every other debit
authorization pulls at once). The confirmation claims the pull by a conditional update on the
transaction's ``version`` before it debits: of two requests confirming it at once (also in two
processes) one debits, the other sees it done."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Final

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ..db.tables_cards import CardTransaction
from ..db.tables_wallet import InternalAccount
from ..services import Services
from .balances import debit
from .delegated_keys import has_active_key
from .errors import Refusal

__all__ = [
    "DELAYED",
    "INSUFFICIENT",
    "PULL_DELAY_SECONDS",
    "confirm_due_pulls",
    "confirm_pull",
    "pending_pull",
    "pull",
    "signable",
]

#: The descriptor suffix of a delayed pull.
DELAYED: Final = "005"
#: The descriptor suffix whose pulls fail (insufficient funds).
INSUFFICIENT: Final = "002"
#: How long a delayed pull is pending (simulated seconds).
PULL_DELAY_SECONDS: Final = 30
_OPEN: Final = ("AUTHORIZED", "PARTIALLY_SETTLED")


def signable(db: Session, card_id: str, account_id: str) -> bool:
    """Whether the service may pull from the funding source: an embedded wallet needs the
    card funding source's ACTIVE delegated key (the wallet's transfers are signed)."""
    account = db.get(InternalAccount, account_id)
    if account is None or account.type != "EMBEDDED_WALLET":
        return True
    return has_active_key(db, card_id, account_id)


def pull(db: Session, row: CardTransaction, amount: int) -> bool:
    """A pull from the transaction's funding source; False when it fails (its merchant's
    ``002`` suffix, no ACTIVE delegated key of an embedded wallet, or the balance)."""
    if row.merchant.get("descriptor", "")[-3:] == INSUFFICIENT:
        return False
    if not signable(db, row.card_id, row.account_id):
        return False
    try:
        debit(db, row.account_id, amount)  # one conditional update: nothing moved if refused
    except Refusal:
        return False
    return True


def pending_pull(row: CardTransaction) -> bool:
    """Whether the transaction's pull is still pending."""
    return row.direction == "DEBIT" and row.pulls == 0 and row.status in _OPEN


def confirm_pull(db: Session, row: CardTransaction) -> bool:
    """Confirm the pending pull of ``row``: True when this call confirmed it (or failed it
    into EXCEPTION), False when it was not pending or another request claimed it first."""
    if not pending_pull(row):
        return False
    claimed = db.execute(
        update(CardTransaction)
        .where(
            CardTransaction.id == row.id,
            CardTransaction.version == row.version,
            CardTransaction.pulls == 0,
        )
        .values(pulls=1, pulled=row.authorized, version=row.version + 1)
    )
    db.refresh(row)
    if getattr(claimed, "rowcount", 0) != 1:
        return False
    if not pull(db, row, row.authorized):
        db.execute(
            update(CardTransaction)
            .where(CardTransaction.id == row.id)
            .values(status="EXCEPTION", held=0, pulls=0, pulled=0, version=row.version + 1)
        )
        db.refresh(row)
    return True


def confirm_due_pulls(
    db: Session, services: Services, announce: Callable[[Session, CardTransaction], None]
) -> None:
    """Confirm every pending pull that is due now, announcing each (its event)."""
    due = services.clock.now() - timedelta(seconds=services.clock.seconds(PULL_DELAY_SECONDS))
    rows = db.scalars(
        select(CardTransaction).where(
            CardTransaction.direction == "DEBIT",
            CardTransaction.pulls == 0,
            CardTransaction.status.in_(_OPEN),
            CardTransaction.created_at <= due,
        )
    ).all()
    for row in rows:
        if confirm_pull(db, row):
            announce(db, row)
