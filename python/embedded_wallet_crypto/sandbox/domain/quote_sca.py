"""A quote's Strong Customer Authentication: which quotes need it, their challenges (one at a
time, in sequence), the check of a proof and the re-sent SMS code.

SCA applies to a quote of a customer of the European Economic Area (``sca_profile.EEA``):

- a realtime-funding quote is created ``PENDING_AUTHORIZATION`` (its ``paymentInstructions``
  withheld) with two challenges in sequence: ``CURRENCY_CONVERSION``, then ``PAYOUT``;
- a pre-funded send (an internal account source) is held at its execution with one challenge,
  ``TRANSFER``;
- a trusted beneficiary (``/customers/external-accounts/{id}/trust``) drops the ``PAYOUT``
  challenge (and so a pre-funded send to it is not held).

A challenge is an ``ScaPending`` row of kind ``QUOTE`` (``subject``: the quote), shown as the
quote's ``scaChallenge``; its factor is ``SMS_OTP`` (a code to the outbox under the
challenge's own key) or ``PASSKEY`` (an assertion over the challenge's random bytes). A proof
is checked by ``sca_profile.check_proof`` (the lockout included) and the challenge is used by
``sca_login.claim_pending``, a conditional update in the request's transaction: of concurrent
authorizations of one challenge, in any process, one goes on."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from sqlalchemy import event, select
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.tables_payments import Quote
from ..db.tables_sca import ScaPending, TrustedBeneficiary
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..models.sca import ScaAuthorization
from ..services import CHALLENGE_SECONDS, Services
from .errors import Refusal, invalid
from .quote_rows import (
    PENDING_AUTHORIZATION,
    SCA_CHALLENGE,
    expired_refusal,
    find_quote,
    is_expired,
)
from .sca_login import assertion_options, claim_pending, proof_of, replace_pending
from .sca_profile import EEA, check_proof, find_factor, sca_customer, send_sms_code

__all__ = [
    "QUOTE",
    "authorize_step",
    "issue",
    "purposes_of",
    "resend_code",
    "sca_customer_of",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: The kind of a quote's challenges among the pending SCA ceremonies.
QUOTE = "QUOTE"
#: Where the quote keeps the purposes still to authorize after the current challenge, and
#: the factor the platform asked for.
_STEPS = "scaSteps"
_FACTOR = "scaFactor"


def sca_customer_of(db: Session, row: Quote) -> Customer | None:
    """The quote's customer when SCA applies to it (a region of the EEA), else None."""
    customer = db.get(Customer, row.customer_id) if row.customer_id else None
    return customer if customer is not None and customer.region in EEA else None


def _trusted(db: Session, row: Quote) -> bool:
    destination = row.destination.get("accountId")
    if row.destination.get("destinationType") == "UMA_ADDRESS" or not destination:
        return False
    trusted = db.get(TrustedBeneficiary, str(destination))
    return trusted is not None and trusted.customer_id == row.customer_id


def purposes_of(db: Session, row: Quote) -> list[str]:
    """The challenges the quote needs, in order (see the module)."""
    payout = [] if _trusted(db, row) else ["PAYOUT"]
    if row.source_kind == "REALTIME_FUNDING":
        return ["CURRENCY_CONVERSION", *payout]
    return ["TRANSFER"] if payout else []


def sms_key(challenge_id: str) -> str:
    """A quote challenge's SMS codes: a key of its own (and its own re-send limit)."""
    return f"sms-quote:{challenge_id}"


def _factors(db: Session, customer: Customer, preferred: str | None) -> tuple[str, list[str]]:
    passkey = find_factor(db, customer.id, "PASSKEY")
    factors = ["SMS_OTP"] if customer.phone_number else []
    if passkey is not None and passkey.credential_id is not None:
        factors.append("PASSKEY")
    if not factors:
        raise invalid(
            "SCA applies to this customer, who has no factor for it (a phoneNumber or a passkey).",
            "FACTOR_NOT_ENROLLED",
        )
    factor = preferred or factors[0]
    if factor not in factors:
        raise invalid(f"The customer has no {factor} factor.", "FACTOR_NOT_ENROLLED")
    return factor, factors


def issue(
    db: Session,
    services: Services,
    row: Quote,
    customer: Customer,
    purposes: list[str],
    *,
    preferred: str | None,
) -> ScaPending:
    """The challenge of ``purposes[0]``, now the quote's ``scaChallenge`` (the earlier one of
    the quote dropped). Its SMS code is sent once the request's transaction commits (never for
    a request that fails; and on SQLite the code store shares the database file, whose write
    lock the transaction holds until then)."""
    factor, factors = _factors(db, customer, preferred)
    expires_at = services.clock.later(CHALLENGE_SECONDS)
    if row.source_kind == "REALTIME_FUNDING":  # its challenges end with the quote
        expires_at = min(expires_at, row.expires_at)
    pending = ScaPending(
        id=new_id("ScaChallenge"),
        customer_id=customer.id,
        kind=QUOTE,
        factor=factor,
        subject=row.id,
        challenge=secrets.token_bytes(32) if factor == "PASSKEY" else None,
        expires_at=expires_at,
        used=False,
    )
    challenge: dict[str, Any] = {
        "id": pending.id,
        "expiresAt": iso(expires_at),
        "factor": factor,
        "availableFactors": factors,
        "purpose": purposes[0],
    }
    if factor == "PASSKEY":
        passkey = find_factor(db, customer.id, "PASSKEY")
        assert passkey is not None and passkey.credential_id is not None
        assert pending.challenge is not None
        challenge["passkeyAssertionOptions"] = assertion_options(
            services, passkey.credential_id, pending.challenge
        )
    replace_pending(db, customer.id, QUOTE, row.id)
    db.add(pending)
    if factor == "SMS_OTP":
        _send_after_commit(db, services, customer, pending.id)
    row.extra = {
        **row.extra,
        SCA_CHALLENGE: challenge,
        _STEPS: purposes[1:],
        _FACTOR: preferred,
    }
    return pending


def _send_after_commit(db: Session, services: Services, customer: Customer, pending: str) -> None:
    """Send the challenge's first code when ``db``'s transaction commits (not if it rolls
    back). A failure then (the code store unreachable) is logged, not answered: the
    challenge stands and ``/authorize/resend`` sends a code."""
    armed = [True]

    def send(_: Session) -> None:
        if not armed[0]:
            return
        armed[0] = False
        try:
            send_sms_code(services, customer, sms_key(pending))
        except Exception:
            logger.warning("the SMS code of a quote's challenge could not be sent")

    def disarm(_: Session) -> None:
        armed[0] = False

    event.listen(db, "after_commit", send)
    event.listen(db, "after_rollback", disarm)


def _no_challenge(reason: str = "The quote has no SCA challenge to authorize.") -> Refusal:
    return Refusal(409, "NO_PENDING_CHALLENGE", reason)


def _awaiting(db: Session, row: Quote) -> tuple[Customer, str]:
    """The customer and the id of the quote's current challenge: 409 ``SCA_NOT_REQUIRED``
    outside the EEA, 409 ``QUOTE_EXPIRED``, 409 ``NO_PENDING_CHALLENGE``."""
    if row.customer_id is None:
        raise Refusal(409, "SCA_NOT_REQUIRED", "SCA is not required for this quote.")
    customer = sca_customer(db, row.customer_id)
    if is_expired(row):
        raise expired_refusal()
    challenge = row.extra.get(SCA_CHALLENGE)
    if row.status != PENDING_AUTHORIZATION or not challenge:
        raise _no_challenge()
    return customer, str(challenge["id"])


def authorize_step(
    db: Session, services: Services, row: Quote, body: ScaAuthorization
) -> ScaPending | None:
    """Check the proof of the quote's current challenge and use the challenge (once); then
    issue the next challenge, if any. Returns the next challenge (None: the last one was
    authorized).

    Raises:
        Refusal: the refusals of :func:`_awaiting`; 400 ``CHALLENGE_NOT_FOUND`` (the challenge
            expired, or was used meanwhile); 400 ``INVALID_INPUT`` (a proof of another factor);
            423 ``ACCOUNT_LOCKED``; 400 with the library's code for a refused proof
            (``OTP_INVALID``, ``OTP_USED``, ``PASSKEY_SIGNATURE_INVALID``...).
    """
    customer, challenge_id = _awaiting(db, row)
    pending = _current(db, services, customer, row, challenge_id)
    needs = "code" if pending.factor == "SMS_OTP" else "passkeyAssertion and origin"
    given = body.code if pending.factor == "SMS_OTP" else body.passkeyAssertion
    if given is None:
        raise invalid(f"The quote's challenge is {pending.factor}: its proof is {needs}.")
    check_proof(
        db,
        services,
        customer,
        pending.factor,
        proof_of(body),
        pending=pending,
        sms_code_key=sms_key(pending.id),
    )
    claim_pending(db, pending)  # the single use, decided in this transaction
    remaining = list(row.extra.get(_STEPS) or [])
    if not remaining:
        row.extra = {k: v for k, v in row.extra.items() if k not in (SCA_CHALLENGE, _STEPS)}
        return None
    return issue(db, services, row, customer, remaining, preferred=row.extra.get(_FACTOR))


def _current(
    db: Session, services: Services, customer: Customer, row: Quote, challenge_id: str
) -> ScaPending:
    found = db.scalars(
        select(ScaPending).where(
            ScaPending.id == challenge_id,
            ScaPending.customer_id == customer.id,
            ScaPending.kind == QUOTE,
            ScaPending.subject == row.id,
            ScaPending.used.is_(False),
            ScaPending.expires_at > services.clock.now(),
        )
    ).first()
    if found is None:
        raise invalid(
            "The quote's challenge expired or was used; create a new quote.",
            "CHALLENGE_NOT_FOUND",
        )
    return found


def resend_code(db: Session, services: Services, quote_id: str) -> None:
    """Re-send the code of the quote's current SMS_OTP challenge (the same challenge, its
    ``expiresAt`` unchanged). 409 for a passkey challenge or none; 429 when re-sent within
    30 seconds of the last code."""
    row = find_quote(db, quote_id[:100])
    customer, challenge_id = _awaiting(db, row)
    pending = db.get(ScaPending, challenge_id)
    if pending is None or pending.used or pending.expires_at <= services.clock.now():
        raise _no_challenge("The quote's challenge expired or was used; create a new quote.")
    if pending.factor != "SMS_OTP":
        raise _no_challenge("The quote's challenge is a PASSKEY one: there is no code to re-send.")
    send_sms_code(services, customer, sms_key(pending.id))
