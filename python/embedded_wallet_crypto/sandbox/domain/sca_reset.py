"""2FA resets: a liveness-gated recovery of a lost factor, simulated. In the sandbox the
liveness check passes at once (``LIVENESS_PASSED`` from the start); in production no liveness
provider is connected, so a reset stays ``INITIATED`` and cannot be completed (400
``RESET_NOT_READY``). A reset window lasts 30 minutes (``EXPIRED`` after); at most 5 resets
start per customer in 24 hours (429 ``RATE_LIMITED``, decided under the profile's lock). A
reset completes once (a conditional update; 409 ``RESET_ALREADY_COMPLETED`` after); an SMS_OTP
reset changes the number as the customers ``PATCH`` does (``customer_contact.replace_phone``:
the SMS_OTP credentials follow, and the phone's contact verification is ``PENDING`` again)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.tables_sca import ScaFactorRow, ScaReset
from ..ids import new_id
from ..models.sca import ResetComplete
from ..services import Services
from .customer_contact import replace_phone
from .errors import Refusal, invalid, not_found
from .live_customers import live_customer
from .sca_profile import find_factor, locked_profile, sca_customer

__all__ = ["complete_reset", "reset_status", "start_reset"]

_WINDOW_SECONDS = 30 * 60
_MAX_PER_DAY = 5


def start_reset(db: Session, services: Services, customer_id: str, factor: str) -> dict[str, Any]:
    customer = sca_customer(db, customer_id)
    enrolled = (
        customer.phone_number if factor == "SMS_OTP" else find_factor(db, customer.id, factor)
    )
    if not enrolled:
        raise invalid(f"The customer has no {factor} factor to reset.", "FACTOR_NOT_ENROLLED")
    locked_profile(db, customer)
    now = services.clock.now()
    started = db.scalar(
        select(func.count())
        .select_from(ScaReset)
        .where(ScaReset.customer_id == customer.id, ScaReset.created_at > now - timedelta(days=1))
    )
    if (started or 0) >= _MAX_PER_DAY:
        raise Refusal(
            429,
            "RATE_LIMITED",
            "At most 5 resets start per customer in 24 hours.",
            {"Retry-After": "3600"},
        )
    row = ScaReset(
        id=new_id("ScaReset"),
        customer_id=customer.id,
        factor=factor,
        status="LIVENESS_PASSED" if services.sandbox else "INITIATED",
        created_at=now,
        expires_at=services.clock.later(_WINDOW_SECONDS),
    )
    db.add(row)
    return {
        "resetId": row.id,
        "livenessAccessToken": f"sandbox-liveness-{row.id.split(':', 1)[1]}",
        "expiresAt": iso(row.expires_at),
    }


def _find(db: Session, services: Services, customer_id: str, reset_id: str) -> ScaReset:
    customer = sca_customer(db, customer_id)
    row = db.get(ScaReset, reset_id[:100])
    if row is None or row.customer_id != customer.id:
        raise not_found("No reset of this customer has this id.")
    if row.status not in ("COMPLETED", "REJECTED") and row.expires_at <= services.clock.now():
        row.status = "EXPIRED"
    return row


def reset_status(
    db: Session, services: Services, customer_id: str, reset_id: str
) -> dict[str, Any]:
    row = _find(db, services, customer_id, reset_id)
    enrollment = None
    if row.factor != "SMS_OTP" and row.status == "COMPLETED":
        again = find_factor(db, row.customer_id, row.factor)
        done = again is not None and row.completed_at is not None
        enrollment = "COMPLETED" if done and again.created_at >= row.completed_at else "PENDING"  # type: ignore[union-attr,operator]
    return {
        "status": row.status,
        "factor": row.factor,
        "enrollmentStatus": enrollment,
        "expiresAt": iso(row.expires_at),
        "completedAt": None if row.completed_at is None else iso(row.completed_at),
    }


def complete_reset(
    db: Session, services: Services, customer_id: str, reset_id: str, body: ResetComplete | None
) -> None:
    """Clear the lost factor (TOTP, PASSKEY) or enroll the new number (SMS_OTP: ``mobile``).

    One conditional ``UPDATE ... WHERE status = 'LIVENESS_PASSED'`` completes the reset, in
    the transaction of the change it makes: of completions at once (any process, any backend)
    one does; the others are 409 ``RESET_ALREADY_COMPLETED``."""
    row = _find(db, services, customer_id, reset_id)
    if row.status == "COMPLETED":
        raise _completed()
    if row.status != "LIVENESS_PASSED":
        raise invalid(f"The reset is {row.status}, not LIVENESS_PASSED.", "RESET_NOT_READY")
    mobile = None
    if row.factor == "SMS_OTP":
        if body is None or body.mobile is None:
            raise invalid("An SMS_OTP reset needs the new mobile number.")
        mobile = body.mobile.countryCode + body.mobile.number
    now = services.clock.now()
    done = db.execute(
        update(ScaReset)
        .where(
            ScaReset.id == row.id,
            ScaReset.status == "LIVENESS_PASSED",
            ScaReset.expires_at > now,
        )
        .values(status="COMPLETED", completed_at=now)
        .execution_options(synchronize_session=False)
    )
    if getattr(done, "rowcount", 0) != 1:  # completed (or expired) meanwhile
        db.rollback()
        again = db.get(ScaReset, row.id)
        if again is not None and again.status == "COMPLETED":
            raise _completed()
        raise invalid("The reset is no longer LIVENESS_PASSED.", "RESET_NOT_READY")
    if mobile is not None:
        replace_phone(db, services, live_customer(db, row.customer_id, locked=True), mobile)
    else:
        factor = db.scalars(
            select(ScaFactorRow).where(
                ScaFactorRow.customer_id == row.customer_id, ScaFactorRow.factor == row.factor
            )
        ).first()
        if factor is not None:
            db.delete(factor)


def _completed() -> Refusal:
    return Refusal(409, "RESET_ALREADY_COMPLETED", "The reset is completed already.")
