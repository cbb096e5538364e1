"""What every quote operation shares: finding a quote, its expiry, its response body and the
refusals of a quote's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from ..clock import Clock, iso
from ..db.tables_payments import Quote
from .currencies import currency
from .errors import Refusal, not_found

__all__ = [
    "PENDING_AUTHORIZATION",
    "REQUEST_ID",
    "SCA_CHALLENGE",
    "Signature",
    "already_executed",
    "expired_refusal",
    "find_quote",
    "is_expired",
    "pending_authorization",
    "quote_body",
]

#: Where a wallet quote keeps the request id of its signed-retry challenge.
REQUEST_ID = "signedRequestId"
#: Where a quote in ``PENDING_AUTHORIZATION`` keeps the ``scaChallenge`` it shows.
SCA_CHALLENGE = "scaChallenge"
PENDING_AUTHORIZATION = "PENDING_AUTHORIZATION"


@dataclass(frozen=True)
class Signature:
    """The ``Service-Wallet-Signature`` of an embedded-wallet quote's execution, as sent.
    ``claimed``: its signed retry was verified and its request id used already (by an agent's
    submission, which the platform's approval then executes)."""

    stamp: str | None
    claimed: bool = False


def already_executed() -> Refusal:
    return Refusal(409, "QUOTE_ALREADY_EXECUTED", "This quote has been executed already.")


def expired_refusal() -> Refusal:
    return Refusal(409, "QUOTE_EXPIRED", "The quote has expired; create a new one.")


def pending_authorization() -> Refusal:
    return Refusal(
        409,
        "QUOTE_PENDING_AUTHORIZATION",
        "The quote awaits its SCA authorization: POST /quotes/{quoteId}/authorize.",
    )


def find_quote(db: Session, quote_id: str) -> Quote:
    row = db.get(Quote, quote_id)
    if row is None:
        raise not_found("No quote has this id.")
    return row


def is_expired(row: Quote) -> bool:
    """Whether the quote expired unexecuted."""
    return not row.executed and Clock.now() >= row.expires_at


def quote_body(row: Quote) -> dict[str, Any]:
    """The interface's Quote (``scaChallenge`` only while ``PENDING_AUTHORIZATION``)."""
    status = "EXPIRED" if is_expired(row) else row.status
    body: dict[str, Any] = {
        "id": row.id,
        "status": status,
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
    if status == PENDING_AUTHORIZATION and row.extra.get(SCA_CHALLENGE):
        body["scaChallenge"] = row.extra[SCA_CHALLENGE]
    return body
