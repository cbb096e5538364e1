"""SCA logins (start, then complete with the factor's proof), which open the customer's SCA
session; and the security events that feed the lockout."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.tables_sca import ScaPending
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..models.sca import BeneficiaryTrustConfirm, RecordEvent, ScaAuthorization, ScaLoginComplete
from ..services import CHALLENGE_SECONDS, Services
from .errors import invalid
from .sca_factors import b64url
from .sca_profile import (
    Proof,
    check_proof,
    find_factor,
    locked_profile,
    record_failure,
    reset_failures,
    sca_customer,
    send_sms_code,
)

__all__ = [
    "SCA_SESSION_SECONDS",
    "assertion_options",
    "claim_pending",
    "complete_login",
    "proof_of",
    "record_event",
    "replace_pending",
    "start_login",
]

#: The life of an SCA login session, in simulated seconds.
SCA_SESSION_SECONDS = 15 * 60


def proof_of(body: ScaAuthorization | BeneficiaryTrustConfirm) -> Proof:
    assertion = body.passkeyAssertion
    return Proof(
        code=body.code,
        assertion=None if assertion is None else assertion.model_dump(exclude_none=True),
        origin=body.origin,
    )


def assertion_options(services: Services, credential_id: str, challenge: bytes) -> dict[str, Any]:
    """WebAuthn ``PublicKeyCredentialRequestOptions`` (binary members base64url)."""
    return {
        "challenge": b64url(challenge),
        "rpId": services.settings.rp_id,
        "allowCredentials": [{"type": "public-key", "id": credential_id}],
        "userVerification": "required",
        "timeout": int(services.clock.seconds(CHALLENGE_SECONDS) * 1000),
    }


def _enrolled(db: Session, customer: Customer, factor: str) -> None:
    missing = (
        not customer.phone_number
        if factor == "SMS_OTP"
        else find_factor(db, customer.id, factor) is None
    )
    if missing:
        raise invalid(f"The customer has no {factor} factor.", "FACTOR_NOT_ENROLLED")


def start_login(db: Session, services: Services, customer_id: str, factor: str) -> dict[str, Any]:
    """SMS_OTP: a code to the customer's phone and its challenge; TOTP: nothing to send;
    PASSKEY: assertion options over a fresh challenge."""
    customer = sca_customer(db, customer_id)
    _enrolled(db, customer, factor)
    if factor == "TOTP":
        return {"factor": "TOTP"}
    pending = ScaPending(
        id=new_id("ScaChallenge"),
        customer_id=customer.id,
        kind="LOGIN",
        factor=factor,
        expires_at=services.clock.later(CHALLENGE_SECONDS),
        used=False,
    )
    if factor == "SMS_OTP":
        pending.expires_at = send_sms_code(services, customer, f"sms:{customer.id}")
        replace_pending(db, customer.id, "LOGIN")  # after the code store's write
        db.add(pending)
        return {"factor": factor, "challengeId": pending.id, "expiresAt": iso(pending.expires_at)}
    row = find_factor(db, customer.id, "PASSKEY")
    assert row is not None and row.credential_id is not None
    pending.challenge = secrets.token_bytes(32)
    replace_pending(db, customer.id, "LOGIN")
    db.add(pending)
    return {
        "factor": factor,
        "passkeyOptions": assertion_options(services, row.credential_id, pending.challenge),
        "allowedOrigins": services.settings.allowed_origins(),
        "relyingPartyId": services.settings.rp_id,
    }


def replace_pending(db: Session, customer_id: str, kind: str, subject: str | None = None) -> None:
    """Drop the customer's earlier challenges of ``kind`` (and ``subject``): one is
    outstanding at a time, so a customer's pending challenges stay bounded."""
    query = delete(ScaPending).where(ScaPending.customer_id == customer_id, ScaPending.kind == kind)
    if subject is not None:
        query = query.where(ScaPending.subject == subject)
    db.execute(query)


def _no_challenge() -> Exception:
    return invalid("No challenge of this kind is outstanding; start again.", "CHALLENGE_NOT_FOUND")


def pending_challenge(
    db: Session,
    services: Services,
    customer: Customer,
    kind: str,
    *,
    challenge_id: str | None = None,
    factor: str | None = None,
    subject: str | None = None,
) -> ScaPending:
    """The outstanding challenge (by id, else the latest of its kind): 400
    ``CHALLENGE_NOT_FOUND`` when there is none, it was used or it expired."""
    query = select(ScaPending).where(
        ScaPending.customer_id == customer.id,
        ScaPending.kind == kind,
        ScaPending.used.is_(False),
        ScaPending.expires_at > services.clock.now(),
    )
    if challenge_id is not None:
        query = query.where(ScaPending.id == challenge_id)
    if factor is not None:
        query = query.where(ScaPending.factor == factor)
    if subject is not None:
        query = query.where(ScaPending.subject == subject)
    found = db.scalars(query.order_by(ScaPending.expires_at.desc())).first()
    if found is None:
        raise _no_challenge()
    return found


def claim_pending(db: Session, pending: ScaPending) -> None:
    """Use the challenge once (a conditional update: of concurrent uses, one wins)."""
    claimed = db.execute(
        update(ScaPending)
        .where(ScaPending.id == pending.id, ScaPending.used.is_(False))
        .values(used=True)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise _no_challenge()


def complete_login(
    db: Session, services: Services, customer_id: str, body: ScaLoginComplete
) -> dict[str, Any]:
    """Check the proof of the started factor (SMS_OTP: of the challenge ``challengeId``;
    TOTP: the current code, accepted once; PASSKEY: an assertion over the started challenge)
    and open the customer's SCA session."""
    customer = sca_customer(db, customer_id)
    factor = body.factor.value
    _enrolled(db, customer, factor)
    pending = None
    if factor == "SMS_OTP":
        if body.challengeId is None:
            raise invalid("An SMS_OTP login needs its challengeId.")
        pending = pending_challenge(
            db, services, customer, "LOGIN", challenge_id=body.challengeId, factor=factor
        )
    elif factor == "PASSKEY":
        pending = pending_challenge(db, services, customer, "LOGIN", factor=factor)
    profile = check_proof(db, services, customer, factor, proof_of(body), pending=pending)
    if pending is not None:
        claim_pending(db, pending)
    profile.session_expires_at = services.clock.later(SCA_SESSION_SECONDS)
    return {"status": "SUCCESS", "sessionExpiresAt": iso(profile.session_expires_at)}


def record_event(
    db: Session, services: Services, customer_id: str, body: RecordEvent
) -> dict[str, Any]:
    """RESET_PASSWORD_COMPLETED ends the SCA session and clears the lockout;
    FAILED_LOGIN_ATTEMPT counts one more failure (and locks at its milestones)."""
    customer = sca_customer(db, customer_id)
    profile = locked_profile(db, customer)
    if body.eventType == "RESET_PASSWORD_COMPLETED":
        profile.session_expires_at = None
        reset_failures(profile)
    else:
        record_failure(profile, services.clock.now())
    locked = profile.locked_until if not profile.suspended else None
    return {
        "eventType": body.eventType,
        "suspended": profile.suspended,
        "lockedUntil": None if locked is None else iso(locked),
        "failedAttempts": profile.failed_attempts,
    }
