"""Same-currency transfers: ``transfer_in`` (an external account pulls into an internal one)
and ``transfer_out`` (an internal account pays an external one), with the sandbox outcomes of
the external account's last three digits. Callable from any route."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ..db.tables_payments import ExternalAccount
from ..db.tables_wallet import Customer, InternalAccount
from ..models.transfers import TransferIn, TransferOut
from ..services import Services
from .balances import debit, require_room
from .errors import invalid, not_found
from .payment_tables import suffix_of, transfer_outcome
from .platform_config import check_amount
from .transactions import new_transaction, transaction_body

__all__ = ["WALLET_PAYS_BY_QUOTE", "check_same_currency", "transfer_in", "transfer_out"]

#: An embedded wallet pays out only through a quote stamped by its session key.
WALLET_PAYS_BY_QUOTE = "An embedded wallet pays out through a quote signed with its session key."


def _internal(db: Session, account_id: str) -> InternalAccount:
    account = db.get(InternalAccount, account_id)
    if account is None:
        raise not_found("No internal account has this id.")
    return account


def _external(db: Session, account_id: str) -> ExternalAccount:
    account = db.get(ExternalAccount, account_id)
    if account is None:
        raise not_found("No external account has this id.")
    return account


def check_same_currency(internal: InternalAccount, external: ExternalAccount) -> None:
    """400 CURRENCY_MISMATCH: transfers are same-currency."""
    if internal.currency != external.currency:
        raise invalid("Transfers are same-currency; use a quote to convert.", "CURRENCY_MISMATCH")


def _same(internal: InternalAccount, external: ExternalAccount) -> None:
    check_same_currency(internal, external)
    if external.customer_id is not None and external.customer_id != internal.customer_id:
        raise invalid("The accounts belong to different customers.")


def _platform_customer(db: Session, customer_id: str) -> str | None:
    customer = db.get(Customer, customer_id)
    return customer.platform_customer_id if customer else None


def _start(
    db: Session,
    services: Services,
    platform: str,
    *,
    incoming: bool,
    internal: InternalAccount,
    external: ExternalAccount,
    amount: int,
    agent: str | None,
    description: str | None = None,
) -> dict[str, Any]:
    """The transfer's transaction, with the external account's sandbox outcome; its body."""
    source, destination = (external, internal) if incoming else (internal, external)
    row = new_transaction(
        db,
        services.clock,
        platform,
        type="INCOMING" if incoming else "OUTGOING",
        kind="TRANSFER_IN" if incoming else "TRANSFER_OUT",
        steps=transfer_outcome(suffix_of(external.identifier) if services.sandbox else ""),
        customer_id=internal.customer_id,
        platform_customer_id=_platform_customer(db, internal.customer_id),
        source_account_id=source.id,
        source_currency=source.currency,
        sent_amount=amount,
        source_internal=not incoming,
        destination_account_id=destination.id,
        destination_currency=destination.currency,
        received_amount=amount,
        destination_internal=incoming,
        agent_id=agent,
        description=description,
    )
    return transaction_body(row)


def transfer_in(
    db: Session, platform: str, body: TransferIn, *, services: Services, agent: str | None = None
) -> dict[str, Any]:
    """Pull ``amount`` from an external account into an internal one; returns the INCOMING
    Transaction (its status follows the external account's sandbox suffix). 400
    BALANCE_LIMIT_EXCEEDED when the amount would take the account past its ceiling now; if it
    would when the transfer settles, the transaction fails with ``LIMIT_EXCEEDED``."""
    external = _external(db, body.source.accountId)
    internal = _internal(db, body.destination.accountId)
    _same(internal, external)
    check_amount(db, internal.currency, body.amount, "INCOMING")
    require_room(db, internal.id, body.amount)
    return _start(
        db,
        services,
        platform,
        incoming=True,
        internal=internal,
        external=external,
        amount=body.amount,
        agent=agent,
    )


def transfer_out(
    db: Session, platform: str, body: TransferOut, *, services: Services, agent: str | None = None
) -> dict[str, Any]:
    """Pay ``amount`` from an internal account to an external one (taken at once, returned on
    failure); returns the OUTGOING Transaction."""
    internal = _internal(db, body.source.accountId)
    external = _external(db, body.destination.accountId)
    _same(internal, external)
    if internal.type == "EMBEDDED_WALLET":
        raise invalid(WALLET_PAYS_BY_QUOTE)
    check_amount(db, internal.currency, body.amount, "OUTGOING")
    debit(db, internal.id, body.amount)
    return _start(
        db,
        services,
        platform,
        incoming=False,
        internal=internal,
        external=external,
        amount=body.amount,
        agent=agent,
        description=body.remittanceInformation,
    )
