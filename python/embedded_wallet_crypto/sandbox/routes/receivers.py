"""Receiver lookups: ``GET /receiver/uma/{receiverUmaAddress}`` and
``GET /receiver/external-account/{accountId}``.

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
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._currencies import currency
from .._db import get_session
from .._errors import ApiError, error_responses
from .._ids import new_id
from .._models import Customer
from .._models_payments import ExternalAccount, LookupRow
from .._payment_tables import RATES_PER_USD, uma_receiver_currency, uma_receiver_outcome
from .._platform_config import load_config
from .._services import Services, get_services

__all__ = ["UMA_PAYER_FIELDS", "router"]

router = APIRouter(
    tags=["Receiver lookups"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]
_Text = Annotated[str | None, Query(min_length=1, max_length=300)]

#: What the sandbox's UMA receivers require about the payer.
UMA_PAYER_FIELDS: list[dict[str, Any]] = [{"name": "FULL_NAME", "mandatory": True}]


def _sender_currency(db: Session, customer_id: str | None, sender_uma: str | None) -> str:
    """The sender's currency: the customer's first currency (USD for an UMA sender)."""
    if customer_id is None and sender_uma is None:
        raise ApiError(400, "INVALID_INPUT", "Give customerId or senderUmaAddress.")
    if customer_id is None:
        return "USD"
    customer = db.get(Customer, customer_id)
    if customer is None:
        raise ApiError(404, "NOT_FOUND", "No customer has this id.")
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
        LookupRow(
            id=lookup_id,
            kind=kind,
            target=target,
            customer_id=customer_id,
            required_payer_fields=fields,
            created_at=services.clock.now(),
        )
    )
    db.commit()
    return lookup_id


@router.get("/receiver/uma/{receiverUmaAddress}")
def lookup_uma(
    receiverUmaAddress: Annotated[str, Path(min_length=3, max_length=300)],
    db: Db,
    services: Svc,
    customerId: _Text = None,
    senderUmaAddress: _Text = None,
) -> dict[str, Any]:
    """Look up an UMA receiver: its currencies and the payer data it requires; the
    ``lookupId`` goes into the quote."""
    sending = _sender_currency(db, customerId, senderUmaAddress)
    receiving = uma_receiver_currency(receiverUmaAddress)
    if uma_receiver_outcome(receiverUmaAddress) is None or receiving is None:
        raise ApiError(
            404,
            "UMA_NOT_FOUND",
            "The sandbox knows only its own UMA receivers ($success.usd@..., ...).",
        )
    fields = [dict(field) for field in UMA_PAYER_FIELDS]
    preferences = _preferences(db, sending, receiving)
    lookup_id = _store(db, services, "UMA_ADDRESS", receiverUmaAddress, customerId, fields)
    return {
        "lookupId": lookup_id,
        "receiverUmaAddress": receiverUmaAddress,
        "supportedCurrencies": preferences,
        "requiredPayerDataFields": fields,
    }


@router.get("/receiver/external-account/{accountId}")
def lookup_external_account(
    accountId: Annotated[str, Path(min_length=1, max_length=200)],
    db: Db,
    services: Svc,
    customerId: _Text = None,
    senderUmaAddress: _Text = None,
) -> dict[str, Any]:
    """Look up an external account: the currency it takes, with an estimated rate and limits."""
    sending = _sender_currency(db, customerId, senderUmaAddress)
    account = db.get(ExternalAccount, accountId)
    if account is None:
        raise ApiError(404, "NOT_FOUND", "No external account has this id.")
    preferences = _preferences(db, sending, account.currency)
    lookup_id = _store(db, services, "ACCOUNT", account.id, customerId, [])
    return {
        "lookupId": lookup_id,
        "accountId": account.id,
        "supportedCurrencies": preferences,
        "requiredPayerDataFields": [],
    }
