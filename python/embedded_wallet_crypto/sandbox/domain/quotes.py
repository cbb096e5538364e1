"""Quotes: creation (priced by ``quote_pricing``), execution and expiry, for the platform's
``/quotes`` and an agent's ``/agents/me/quotes``. The execution is ``quote_execution``, the
Strong Customer Authentication of a customer of the EEA ``quote_sca``, what they share
``quote_rows``; this module gives their names too.

An embedded-wallet source pays only with a stamp of the quote's ``payloadToSign`` by an active
session key of the wallet. That payload is a signed-retry challenge of the library's
``SignedRetry`` (operation ``EXECUTE_QUOTE``), issued with the quote; the execution verifies the
stamp through ``SignedRetry.verify`` and so uses the challenge's request id once, in the same
store and by the same atomic claim as every other signed payload of the service. Everything an
execution can be refused for is checked before the claim, in the order the answers keep (the
quote executed or expired, the stamp, the destination full, the wallet short), so that a stamp
is used only by an execution that goes on; the claim itself comes before the transaction's
first write (on SQLite the store shares the database file), and so does a first SCA
challenge's SMS code. That the quote runs once is its own state: the ``executed`` flag, set by
a conditional update.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.orm import Session

from ...signed_retry import Operation
from ..db.tables_payments import Quote
from ..ids import new_id
from ..models.quotes import QuoteCreate
from ..services import Services
from .payment_tables import QUOTE_LIFETIME_SECONDS, Step
from .quote_execution import (
    SCA_NOT_COMPLETED,
    check_signer,
    claim_signature,
    execute_quote,
    fund_quote,
    start_transaction,
)
from .quote_pricing import funding_instructions, price_quote
from .quote_rows import (
    PENDING_AUTHORIZATION,
    REQUEST_ID,
    Signature,
    already_executed,
    find_quote,
    is_expired,
    quote_body,
)
from .quote_sca import issue, purposes_of, sca_customer_of

__all__ = [
    "Signature",
    "already_executed",
    "check_signer",
    "claim_signature",
    "create_quote",
    "execute_quote",
    "find_quote",
    "fund_quote",
    "is_expired",
    "quote_body",
]


def _summary(quote_id: str, priced: Any) -> str:
    """The ``unsignedTransaction`` of a wallet quote: hex of its terms as compact JSON."""
    terms = {
        "quoteId": quote_id,
        "sendingCurrency": priced.sending,
        "totalSendingAmount": priced.price.total_sending,
        "receivingCurrency": priced.receiving,
        "totalReceivingAmount": priced.price.total_receiving,
        "destination": priced.destination,
    }
    return json.dumps(terms, separators=(",", ":"), sort_keys=True).encode().hex()


def create_quote(
    db: Session, platform: str, body: QuoteCreate, *, services: Services, agent: str | None = None
) -> dict[str, Any]:
    """Create a quote (and, with ``immediatelyExecute``, execute it); returns the Quote body.

    Args:
        db: the request's session (flushed, not committed).
        platform: the platform's credential id (recorded for webhooks).
        body: the parsed request body.
        services: the app's services (clock, organization id, signed retries, environment).
        agent: the ``Agent:<id>`` creating it, if an agent does.

    Raises:
        Refusal: see ``quote_pricing.price_quote``.
    """
    priced = price_quote(db, body)
    now = services.clock.now()
    quote_id = new_id("Quote")
    expires_at = services.clock.later(QUOTE_LIFETIME_SECONDS)
    extra = body.model_dump(
        include={"description", "purposeOfPayment", "senderCustomerInfo", "lookupId"},
        exclude_none=True,
        mode="json",
    )
    instructions: list[dict[str, Any]] = []
    payload = None
    if priced.source_kind == "REALTIME_FUNDING":
        instructions = funding_instructions(quote_id, priced.sending, priced.price.total_sending)
    elif priced.source_kind == "EMBEDDED_WALLET":
        account_id = str(priced.source["accountId"])
        challenge = services.signed_retry.issue(  # after expires_at: it outlives the quote
            account_id=account_id,
            operation=Operation.EXECUTE_QUOTE,
            parameters={
                "signWith": account_id,
                "unsignedTransaction": _summary(quote_id, priced),
                "type": "TRANSACTION_TYPE_QUOTE",
            },
            organization_id=services.organization_id,
        )
        payload = challenge.payload_to_sign
        extra[REQUEST_ID] = challenge.request_id
        instructions = [
            {  # the published place of the payload, and beside it where clients of the
                # interface's first releases read it
                "accountOrWalletInfo": {
                    "accountType": "EMBEDDED_WALLET",
                    "payloadToSign": payload,
                    "accountId": account_id,
                },
                "payloadToSign": payload,
                "instructionsNotes": (
                    "Stamp payloadToSign with an active session key of the wallet and send it "
                    "in Service-Wallet-Signature on POST /quotes/{id}/execute."
                ),
            }
        ]
    price = priced.price
    row = Quote(
        id=quote_id,
        platform=platform,
        agent_id=agent,
        customer_id=priced.customer_id,
        source=priced.source,
        destination=priced.destination,
        source_kind=priced.source_kind,
        sending_currency=priced.sending,
        receiving_currency=priced.receiving,
        total_sending=price.total_sending,
        total_receiving=price.total_receiving,
        fees=price.fees,
        exchange_rate=price.exchange_rate,
        rate_details=price.rate_details(),
        payment_instructions=instructions,
        payload_to_sign=payload,
        extra=extra,
        status="PENDING",
        transaction_id=new_id("Transaction"),
        executed=False,
        created_at=now,
        expires_at=expires_at,
    )
    hold = [Step(0, "PENDING"), Step(QUOTE_LIFETIME_SECONDS, "EXPIRED", "QUOTE_EXPIRED")]
    customer = sca_customer_of(db, row) if priced.source_kind == "REALTIME_FUNDING" else None
    purposes = purposes_of(db, row) if customer is not None else []
    if customer is not None and purposes:  # instructions withheld until authorized
        row.payment_instructions = []
        issue(db, services, row, customer, purposes, preferred=body.scaFactor)
        hold = [
            Step(0, PENDING_AUTHORIZATION),
            Step(QUOTE_LIFETIME_SECONDS, "FAILED", SCA_NOT_COMPLETED),
        ]
    db.add(row)
    db.flush()
    if body.immediatelyExecute:
        return execute_quote(db, row, services=services, agent=agent, sca_factor=body.scaFactor)
    start_transaction(db, services, row, agent=agent, source_internal=False, hold=hold)
    return quote_body(row)
