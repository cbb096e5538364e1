"""A quote's execution: the wallet stamp's check and claim, the SCA hold and its release, the
funding of a realtime-funded quote, and the quote's transaction (see ``quotes`` for the order
of the checks and ``quote_sca`` for the challenges).

An execution is claimed once (the quote's ``executed`` flag, set by a conditional update).
For a customer SCA applies to, the claimed execution moves nothing yet: the transaction is
``PENDING_AUTHORIZATION`` (then ``FAILED`` with ``SCA_NOT_COMPLETED`` when the challenge
lapses) until the last challenge is authorized, which debits the source and starts the
outcome in the authorization's transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ...errors import SignedRetryError, StampError
from ...signed_retry import Operation
from ...stamps import verify_stamp
from ..clock import Clock
from ..db.tables_payments import ExternalAccount, Quote, Transaction
from ..db.tables_wallet import Customer, InternalAccount
from ..models.sca import ScaAuthorization
from ..services import CHALLENGE_SECONDS, Services
from .balances import debit, require_funds, require_room
from .errors import INVALID_SIGNATURE, Refusal, invalid, library_refusal
from .payment_tables import (
    Step,
    quote_outcome,
    suffix_of,
    uma_receiver_outcome,
)
from .quote_pricing import funding_instructions
from .quote_rows import (
    PENDING_AUTHORIZATION,
    REQUEST_ID,
    Signature,
    already_executed,
    expired_refusal,
    find_quote,
    is_expired,
    pending_authorization,
    quote_body,
)
from .quote_sca import authorize_step, issue, purposes_of, sca_customer_of
from .transactions import apply_due, new_transaction
from .wallet import session_keys

__all__ = [
    "SCA_NOT_COMPLETED",
    "authorize_quote",
    "check_signer",
    "claim_signature",
    "execute_quote",
    "fund_quote",
    "start_transaction",
]

#: The reason a transaction whose SCA challenge lapsed fails with (published).
SCA_NOT_COMPLETED = "SCA_NOT_COMPLETED"


def claim_signature(db: Session, services: Services, row: Quote, stamp: str | None) -> None:
    """Verify ``stamp`` over the wallet quote's payload through its signed-retry challenge and
    use the challenge's request id (once, across processes). 401 for a missing or wrong stamp
    (the request id stays usable); 409 QUOTE_ALREADY_EXECUTED once it was used."""
    account_id = str(row.source["accountId"])
    try:
        services.signed_retry.verify(
            request_id=row.extra.get(REQUEST_ID),
            stamp=stamp,
            account_session_keys=session_keys(db, account_id, services.clock.now()),
            account_id=account_id,
            expected_operation=Operation.EXECUTE_QUOTE,
        )
    except SignedRetryError as error:
        if error.code == "REQUEST_ID_USED":
            raise already_executed() from None
        raise


def check_signer(db: Session, services: Services, row: Quote, stamp: str | None) -> None:
    """The stamp is over the wallet quote's payload, by a key that is an active session of the
    wallet now (or the sandbox stamp); 401 otherwise. Nothing is claimed: this is the check
    made before anything else is (the claim checks again), and the check of a stamp claimed
    earlier (an agent's submission, executed at the platform's approval)."""
    assert row.payload_to_sign is not None
    try:
        signed = verify_stamp(stamp, row.payload_to_sign, sandbox=services.environment)
    except StampError as error:
        raise library_refusal(error) from None
    if signed.scheme == "SANDBOX":
        return
    keys = session_keys(db, str(row.source["accountId"]), services.clock.now())
    if signed.signer_among(keys) is None:
        raise Refusal(401, "UNAUTHORIZED", INVALID_SIGNATURE)


def _awaits_authorization(row: Quote) -> bool:
    return row.status == PENDING_AUTHORIZATION and not is_expired(row)


def execute_quote(
    db: Session,
    quote: Quote | str,
    *,
    services: Services,
    signature: Signature | None = None,
    agent: str | None = None,
    sca_factor: str | None = None,
) -> dict[str, Any]:
    """Execute a quote: take the sending amount from the source, start the transaction with
    the destination's sandbox outcome; returns the Quote body. An embedded-wallet source
    needs ``signature`` (see ``quotes``). For a customer SCA applies to, the execution is
    held ``PENDING_AUTHORIZATION`` instead (``sca_factor``: the challenge's factor asked
    for), nothing moved until :func:`authorize_quote`.

    Raises:
        Refusal: 404 (no quote), 409 QUOTE_PENDING_AUTHORIZATION, 409 QUOTE_ALREADY_EXECUTED,
            409 QUOTE_EXPIRED, 400 INSUFFICIENT_FUNDS, 400 BALANCE_LIMIT_EXCEEDED (an internal
            destination would pass its ceiling), 400 QUOTE_NEEDS_FUNDING (a realtime-funded
            quote: pay its instructions), 401 UNAUTHORIZED (a missing or wrong
            ``Service-Wallet-Signature``), 400 FACTOR_NOT_ENROLLED (SCA: no such factor).
    """
    row = find_quote(db, quote) if isinstance(quote, str) else quote
    if _awaits_authorization(row):
        raise pending_authorization()
    if row.executed:
        raise already_executed()
    if is_expired(row):
        raise expired_refusal()
    if row.source_kind == "REALTIME_FUNDING":
        raise invalid(
            "A realtime-funded quote executes when its payment instructions are paid.",
            "QUOTE_NEEDS_FUNDING",
        )
    source_id = str(row.source["accountId"])
    wallet = row.source_kind == "EMBEDDED_WALLET"
    signature = signature or Signature(None)
    if wallet:
        check_signer(db, services, row, signature.stamp)
    _require_destination_room(db, row)
    if wallet and not signature.claimed:
        _require_funds(db, row, source_id)
        claim_signature(db, services, row, signature.stamp)
    customer = sca_customer_of(db, row)
    purposes = purposes_of(db, row) if customer is not None else []
    if customer is not None and purposes:
        _require_funds(db, row, source_id)
        issue(db, services, row, customer, purposes, preferred=sca_factor)
        _claim(db, row)
        lapse = Step(CHALLENGE_SECONDS, "FAILED", SCA_NOT_COMPLETED)
        hold = [Step(0, PENDING_AUTHORIZATION), lapse]
        start_transaction(db, services, row, agent=agent, source_internal=False, hold=hold)
        return quote_body(row)
    _claim(db, row)
    debit(db, source_id, row.total_sending)
    start_transaction(db, services, row, agent=agent, source_internal=True)
    return quote_body(row)


def authorize_quote(
    db: Session, services: Services, quote_id: str, body: ScaAuthorization
) -> dict[str, Any]:
    """Authorize the quote's current challenge (``quote_sca.authorize_step``). After the last
    one, a held send is released (the source debited, the outcome started) and a
    realtime-funded quote gets its ``paymentInstructions`` (its transaction ``PENDING``);
    all in the transaction that uses the challenge. Returns the Quote body."""
    row = find_quote(db, quote_id[:100])
    following = authorize_step(db, services, row, body)
    if following is None and row.source_kind == "REALTIME_FUNDING":
        row.payment_instructions = funding_instructions(
            row.id, row.sending_currency, row.total_sending
        )
        _resume_pending(db, row)
    elif following is None:
        _require_destination_room(db, row)
        debit(db, str(row.source["accountId"]), row.total_sending)
        start_transaction(db, services, row, agent=row.agent_id, source_internal=True)
    return quote_body(row)


def _resume_pending(db: Session, row: Quote) -> None:
    """A realtime-funded quote authorized: its transaction PENDING now, EXPIRED with
    QUOTE_EXPIRED when the quote expires unpaid."""
    waiting = db.get(Transaction, row.transaction_id)
    if waiting is None:
        return
    now = Clock.time()
    step = {"refund": False, "credit": False}
    waiting.schedule = [
        {**step, "at": now, "status": "PENDING", "failureReason": None},
        {
            **step,
            "at": row.expires_at.timestamp(),
            "status": "EXPIRED",
            "failureReason": "QUOTE_EXPIRED",
        },
    ]
    waiting.version += 1
    apply_due(db, waiting, now)


def _require_destination_room(db: Session, row: Quote) -> None:
    """400 BALANCE_LIMIT_EXCEEDED, before anything moves, when the quote pays an internal
    account that its receiving amount would take past the balance ceiling."""
    if row.destination.get("destinationType") != "UMA_ADDRESS":
        require_room(db, str(row.destination.get("accountId")), row.total_receiving)


def _require_funds(db: Session, row: Quote, source_id: str) -> None:
    """400 INSUFFICIENT_FUNDS before the stamp is used, unless the shortfall is the quote's
    own execution committed meanwhile by a concurrent request (its claim and its debit are
    one commit): that loser answers 409 QUOTE_ALREADY_EXECUTED, as it would have a moment
    later. The quote's flag is read again only on this refusal's path."""
    try:
        require_funds(db, source_id, row.total_sending)
    except Refusal:
        if db.scalar(select(Quote.executed).where(Quote.id == row.id)):
            raise already_executed() from None
        raise


def _claim(db: Session, row: Quote) -> None:
    """Mark the quote executed in the database, once: of two concurrent executions one
    claims it and the other (which waits for the first's commit) answers 409."""
    claimed = db.execute(
        update(Quote)
        .where(Quote.id == row.id)
        .where(Quote.executed.is_(False))
        .values(executed=True)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise already_executed()


def fund_quote(db: Session, services: Services, row: Quote) -> dict[str, Any]:
    """A realtime-funded quote whose instructions were paid (``/sandbox/send``); 409
    QUOTE_PENDING_AUTHORIZATION while its instructions are withheld for SCA."""
    if _awaits_authorization(row):
        raise pending_authorization()
    if row.executed:
        raise already_executed()
    if is_expired(row):
        raise expired_refusal()
    if row.source_kind != "REALTIME_FUNDING":
        raise invalid("This quote is funded from an account.")
    _require_destination_room(db, row)
    _claim(db, row)
    start_transaction(db, services, row, agent=None, source_internal=False)
    return quote_body(row)


def start_transaction(
    db: Session,
    services: Services,
    row: Quote,
    *,
    agent: str | None,
    source_internal: bool,
    hold: list[Step] | None = None,
) -> None:
    """Start the quote's transaction with its outcome (the execution), replacing the waiting
    one; with ``hold``, the transaction of a quote not executed (or not authorized) yet, with
    those steps: nothing is credited or returned, nothing moved."""
    destination = row.destination
    uma = destination.get("destinationType") == "UMA_ADDRESS"
    destination_id = None if uma else str(destination["accountId"])
    internal = None
    if hold is not None:
        steps = hold
    elif destination_id is None:
        steps = uma_receiver_outcome(str(destination["umaAddress"])) or []
    else:
        internal = db.get(InternalAccount, destination_id)
        external = None if internal is not None else db.get(ExternalAccount, destination_id)
        steps = quote_outcome(
            suffix_of(external.identifier) if external is not None and services.sandbox else None
        )
    waiting = db.get(Transaction, row.transaction_id)
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
    row.executed = row.executed or hold is None
    db.flush()
