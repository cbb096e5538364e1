"""SCA factors: the list, the enrollment (start, then confirm) of a TOTP authenticator
(``ewc.totp``: the secret, its ``otpauth://`` URI, the first code, recovery codes) or of a
passkey (``ewc.passkeys.verify_registration``), and the deletion of a passkey.

SMS_OTP is the customer's phone: listed when the customer has one, never enrolled. A customer
has at most one factor of each kind: the unique index on (customer, factor) decides between
concurrent confirmations (409)."""

from __future__ import annotations

import base64
import secrets
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ... import passkeys
from ...errors import TotpError
from ...totp import RecoveryCodes, TotpSecret
from ..db.tables_sca import ScaFactorRow, ScaPending
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..models.sca import EnrollConfirm, PasskeyConfirm
from ..services import CHALLENGE_SECONDS, Services, shared_secret
from .at_rest import seal_totp_secret, secret_digest
from .errors import Refusal, invalid, not_found
from .sca_profile import find_factor, sca_customer

__all__ = [
    "b64url",
    "confirm_enrollment",
    "delete_factor",
    "factor_view",
    "list_factors",
    "start_enrollment",
]

_ENROLL_SECONDS = 10 * 60


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def factor_view(row: ScaFactorRow) -> dict[str, Any]:
    view: dict[str, Any] = {"factor": row.factor}
    if row.credential_id is not None:
        view["credentialId"] = row.credential_id
    if row.name is not None:
        view["name"] = row.name
    return view


def list_factors(db: Session, customer_id: str) -> dict[str, Any]:
    customer = sca_customer(db, customer_id)
    factors: list[dict[str, Any]] = []
    if customer.phone_number:
        factors.append({"factor": "SMS_OTP", "name": customer.phone_number})
    rows = db.scalars(
        select(ScaFactorRow)
        .where(ScaFactorRow.customer_id == customer.id)
        .order_by(ScaFactorRow.created_at, ScaFactorRow.id)
    )
    factors.extend(factor_view(row) for row in rows)
    return {"factors": factors}


def _already(kind: str) -> Refusal:
    return Refusal(409, f"{kind}_ALREADY_ENROLLED", f"The customer already has a {kind} factor.")


def _passkey_options(services: Services, customer: Customer, challenge: bytes) -> dict[str, Any]:
    """WebAuthn ``PublicKeyCredentialCreationOptions`` (binary members base64url)."""
    return {
        "challenge": b64url(challenge),
        "rp": {"id": services.settings.rp_id, "name": "Embedded wallet sandbox"},
        "user": {
            "id": b64url(customer.id.encode()),
            "name": customer.email or customer.id,
            "displayName": customer.email or customer.id,
        },
        "pubKeyCredParams": [
            {"type": "public-key", "alg": -7},
            {"type": "public-key", "alg": -257},
        ],
        "timeout": int(services.clock.seconds(CHALLENGE_SECONDS) * 1000),
        "authenticatorSelection": {"userVerification": "required", "residentKey": "preferred"},
        "attestation": "none",
    }


def start_enrollment(
    db: Session, services: Services, customer_id: str, kind: str
) -> dict[str, Any]:
    """TOTP: a new secret and its URI (kept pending until the first code confirms it).
    PASSKEY: registration options over a fresh challenge. One enrollment of a kind is
    outstanding per customer: a new start replaces the last one."""
    customer = sca_customer(db, customer_id)
    if find_factor(db, customer.id, kind) is not None:
        raise _already(kind)
    db.execute(
        delete(ScaPending).where(
            ScaPending.customer_id == customer.id,
            ScaPending.kind == "ENROLL",
            ScaPending.factor == kind,
        )
    )
    pending = ScaPending(
        id=new_id("ScaEnrollment"),
        customer_id=customer.id,
        kind="ENROLL",
        factor=kind,
        expires_at=services.clock.later(_ENROLL_SECONDS),
        used=False,
    )
    db.add(pending)
    if kind == "TOTP":
        # The label an app shows: the email (or the id's uuid); no colon, which the URI's
        # label reserves for the issuer.
        label = (customer.email or customer.id.partition(":")[2]).replace(":", "_")
        enrollment = services.totp.enroll(label)
        pending.secret = secret_digest(enrollment.secret)  # the secret itself is not kept
        return enrollment.to_response()
    pending.challenge = secrets.token_bytes(32)
    return {
        "type": "PASSKEY",
        "options": _passkey_options(services, customer, pending.challenge),
        "allowedOrigins": services.settings.allowed_origins(),
        "relyingPartyId": services.settings.rp_id,
    }


def _no_enrollment() -> Refusal:
    return invalid(
        "No enrollment of this factor is outstanding; start one.", "ENROLLMENT_NOT_FOUND"
    )


def _pending_enrollment(
    db: Session, services: Services, customer: Customer, kind: str, secret: str | None
) -> ScaPending:
    query = select(ScaPending).where(
        ScaPending.customer_id == customer.id,
        ScaPending.kind == "ENROLL",
        ScaPending.factor == kind,
        ScaPending.used.is_(False),
        ScaPending.expires_at > services.clock.now(),
    )
    if secret is not None:
        query = query.where(ScaPending.secret == secret)
    found = db.scalars(query.order_by(ScaPending.expires_at.desc())).first()
    if found is None:
        raise _no_enrollment()
    return found


def _claim(db: Session, pending: ScaPending) -> None:
    claimed = db.execute(
        update(ScaPending)
        .where(ScaPending.id == pending.id, ScaPending.used.is_(False))
        .values(used=True)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise _no_enrollment()


def _recovery_codes(services: Services) -> RecoveryCodes:
    key = shared_secret(services.database, "sca-recovery-key", lambda: secrets.token_hex(32))
    return RecoveryCodes(services.store, hash_key=bytes.fromhex(key))


def _insert(db: Session, row: ScaFactorRow) -> None:
    db.add(row)
    try:
        db.flush()
    except IntegrityError:
        db.rollback()
        raise _already(row.factor) from None


def _confirm_passkey(
    db: Session, services: Services, customer: Customer, body: PasskeyConfirm
) -> dict[str, Any]:
    if body.origin not in services.settings.allowed_origins():
        raise invalid("origin is not one of the allowed origins.", "ORIGIN_NOT_ALLOWED")
    pending = _pending_enrollment(db, services, customer, "PASSKEY", None)
    assert pending.challenge is not None
    registered = passkeys.verify_registration(
        body.credential.model_dump(),
        expected_challenge=pending.challenge,
        rp_id=services.settings.rp_id,
        origin=body.origin,
    )
    _claim(db, pending)
    row = ScaFactorRow(
        id=new_id("ScaFactor"),
        customer_id=customer.id,
        factor="PASSKEY",
        name="Passkey",
        credential_id=b64url(registered.credential_id),
        public_key=registered.public_key,
        sign_count=registered.sign_count,
        created_at=services.clock.now(),
    )
    _insert(db, row)
    return {"type": "PASSKEY", "factor": factor_view(row)}


def confirm_enrollment(
    db: Session, services: Services, customer_id: str, body: EnrollConfirm
) -> dict[str, Any]:
    """TOTP: the pending secret and its first code (RFC 6238 at the service's clock; that
    code's step is then used) -> the factor and its recovery codes, shown once. PASSKEY: the
    attestation over the pending challenge, from an allowed origin -> the factor."""
    customer = sca_customer(db, customer_id)
    if isinstance(body, PasskeyConfirm):
        return _confirm_passkey(db, services, customer, body)
    try:
        secret = TotpSecret.from_hex(body.secret)
    except TotpError:
        raise _no_enrollment() from None
    pending = _pending_enrollment(db, services, customer, "TOTP", secret_digest(secret))
    factor_id = new_id("ScaFactor")
    try:
        services.totp.verify(factor_id, secret, body.code, now=services.clock.time())
    except TotpError as error:
        if error.status >= 500:
            raise
        raise Refusal(400, error.code, error.reason) from None
    codes = _recovery_codes(services).generate(factor_id)
    _claim(db, pending)
    _insert(
        db,
        ScaFactorRow(
            id=factor_id,
            customer_id=customer.id,
            factor="TOTP",
            name="Authenticator app",
            secret=seal_totp_secret(services, secret, factor_id),
            created_at=services.clock.now(),
        ),
    )
    return {"type": "TOTP", "recoveryCodes": codes}


def delete_factor(db: Session, customer_id: str, credential_id: str) -> None:
    """Delete the customer's passkey factor of this credential id (404 for none)."""
    customer = sca_customer(db, customer_id)
    row = db.scalars(
        select(ScaFactorRow).where(
            ScaFactorRow.customer_id == customer.id,
            ScaFactorRow.credential_id == credential_id,
        )
    ).first()
    if row is None:
        raise not_found("The customer has no factor with this credential id.")
    db.delete(row)
