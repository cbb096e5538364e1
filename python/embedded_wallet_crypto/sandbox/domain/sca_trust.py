"""Beneficiary trust: trust and untrust an external account, each confirmed by an SCA proof.

A trust change issues an SCA challenge (SMS_OTP by default, a code to the customer's phone;
PASSKEY when the customer has one, with assertion options over the challenge) and is
confirmed by its proof; the challenge is used once. A trusted beneficiary needs no
``PAYOUT`` challenge of a quote (``quote_sca``)."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy.orm import Session

from ..clock import iso
from ..db.engine import lock
from ..db.tables_payments import ExternalAccount
from ..db.tables_sca import ScaPending, TrustedBeneficiary
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..models.sca import BeneficiaryTrustConfirm
from ..services import Services
from .errors import Refusal, not_found
from .sca_login import (
    assertion_options,
    claim_pending,
    pending_challenge,
    proof_of,
    replace_pending,
)
from .sca_profile import check_proof, find_factor, sca_customer, send_sms_code

__all__ = ["confirm_trust", "start_trust"]


def _beneficiary(db: Session, account_id: str) -> tuple[ExternalAccount, Customer]:
    row = db.get(ExternalAccount, account_id[:100])
    if row is None or row.customer_id is None:
        raise not_found("No customer external account has this id.")
    return row, sca_customer(db, row.customer_id)


def _sms_key(kind: str, customer_id: str) -> str:
    """The SMS codes of trust changes: their own key per kind (and their own rate limit)."""
    return f"sms-{kind.lower()}:{customer_id}"


def start_trust(db: Session, services: Services, account_id: str, kind: str) -> dict[str, Any]:
    """TRUST or UNTRUST: the SCA challenge to satisfy on the confirm call."""
    account, customer = _beneficiary(db, account_id)
    passkey = find_factor(db, customer.id, "PASSKEY")
    factors = (["SMS_OTP"] if customer.phone_number else []) + (["PASSKEY"] if passkey else [])
    if not factors:
        raise Refusal(400, "FACTOR_NOT_ENROLLED", "The customer has no SCA factor for this.")
    pending = ScaPending(
        id=new_id("ScaChallenge"),
        customer_id=customer.id,
        kind=kind,
        factor=factors[0],
        subject=account.id,
        challenge=secrets.token_bytes(32),
        expires_at=services.clock.later(5 * 60),
        used=False,
    )
    if factors[0] == "SMS_OTP":
        pending.expires_at = send_sms_code(services, customer, _sms_key(kind, customer.id))
    replace_pending(db, customer.id, kind, account.id)  # after the code store's write
    db.add(pending)
    challenge: dict[str, Any] = {
        "id": pending.id,
        "expiresAt": iso(pending.expires_at),
        "factor": factors[0],
        "availableFactors": factors,
        "purpose": kind,
    }
    if passkey is not None and passkey.credential_id is not None:
        assert pending.challenge is not None
        challenge["passkeyAssertionOptions"] = assertion_options(
            services, passkey.credential_id, pending.challenge
        )
        challenge["passkeyAllowedOrigins"] = services.settings.allowed_origins()
    return {"scaChallenge": challenge}


def confirm_trust(
    db: Session, services: Services, account_id: str, kind: str, body: BeneficiaryTrustConfirm
) -> dict[str, Any]:
    """The proof of the outstanding challenge (``challengeId``, else the latest): a code is
    an SMS_OTP proof, an assertion a PASSKEY one. ``{"trusted": ...}``."""
    account, customer = _beneficiary(db, account_id)
    pending = pending_challenge(
        db, services, customer, kind, challenge_id=body.challengeId, subject=account.id
    )
    factor = "PASSKEY" if body.passkeyAssertion is not None else "SMS_OTP"
    check_proof(
        db,
        services,
        customer,
        factor,
        proof_of(body),
        pending=pending,
        sms_code_key=_sms_key(kind, customer.id),
    )
    claim_pending(db, pending)
    # Two confirmations of two outstanding challenges (racing starts can leave two) decide one
    # after the other: the beneficiary's row is locked before its trust row is read and written.
    lock(db, account)
    trusted = db.get(TrustedBeneficiary, account.id)
    if kind == "TRUST" and trusted is None:
        db.add(
            TrustedBeneficiary(
                external_account_id=account.id,
                customer_id=customer.id,
                trusted_at=services.clock.now(),
            )
        )
    elif kind == "UNTRUST" and trusted is not None:
        db.delete(trusted)
    return {"trusted": kind == "TRUST"}
