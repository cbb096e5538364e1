"""Quotes: creation (fixed sandbox rates and fees), execution (a session-key signature for an
embedded-wallet source) and expiry. Callable from any route (the platform's ``/quotes`` and an
agent's ``/agents/me/quotes``)."""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import update
from sqlalchemy.orm import Session

from ..errors import StampError
from ..signed_retry import Operation, build_payload
from ..stamps import verify_stamp
from ._balances import debit, require_room
from ._clock import Clock, iso
from ._currencies import currency
from ._errors import ApiError, library_error
from ._ids import new_id
from ._models import Customer, InternalAccount
from ._models_payments import (
    ExternalAccount,
    LookupRow,
    QuoteRow,
    TransactionRow,
)
from ._payment_tables import (
    MAX_LOCKED_AMOUNT,
    QUOTE_LIFETIME_SECONDS,
    RATES_PER_USD,
    Step,
    convert,
    quote_outcome,
    suffix_of,
    uma_receiver_currency,
    uma_receiver_outcome,
)
from ._platform_config import check_amount
from ._services import Services
from ._transactions import new_transaction
from ._wallet import session_keys

__all__ = [
    "QuoteCreate",
    "create_quote",
    "execute_quote",
    "find_quote",
    "quote_body",
]

_CODE = r"^[A-Z]{3,5}$"
_ID = Annotated[str, Field(min_length=1, max_length=200)]


class QuoteSource(BaseModel):
    model_config = ConfigDict(extra="ignore")
    sourceType: Literal["ACCOUNT", "REALTIME_FUNDING"] = "ACCOUNT"
    accountId: _ID | None = None
    customerId: _ID | None = None
    currency: Annotated[str, Field(pattern=_CODE)] | None = None


class QuoteDestination(BaseModel):
    model_config = ConfigDict(extra="ignore")
    destinationType: Literal["ACCOUNT", "UMA_ADDRESS"] = "ACCOUNT"
    accountId: _ID | None = None
    umaAddress: Annotated[str, Field(min_length=3, max_length=300)] | None = None
    currency: Annotated[str, Field(pattern=_CODE)] | None = None
    paymentRail: Annotated[str, Field(max_length=40)] | None = None


class PurposeOfPayment(str, Enum):
    GIFT = "GIFT"
    SELF = "SELF"
    GOODS_OR_SERVICES = "GOODS_OR_SERVICES"
    EDUCATION = "EDUCATION"
    HEALTH_OR_MEDICAL = "HEALTH_OR_MEDICAL"
    REAL_ESTATE_PURCHASE = "REAL_ESTATE_PURCHASE"
    TAX_PAYMENT = "TAX_PAYMENT"
    LOAN_PAYMENT = "LOAN_PAYMENT"
    UTILITY_BILL = "UTILITY_BILL"
    DONATION = "DONATION"
    TRAVEL = "TRAVEL"
    OTHER = "OTHER"


class QuoteCreate(BaseModel):
    """The body of ``POST /quotes`` (and of an agent's quote)."""

    model_config = ConfigDict(extra="ignore")
    source: QuoteSource
    destination: QuoteDestination
    lockedCurrencySide: Literal["SENDING", "RECEIVING"]
    lockedCurrencyAmount: Annotated[int, Field(strict=True, ge=1, le=MAX_LOCKED_AMOUNT)]
    lookupId: Annotated[str, Field(max_length=200)] | None = None
    immediatelyExecute: Annotated[bool, Field(strict=True)] = False
    description: Annotated[str, Field(max_length=500)] | None = None
    purposeOfPayment: PurposeOfPayment | None = None
    senderCustomerInfo: dict[str, Annotated[str, Field(max_length=500)]] | None = None


def _not_found(what: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"No {what} has this id.")


def _rated(code: str) -> None:
    if code not in RATES_PER_USD:
        raise ApiError(400, "UNSUPPORTED_CURRENCY", f"The sandbox has no exchange rate for {code}.")


def _source(db: Session, source: QuoteSource) -> tuple[str, str, str | None, dict[str, Any]]:
    """(currency, kind, customer id, the source object to echo)."""
    if source.sourceType == "REALTIME_FUNDING":
        if source.currency is None or source.customerId is None:
            raise ApiError(
                400, "INVALID_INPUT", "A REALTIME_FUNDING source needs currency and customerId."
            )
        if db.get(Customer, source.customerId) is None:
            raise _not_found("customer")
        echo = {"sourceType": "REALTIME_FUNDING", "currency": source.currency}
        echo["customerId"] = source.customerId
        return source.currency, "REALTIME_FUNDING", source.customerId, echo
    if source.accountId is None:
        raise ApiError(400, "INVALID_INPUT", "An ACCOUNT source needs accountId.")
    account = db.get(InternalAccount, source.accountId)
    if account is None:
        raise _not_found("internal account")
    if source.customerId is not None and source.customerId != account.customer_id:
        raise ApiError(400, "INVALID_INPUT", "The source account is not the customer's.")
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
            raise ApiError(400, "INVALID_INPUT", "A UMA_ADDRESS destination needs umaAddress.")
        code = destination.currency or uma_receiver_currency(address)
        if uma_receiver_outcome(address) is None or code is None:
            raise ApiError(
                400,
                "UMA_ADDRESS_NOT_FOUND",
                "The sandbox knows only its own UMA receivers ($success.usd@..., ...).",
            )
        echo = {"destinationType": "UMA_ADDRESS", "umaAddress": address, "currency": code}
        return code, "UMA", address, echo
    if destination.accountId is None:
        raise ApiError(400, "INVALID_INPUT", "An ACCOUNT destination needs accountId.")
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
            raise ApiError(
                400,
                "INVALID_INPUT",
                "A quote to an UMA address needs the lookupId of GET /receiver/uma/{address}.",
            )
        return
    lookup = db.get(LookupRow, body.lookupId)
    if lookup is None:
        raise ApiError(404, "LOOKUP_REQUEST_NOT_FOUND", "No receiver lookup has this id.")
    if lookup.target != (uma if uma is not None else destination.get("accountId")):
        raise ApiError(400, "INVALID_INPUT", "The lookup is of another receiver.")
    given = body.senderCustomerInfo or {}
    missing = [
        str(field["name"])
        for field in lookup.required_payer_fields
        if field.get("mandatory") and not given.get(str(field["name"]))
    ]
    if missing:
        raise ApiError(
            400,
            "MISSING_MANDATORY_USER_INFO",
            f"senderCustomerInfo needs {', '.join(missing)} (the receiver's lookup asks for it).",
        )


def _funding_instructions(quote_id: str, code: str, amount: int) -> list[dict[str, Any]]:
    reference = "SBX-" + quote_id.rsplit(":", 1)[-1][:8].upper()
    return [
        {
            "accountOrWalletInfo": {
                "accountType": "USD_ACCOUNT" if code == "USD" else f"{code}_ACCOUNT",
                "paymentRails": ["ACH", "WIRE", "RTP"],
                "accountNumber": "000123456789",
                "routingNumber": "021000021",
                "bankName": "Sandbox Bank",
                "reference": reference,
            },
            "instructionsNotes": (
                f"Send exactly {amount} (smallest units of {code}) with reference {reference}; "
                "in the sandbox, POST /sandbox/send simulates it."
            ),
        }
    ]


def _wallet_payload(
    services: Services, quote_id: str, account_id: str, body: dict[str, Any]
) -> str:
    summary = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
    return build_payload(
        Operation.EXECUTE_QUOTE,
        {
            "signWith": account_id,
            "unsignedTransaction": summary.hex(),
            "type": "TRANSACTION_TYPE_QUOTE",
        },
        organization_id=services.organization_id,
        timestamp_ms=int(Clock.time() * 1000),
    )


def create_quote(
    db: Session,
    platform: str,
    body: QuoteCreate,
    *,
    services: Services,
    agent: str | None = None,
    signature_header: str | None = None,
) -> dict[str, Any]:
    """Create a quote (and, with ``immediatelyExecute``, execute it); returns the Quote body.

    Args:
        db: the request's session (flushed, not committed).
        platform: the platform's credential id (recorded for webhooks).
        body: the parsed request body.
        services: the app's services (clock, organization id, environment).
        agent: the ``Agent:<id>`` creating it, if an agent does.
        signature_header: unused at creation (an embedded-wallet source cannot execute
            immediately); accepted so that both calls take the same arguments.

    Raises:
        ApiError: 400 (same currency, no rate, limits, ``immediatelyExecute`` not allowed,
            amount too small, an UMA destination without its lookup, missing payer data),
            404 (unknown account, customer or lookup).
    """
    del signature_header
    sending, source_kind, customer_id, source_echo = _source(db, body.source)
    receiving, destination_kind, _, destination_echo = _destination(db, body.destination)
    _check_lookup(db, body, destination_echo)
    if sending == receiving:
        raise ApiError(
            400,
            "SAME_CURRENCY",
            "Quotes are for cross-currency transfers; use transfer-in or transfer-out.",
        )
    _rated(sending)
    _rated(receiving)
    if body.immediatelyExecute and source_kind not in ("INTERNAL_FIAT", "INTERNAL_CRYPTO"):
        raise ApiError(
            400,
            "IMMEDIATE_EXECUTION_NOT_SUPPORTED",
            "immediatelyExecute needs an internal-account source that is not an embedded "
            "wallet (an embedded wallet signs a separate execute call).",
        )
    priced = convert(sending, receiving, body.lockedCurrencySide, body.lockedCurrencyAmount)
    if priced is None:
        raise ApiError(400, "AMOUNT_TOO_SMALL", "The amount does not cover the fees.")
    if priced.total_sending > MAX_LOCKED_AMOUNT or priced.total_receiving > MAX_LOCKED_AMOUNT:
        raise ApiError(400, "AMOUNT_TOO_LARGE", "The converted amount is too large.")
    check_amount(db, sending, priced.total_sending, "OUTGOING")
    check_amount(
        db,
        receiving,
        priced.total_receiving,
        "INCOMING" if destination_kind == "INTERNAL" else "OUTGOING",
    )
    now = services.clock.now()
    quote_id = new_id("Quote")
    instructions: list[dict[str, Any]] = []
    payload = None
    if source_kind == "REALTIME_FUNDING":
        instructions = _funding_instructions(quote_id, sending, priced.total_sending)
    elif source_kind == "EMBEDDED_WALLET":
        account_id = str(source_echo["accountId"])
        payload = _wallet_payload(
            services,
            quote_id,
            account_id,
            {
                "quoteId": quote_id,
                "sendingCurrency": sending,
                "totalSendingAmount": priced.total_sending,
                "receivingCurrency": receiving,
                "totalReceivingAmount": priced.total_receiving,
                "destination": destination_echo,
            },
        )
        instructions = [
            {
                "accountOrWalletInfo": {"accountType": "EMBEDDED_WALLET", "accountId": account_id},
                "payloadToSign": payload,
                "instructionsNotes": (
                    "Stamp payloadToSign with an active session key of the wallet and send it "
                    "in Service-Wallet-Signature on POST /quotes/{id}/execute."
                ),
            }
        ]
    extra = body.model_dump(
        include={"description", "purposeOfPayment", "senderCustomerInfo", "lookupId"},
        exclude_none=True,
        mode="json",
    )
    row = QuoteRow(
        id=quote_id,
        platform=platform,
        agent_id=agent,
        customer_id=customer_id,
        source=source_echo,
        destination=destination_echo,
        source_kind=source_kind,
        sending_currency=sending,
        receiving_currency=receiving,
        total_sending=priced.total_sending,
        total_receiving=priced.total_receiving,
        fees=priced.fees,
        exchange_rate=priced.exchange_rate,
        rate_details=priced.rate_details(),
        payment_instructions=instructions,
        payload_to_sign=payload,
        extra=extra,
        status="PENDING",
        transaction_id=new_id("Transaction"),
        executed=False,
        created_at=now,
        expires_at=services.clock.later(QUOTE_LIFETIME_SECONDS),
    )
    db.add(row)
    db.flush()
    if body.immediatelyExecute:
        return execute_quote(db, row, services=services, agent=agent)
    _start(db, services, row, agent=agent, source_internal=False, pending=True)
    return quote_body(row)


def find_quote(db: Session, quote_id: str) -> QuoteRow:
    row = db.get(QuoteRow, quote_id)
    if row is None:
        raise _not_found("quote")
    return row


def _expired(row: QuoteRow) -> bool:
    return not row.executed and Clock.now() >= row.expires_at


def quote_body(row: QuoteRow) -> dict[str, Any]:
    """The interface's Quote."""
    body: dict[str, Any] = {
        "id": row.id,
        "status": "EXPIRED" if _expired(row) else row.status,
        "createdAt": iso(row.created_at),
        "expiresAt": iso(row.expires_at),
        "source": row.source,
        "destination": row.destination,
        "sendingCurrency": currency(row.sending_currency),
        "receivingCurrency": currency(row.receiving_currency),
        "totalSendingAmount": row.total_sending,
        "totalReceivingAmount": row.total_receiving,
        "exchangeRate": row.exchange_rate,
        "feesIncluded": row.fees,
        "transactionId": row.transaction_id,
        "rateDetails": row.rate_details,
    }
    if row.payment_instructions:
        body["paymentInstructions"] = row.payment_instructions
    if row.extra.get("description"):
        body["description"] = row.extra["description"]
    return body


def _check_signature(
    db: Session, services: Services, row: QuoteRow, signature_header: str | None
) -> None:
    assert row.payload_to_sign is not None
    account_id = str(row.source["accountId"])
    try:
        stamp = verify_stamp(signature_header, row.payload_to_sign, sandbox=services.environment)
    except StampError as error:
        raise library_error(error) from None
    if stamp.scheme == "SANDBOX":
        return
    keys = session_keys(db, account_id, services.clock.now())
    if stamp.signer_among(keys) is None:
        raise ApiError(
            401,
            "UNAUTHORIZED",
            "Invalid Service-Wallet-Signature",
        )


def execute_quote(
    db: Session,
    quote: QuoteRow | str,
    *,
    services: Services,
    signature_header: str | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    """Execute a quote: check the signature (embedded-wallet source), take the sending amount
    from the source, start the transaction with the destination's sandbox outcome; returns the
    Quote body.

    Raises:
        ApiError: 404 (no quote), 409 QUOTE_ALREADY_EXECUTED, 409 QUOTE_EXPIRED,
            400 INSUFFICIENT_FUNDS, 400 BALANCE_LIMIT_EXCEEDED (an internal destination
            would pass its ceiling), 400 for a realtime-funded quote (pay its instructions),
            401 UNAUTHORIZED (a missing or wrong ``Service-Wallet-Signature``).
    """
    row = find_quote(db, quote) if isinstance(quote, str) else quote
    if row.executed:
        raise ApiError(409, "QUOTE_ALREADY_EXECUTED", "This quote has been executed already.")
    if _expired(row):
        row.status = "EXPIRED"
        raise ApiError(409, "QUOTE_EXPIRED", "The quote has expired; create a new one.")
    if row.source_kind == "REALTIME_FUNDING":
        raise ApiError(
            400,
            "QUOTE_NEEDS_FUNDING",
            "A realtime-funded quote executes when its payment instructions are paid.",
        )
    if row.source_kind == "EMBEDDED_WALLET":
        _check_signature(db, services, row, signature_header)
    _require_destination_room(db, row)
    _claim(db, row)
    debit(db, str(row.source["accountId"]), row.total_sending)
    _start(db, services, row, agent=agent, source_internal=True)
    return quote_body(row)


def _require_destination_room(db: Session, row: QuoteRow) -> None:
    """400 BALANCE_LIMIT_EXCEEDED, before anything moves, when the quote pays an internal
    account that its receiving amount would take past the balance ceiling."""
    if row.destination.get("destinationType") != "UMA_ADDRESS":
        require_room(db, str(row.destination.get("accountId")), row.total_receiving)


def _claim(db: Session, row: QuoteRow) -> None:
    """Mark the quote executed in the database, once: of two concurrent executions one
    claims it and the other (which waits for the first's commit) answers 409."""
    claimed = db.execute(
        update(QuoteRow)
        .where(QuoteRow.id == row.id)
        .where(QuoteRow.executed.is_(False))
        .values(executed=True)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise ApiError(409, "QUOTE_ALREADY_EXECUTED", "This quote has been executed already.")


def fund_quote(db: Session, services: Services, row: QuoteRow) -> dict[str, Any]:
    """A realtime-funded quote whose instructions were paid (``/sandbox/send``)."""
    if row.executed:
        raise ApiError(409, "QUOTE_ALREADY_EXECUTED", "This quote has been executed already.")
    if _expired(row):
        raise ApiError(409, "QUOTE_EXPIRED", "The quote has expired; create a new one.")
    if row.source_kind != "REALTIME_FUNDING":
        raise ApiError(400, "INVALID_INPUT", "This quote is funded from an account.")
    _require_destination_room(db, row)
    _claim(db, row)
    _start(db, services, row, agent=None, source_internal=False)
    return quote_body(row)


def _start(
    db: Session,
    services: Services,
    row: QuoteRow,
    *,
    agent: str | None,
    source_internal: bool,
    pending: bool = False,
) -> None:
    """Start the quote's transaction with its outcome (the execution); with ``pending``, the
    transaction of a quote not executed yet: PENDING, then EXPIRED with QUOTE_EXPIRED when the
    quote expires unexecuted (the execution replaces it)."""
    destination = row.destination
    internal = None
    if destination.get("destinationType") == "UMA_ADDRESS":
        steps = uma_receiver_outcome(str(destination["umaAddress"])) or []
        destination_id = None
    else:
        destination_id = str(destination["accountId"])
        internal = db.get(InternalAccount, destination_id)
        external = None if internal is not None else db.get(ExternalAccount, destination_id)
        steps = quote_outcome(
            suffix_of(external.identifier) if external is not None and services.sandbox else None
        )
    if pending:
        steps = [
            Step(0, "PENDING"),
            Step(QUOTE_LIFETIME_SECONDS, "EXPIRED", "QUOTE_EXPIRED"),
        ]
        internal = None  # nothing is credited or returned: nothing moved
    else:
        waiting = db.get(TransactionRow, row.transaction_id)
        if waiting is not None:
            db.delete(waiting)
            db.flush()
    customer = db.get(Customer, row.customer_id) if row.customer_id else None
    new_transaction(
        db,
        services.clock,
        row.platform,
        type="OUTGOING",
        kind="QUOTE",
        steps=steps,
        customer_id=row.customer_id,
        platform_customer_id=customer.platform_customer_id if customer else None,
        source_account_id=row.source.get("accountId"),
        source_currency=row.sending_currency,
        sent_amount=row.total_sending,
        source_internal=source_internal,
        destination_account_id=destination_id,
        destination_currency=row.receiving_currency,
        received_amount=row.total_receiving,
        destination_internal=internal is not None,
        quote_id=row.id,
        agent_id=agent or row.agent_id,
        description=row.extra.get("description"),
        transaction_id=row.transaction_id,
        extra={"umaAddress": destination.get("umaAddress")},
    )
    row.executed = row.executed or not pending
    db.flush()
