"""What every SCA rule shares: which customers SCA applies to (a region of the European
Economic Area), the customer's SCA profile and its lockout, the SMS codes (sent to the local
outbox like the email codes) and the check of a proof: an SMS code, a TOTP code (RFC 6238,
``ewc.totp``, each code accepted once per factor in the store) or a passkey assertion
(``ewc.passkeys``).

A failed proof counts as a failed login attempt; the counter is committed even though the
request is refused, and the lockout escalates as the published ``RecordSecurityEventRequest``
says: 5 attempts lock for 15 minutes, 6 for 30, 7 for an hour, 8 for a day, 9 suspend."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ... import passkeys
from ...errors import DecryptionError, OtpError, PasskeyError, TotpError
from ..clock import iso
from ..db.engine import lock
from ..db.tables_sca import ScaFactorRow, ScaPending, ScaProfile
from ..db.tables_wallet import Customer
from ..services import Services
from .at_rest import open_totp_secret
from .errors import Refusal, invalid
from .live_customers import live_customer

__all__ = [
    "EEA",
    "SANDBOX_SCA_CODE",
    "Proof",
    "check_proof",
    "find_factor",
    "locked_profile",
    "profile_of",
    "record_failure",
    "reset_failures",
    "sca_customer",
    "send_sms_code",
    "sms_key",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: The regions where the sandbox requires SCA and contact verification: the EEA.
EEA = frozenset(
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE".split()
) | {"IS", "LI", "NO"}
#: The published documents' sandbox code for SMS (and TOTP, through ``ewc.totp``).
SANDBOX_SCA_CODE = "123456"
#: Failed attempts -> minutes locked (9 and more: suspended).
_LOCKS = {5: 15, 6: 30, 7: 60, 8: 24 * 60}
_SUSPEND_AT = 9


def sca_customer(db: Session, customer_id: str) -> Customer:
    """The customer, when SCA applies to it: 404 ``USER_NOT_FOUND`` for none or a deleted
    one (``live_customer``), 409 ``SCA_NOT_REQUIRED`` outside the EEA."""
    customer = live_customer(db, customer_id)
    if customer.region not in EEA:
        raise Refusal(409, "SCA_NOT_REQUIRED", "SCA is not required for this customer's region.")
    return customer


def profile_of(db: Session, customer: Customer) -> ScaProfile:
    """The customer's profile (made, and committed, on first use)."""
    profile = db.get(ScaProfile, customer.id)
    if profile is None:
        profile = ScaProfile(
            customer_id=customer.id,
            email_status="PENDING",
            phone_status="PENDING",
            failed_attempts=0,
            suspended=False,
        )
        db.add(profile)
        try:
            db.commit()
        except IntegrityError:  # made at the same moment by another request
            db.rollback()
        profile = db.get(ScaProfile, customer.id)
        assert profile is not None
    return profile


def locked_profile(db: Session, customer: Customer) -> ScaProfile:
    """The profile, under its row lock until the transaction ends."""
    profile = profile_of(db, customer)
    lock(db, profile)
    return profile


def _locked_refusal(profile: ScaProfile) -> Refusal:
    until = "" if profile.suspended or profile.locked_until is None else iso(profile.locked_until)
    reason = (
        "The customer's login is suspended; a password reset clears it."
        if profile.suspended
        else f"The customer's login is locked until {until}."
    )
    return Refusal(423, "ACCOUNT_LOCKED", reason)


def ensure_unlocked(profile: ScaProfile, now: datetime) -> None:
    """423 ``ACCOUNT_LOCKED`` while the customer is suspended or locked."""
    if profile.suspended or (profile.locked_until is not None and profile.locked_until > now):
        raise _locked_refusal(profile)


def record_failure(profile: ScaProfile, now: datetime) -> None:
    """One more failed attempt, and the lockout of its milestone (the caller locked the
    profile)."""
    profile.failed_attempts += 1
    if profile.failed_attempts >= _SUSPEND_AT:
        profile.suspended = True
        profile.locked_until = None
    elif profile.failed_attempts in _LOCKS:
        profile.locked_until = now + timedelta(minutes=_LOCKS[profile.failed_attempts])


def reset_failures(profile: ScaProfile) -> None:
    profile.failed_attempts = 0
    profile.locked_until = None
    profile.suspended = False


def sms_key(customer_id: str) -> str:
    """The key of a customer's SMS codes in the code store."""
    return f"sms:{customer_id}"


def send_sms_code(services: Services, customer: Customer, key: str) -> datetime:
    """A fresh SMS code for ``key``, written to the outbox addressed to the customer's phone;
    returns when it expires (429 with ``Retry-After`` when asked too often)."""
    if not customer.phone_number:
        raise invalid("The customer has no phone number for SMS_OTP.", "PHONE_NUMBER_MISSING")
    issued = services.sms.issue(key)
    services.mailer.send(
        f"{customer.phone_number.lstrip('+')}@sms.sandbox.invalid",
        "SMS",
        f"Your verification code is: {issued.code}\n",
    )
    return issued.expires_at


def find_factor(db: Session, customer_id: str, factor: str) -> ScaFactorRow | None:
    from sqlalchemy import select

    return db.scalars(
        select(ScaFactorRow).where(
            ScaFactorRow.customer_id == customer_id, ScaFactorRow.factor == factor
        )
    ).first()


@dataclass(frozen=True)
class Proof:
    """A submitted proof: a code, or a passkey assertion and its origin."""

    code: str | None = None
    assertion: dict[str, Any] | None = None
    origin: str | None = None


def _refused(error: OtpError | TotpError | PasskeyError) -> Refusal:
    """A proof the library refused: 400 with its code (the published 400 "invalid or expired
    proof"), never a code or a secret in the reason."""
    return Refusal(400, error.code, error.reason)


def _check(
    db: Session,
    services: Services,
    customer: Customer,
    factor: str,
    proof: Proof,
    pending: ScaPending | None,
    sms_code_key: str,
) -> None:
    if factor == "PASSKEY":
        return _check_passkey(db, services, customer, proof, pending)
    if proof.code is None:
        raise invalid(f"A {factor} proof needs code.")
    if factor == "SMS_OTP":
        if services.sandbox and proof.code == SANDBOX_SCA_CODE:
            return None
        services.sms.verify(sms_code_key, proof.code)
        return None
    row = find_factor(db, customer.id, "TOTP")
    if row is None or row.secret is None:
        raise invalid("The customer has no TOTP factor.", "FACTOR_NOT_ENROLLED")
    try:
        secret = open_totp_secret(services, row.secret, row.id)
    except DecryptionError:  # the database's fault, not the client's: as the export's
        logger.warning("the stored TOTP secret of factor %s does not open", row.id)
        raise Refusal(
            500,
            "INTERNAL_ERROR",
            "The TOTP factor's stored secret does not open with this service's key.",
        ) from None
    services.totp.verify(row.id, secret, proof.code, now=services.clock.time())
    return None


def _check_passkey(
    db: Session,
    services: Services,
    customer: Customer,
    proof: Proof,
    pending: ScaPending | None,
) -> None:
    if proof.assertion is None or proof.origin is None:
        raise invalid("A PASSKEY proof needs passkeyAssertion and origin.")
    origins = services.settings.allowed_origins()
    if proof.origin not in origins:
        raise invalid("origin is not one of the allowed origins.", "ORIGIN_NOT_ALLOWED")
    row = find_factor(db, customer.id, "PASSKEY")
    if row is None or row.public_key is None:
        raise invalid("The customer has no PASSKEY factor.", "FACTOR_NOT_ENROLLED")
    if pending is None or pending.challenge is None:
        raise invalid("No passkey challenge is outstanding; start again.", "NO_PENDING_CHALLENGE")
    verified = passkeys.verify_assertion(
        proof.assertion,
        credential_public_key=row.public_key,
        expected_challenge=pending.challenge,
        rp_id=services.settings.rp_id,
        origin=proof.origin,
        current_sign_count=row.sign_count,
        sandbox=services.environment,
    )
    row.sign_count = max(row.sign_count, verified.new_sign_count)


def check_proof(
    db: Session,
    services: Services,
    customer: Customer,
    factor: str,
    proof: Proof,
    *,
    pending: ScaPending | None = None,
    sms_code_key: str | None = None,
) -> ScaProfile:
    """Check ``proof`` for ``factor``: 423 while the customer is locked; a refused proof is
    counted (committed) and answered 400 with the library's code (``TOTP_INVALID``,
    ``TOTP_REPLAYED``, ``OTP_INVALID``, ``PASSKEY_SIGNATURE_INVALID``...); a good one clears
    the counter. Returns the profile, locked until the transaction ends.

    The code's single use is decided in the store (a TOTP step, an SMS code), before the
    profile's lock is taken: on SQLite the store shares the database file, whose write lock
    the profile's lock holds."""
    now = services.clock.now()
    profile = profile_of(db, customer)
    ensure_unlocked(profile, now)
    db.commit()  # a new profile saved, no write lock held: the store may share the database
    try:
        _check(db, services, customer, factor, proof, pending, sms_code_key or sms_key(customer.id))
    except (OtpError, TotpError, PasskeyError) as error:
        if error.status >= 500:
            raise
        refusal = _refused(error)
        profile = locked_profile(db, customer)
        record_failure(profile, now)
        db.commit()  # the failure counts even though the request is refused
        raise refusal from None
    profile = locked_profile(db, customer)
    ensure_unlocked(profile, now)  # locked by a failure that committed meanwhile
    reset_failures(profile)
    return profile
