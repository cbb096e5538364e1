"""What a quote request is checked for and priced at: its source and destination, the receiver
lookup of an UMA destination, the sandbox's fixed rates and fees, and the configured limits
(``price_quote``); and the bank instructions of a realtime-funded quote."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from ..db.tables_payments import ExternalAccount, ReceiverLookup
from ..db.tables_wallet import Customer, InternalAccount
from ..models.quotes import QuoteCreate, QuoteDestination, QuoteSource
from .errors import Refusal, invalid, not_found
from .funding import account_details
from .payment_tables import (
    MAX_LOCKED_AMOUNT,
    RATES_PER_USD,
    Conversion,
    convert,
    uma_receiver_currency,
    uma_receiver_outcome,
)
from .platform_config import check_amount

__all__ = ["PricedQuote", "funding_instructions", "price_quote"]


@dataclass(frozen=True)
class PricedQuote:
    """A checked quote request: its currencies, the kind of its source (an account type or
    ``REALTIME_FUNDING``), its customer, the source and destination as the quote shows them,
    and its price."""

    sending: str
    receiving: str
    source_kind: str
    customer_id: str | None
    source: dict[str, Any]
    destination: dict[str, Any]
    price: Conversion


def _not_found(what: str) -> Refusal:
    return not_found(f"No {what} has this id.")


def _rated(code: str) -> None:
    if code not in RATES_PER_USD:
        raise invalid(f"The sandbox has no exchange rate for {code}.", "UNSUPPORTED_CURRENCY")


def _source(db: Session, source: QuoteSource) -> tuple[str, str, str | None, dict[str, Any]]:
    """(currency, kind, customer id, the source object to echo)."""
    if source.sourceType == "REALTIME_FUNDING":
        if source.currency is None or source.customerId is None:
            raise invalid("A REALTIME_FUNDING source needs currency and customerId.")
        if db.get(Customer, source.customerId) is None:
            raise _not_found("customer")
        echo = {"sourceType": "REALTIME_FUNDING", "currency": source.currency}
        echo["customerId"] = source.customerId
        return source.currency, "REALTIME_FUNDING", source.customerId, echo
    if source.accountId is None:
        raise invalid("An ACCOUNT source needs accountId.")
    account = db.get(InternalAccount, source.accountId)
    if account is None:
        raise _not_found("internal account")
    if source.customerId is not None and source.customerId != account.customer_id:
        raise invalid("The source account is not the customer's.")
    echo = {
        "sourceType": "ACCOUNT",
        "accountId": account.id,
        "customerId": account.customer_id,
    }
    return account.currency, account.type, account.customer_id, echo


def _destination(
    db: Session, destination: QuoteDestination
) -> tuple[str, str, str | None, dict[str, Any]]:
    """(currency, kind INTERNAL/EXTERNAL/UMA, the identifier whose suffix decides, echo)."""
    if destination.destinationType == "UMA_ADDRESS":
        address = destination.umaAddress
        if address is None:
            raise invalid("A UMA_ADDRESS destination needs umaAddress.")
        code = destination.currency or uma_receiver_currency(address)
        if uma_receiver_outcome(address) is None or code is None:
            raise invalid(
                "The sandbox knows only its own UMA receivers ($success.usd@..., ...).",
                "UMA_ADDRESS_NOT_FOUND",
            )
        echo = {"destinationType": "UMA_ADDRESS", "umaAddress": address, "currency": code}
        return code, "UMA", address, echo
    if destination.accountId is None:
        raise invalid("An ACCOUNT destination needs accountId.")
    echo = {"destinationType": "ACCOUNT", "accountId": destination.accountId}
    if destination.paymentRail is not None:
        echo["paymentRail"] = destination.paymentRail
    internal = db.get(InternalAccount, destination.accountId)
    if internal is not None:
        return internal.currency, "INTERNAL", None, echo
    external = db.get(ExternalAccount, destination.accountId)
    if external is None:
        raise _not_found("account")
    return external.currency, "EXTERNAL", external.identifier, echo


def _check_lookup(db: Session, body: QuoteCreate, destination: dict[str, Any]) -> None:
    """A quote to an UMA address names the lookup of that address; a given ``lookupId`` must
    be of this destination, and ``senderCustomerInfo`` must hold every mandatory field the
    lookup's ``requiredPayerDataFields`` named."""
    uma = destination.get("umaAddress")
    if body.lookupId is None:
        if uma is not None:
            raise invalid(
                "A quote to an UMA address needs the lookupId of GET /receiver/uma/{address}."
            )
        return
    lookup = db.get(ReceiverLookup, body.lookupId)
    if lookup is None:
        raise not_found("No receiver lookup has this id.", "LOOKUP_REQUEST_NOT_FOUND")
    if lookup.target != (uma if uma is not None else destination.get("accountId")):
        raise invalid("The lookup is of another receiver.")
    given = body.senderCustomerInfo or {}
    missing = [
        str(field["name"])
        for field in lookup.required_payer_fields
        if field.get("mandatory") and not given.get(str(field["name"]))
    ]
    if missing:
        raise invalid(
            f"senderCustomerInfo needs {', '.join(missing)} (the receiver's lookup asks for it).",
            "MISSING_MANDATORY_USER_INFO",
        )


def funding_instructions(quote_id: str, code: str, amount: int) -> list[dict[str, Any]]:
    """Where a realtime-funded quote's money is sent: sandbox details in the published shape
    of ``code``'s account type (as an internal account's funding details), with the quote's
    reference."""
    reference = "SBX-" + quote_id.rsplit(":", 1)[-1][:8].upper()
    seed = hashlib.sha256(quote_id.encode("utf-8", "surrogatepass")).hexdigest()
    info = account_details(code, seed, reference)
    info.setdefault("reference", reference)
    return [
        {
            "accountOrWalletInfo": info,
            "instructionsNotes": (
                f"Send exactly {amount} (smallest units of {code}) with reference {reference}; "
                "in the sandbox, POST /sandbox/send simulates it."
            ),
        }
    ]


def price_quote(db: Session, body: QuoteCreate) -> PricedQuote:
    """Check a quote request and price it.

    Raises:
        Refusal: 400 (same currency, no rate, limits, ``immediatelyExecute`` not allowed,
            amount too small, an UMA destination without its lookup, missing payer data),
            404 (unknown account, customer or lookup).
    """
    sending, source_kind, customer_id, source_echo = _source(db, body.source)
    receiving, destination_kind, _, destination_echo = _destination(db, body.destination)
    _check_lookup(db, body, destination_echo)
    if sending == receiving:
        raise invalid(
            "Quotes are for cross-currency transfers; use transfer-in or transfer-out.",
            "SAME_CURRENCY",
        )
    _rated(sending)
    _rated(receiving)
    if body.immediatelyExecute and source_kind not in ("INTERNAL_FIAT", "INTERNAL_CRYPTO"):
        raise invalid(
            "immediatelyExecute needs an internal-account source that is not an embedded "
            "wallet (an embedded wallet signs a separate execute call).",
            "IMMEDIATE_EXECUTION_NOT_SUPPORTED",
        )
    priced = convert(sending, receiving, body.lockedCurrencySide, body.lockedCurrencyAmount)
    if priced is None:
        raise invalid("The amount does not cover the fees.", "AMOUNT_TOO_SMALL")
    if priced.total_sending > MAX_LOCKED_AMOUNT or priced.total_receiving > MAX_LOCKED_AMOUNT:
        raise invalid("The converted amount is too large.", "AMOUNT_TOO_LARGE")
    check_amount(db, sending, priced.total_sending, "OUTGOING")
    check_amount(
        db,
        receiving,
        priced.total_receiving,
        "INCOMING" if destination_kind == "INTERNAL" else "OUTGOING",
    )
    return PricedQuote(
        sending, receiving, source_kind, customer_id, source_echo, destination_echo, priced
    )
