"""Receiver lookups (``GET /receiver/uma/{address}``, ``GET /receiver/external-account/{id}``).

The interface names them without their shapes; the service follows the real service: the sender
is named by ``customerId`` or ``senderUmaAddress``, and the answer carries a ``lookupId`` (which a
quote to an UMA address must name), the currencies the receiver takes with an estimated rate and
the configured limits, and the payer data the receiver requires (``requiredPayerDataFields``,
which the quote's ``senderCustomerInfo`` must then hold). The sandbox knows only its own UMA
receivers (``$success.usd@...``, ``$success.eur@...``, ``$success.mxn@...``,
``$pending.long.usd@...``, ``$fail.compliance.usd@...``); they ask for the payer's FULL_NAME.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from ..db.tables_payments import ExternalAccount, ReceiverLookup
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..services import Services
from .currencies import currency
from .errors import invalid, not_found
from .payment_tables import RATES_PER_USD, uma_receiver_currency, uma_receiver_outcome
from .platform_config import load_config

__all__ = ["UMA_PAYER_FIELDS", "lookup_external_account", "lookup_uma"]

#: What the sandbox's UMA receivers require about the payer.
UMA_PAYER_FIELDS: list[dict[str, Any]] = [{"name": "FULL_NAME", "mandatory": True}]


def _sender_currency(db: Session, customer_id: str | None, sender_uma: str | None) -> str:
    """The sender's currency: the customer's first currency (USD for an UMA sender)."""
    if customer_id is None and sender_uma is None:
        raise invalid("Give customerId or senderUmaAddress.")
    if customer_id is None:
        return "USD"
    customer = db.get(Customer, customer_id)
    if customer is None:
        raise not_found("No customer has this id.")
    code = customer.currencies[0] if customer.currencies else "USD"
    return code if code in RATES_PER_USD else "USD"


def _preferences(db: Session, sending: str, receiving: str) -> list[dict[str, Any]]:
    entry = next(
        (e for e in load_config(db).supported_currencies if e["currencyCode"] == receiving), None
    )
    if entry is None or receiving not in RATES_PER_USD:
        return []
    rate = RATES_PER_USD[receiving] / RATES_PER_USD[sending]
    return [
        {
            "currency": currency(receiving),
            "estimatedExchangeRate": float(rate.quantize(Decimal("0.000001"))),
            "min": max(1, int(entry["minAmount"])),
            "max": int(entry["maxAmount"]),
        }
    ]


def _store(
    db: Session, services: Services, kind: str, target: str, customer_id: str | None, fields: Any
) -> str:
    lookup_id = new_id("Lookup")
    db.add(
        ReceiverLookup(
            id=lookup_id,
            kind=kind,
            target=target,
            customer_id=customer_id,
            required_payer_fields=fields,
            created_at=services.clock.now(),
        )
    )
    return lookup_id


def lookup_uma(
    db: Session,
    services: Services,
    address: str,
    *,
    customer_id: str | None = None,
    sender_uma: str | None = None,
) -> dict[str, Any]:
    """Look up an UMA receiver: its currencies and the payer data it requires; the
    ``lookupId`` goes into the quote."""
    sending = _sender_currency(db, customer_id, sender_uma)
    receiving = uma_receiver_currency(address)
    if uma_receiver_outcome(address) is None or receiving is None:
        raise not_found(
            "The sandbox knows only its own UMA receivers ($success.usd@..., ...).",
            "UMA_NOT_FOUND",
        )
    fields = [dict(field) for field in UMA_PAYER_FIELDS]
    preferences = _preferences(db, sending, receiving)
    lookup_id = _store(db, services, "UMA_ADDRESS", address, customer_id, fields)
    return {
        "lookupId": lookup_id,
        "receiverUmaAddress": address,
        "supportedCurrencies": preferences,
        "requiredPayerDataFields": fields,
    }


def lookup_external_account(
    db: Session,
    services: Services,
    account_id: str,
    *,
    customer_id: str | None = None,
    sender_uma: str | None = None,
) -> dict[str, Any]:
    """Look up an external account: the currency it takes, with an estimated rate and limits."""
    sending = _sender_currency(db, customer_id, sender_uma)
    account = db.get(ExternalAccount, account_id)
    if account is None:
        raise not_found("No external account has this id.")
    preferences = _preferences(db, sending, account.currency)
    lookup_id = _store(db, services, "ACCOUNT", account.id, customer_id, [])
    return {
        "lookupId": lookup_id,
        "accountId": account.id,
        "supportedCurrencies": preferences,
        "requiredPayerDataFields": [],
    }
