"""Contact verification (``/customers/{id}/verify-email``, ``/verify-phone`` and their
``/confirm``): for customers of the EEA, a one-time code to the email address or by SMS (both
written to the local outbox), checked like the login codes (``ewc.otp``: stored as keyed
hashes, five attempts, used once); the published sandbox code 123456 in the sandbox only."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ...errors import OtpError
from ..clock import iso
from ..db.tables_sca import ScaProfile
from ..db.tables_wallet import Customer
from ..services import Services
from .customers import customer_body
from .errors import Refusal, invalid, not_found
from .sca_profile import EEA, SANDBOX_SCA_CODE, locked_profile, profile_of, send_sms_code

__all__ = ["confirm_contact", "send_contact_code"]


def _customer(db: Session, customer_id: str, channel: str) -> tuple[Customer, ScaProfile]:
    customer = db.get(Customer, customer_id[:100])
    if customer is None:
        raise not_found("No customer has this id.")
    if customer.region not in EEA:
        raise Refusal(
            409,
            "CONTACT_VERIFICATION_NOT_REQUIRED",
            "The customer's region does not require contact verification.",
        )
    if not (customer.email if channel == "email" else customer.phone_number):
        raise invalid(f"The customer has no {channel} to verify.", "CONTACT_MISSING")
    profile = profile_of(db, customer)
    status = profile.email_status if channel == "email" else profile.phone_status
    if status == "VERIFIED":
        raise Refusal(409, "ALREADY_VERIFIED", f"The customer's {channel} is already verified.")
    return customer, profile


def _key(channel: str, customer_id: str) -> str:
    return f"verify-{channel}:{customer_id}"


def send_contact_code(db: Session, services: Services, customer_id: str, channel: str) -> None:
    """A fresh code (429 with ``Retry-After`` when asked too often)."""
    customer, _ = _customer(db, customer_id, channel)
    key = _key(channel, customer.id)
    if channel == "phone":
        send_sms_code(services, customer, key)
        return
    assert customer.email is not None
    issued = services.sms.issue(key)
    services.mailer.send(
        customer.email,
        "Verify your email address",
        f"Your verification code is: {issued.code}\n\nIt expires at {iso(issued.expires_at)}.\n",
    )


def confirm_contact(
    db: Session, services: Services, customer_id: str, channel: str, code: str
) -> dict[str, Any]:
    """The code -> the channel VERIFIED; the customer with its ``contactVerification``."""
    customer, _ = _customer(db, customer_id, channel)
    db.commit()  # nothing held while the code store (maybe the same database) is written
    if not (services.sandbox and code == SANDBOX_SCA_CODE):
        try:
            services.sms.verify(_key(channel, customer.id), code)
        except OtpError as error:
            if error.status >= 500:
                raise
            raise Refusal(400, error.code, error.reason) from None
    profile = locked_profile(db, customer)
    if channel == "email":
        profile.email_status = "VERIFIED"
    else:
        profile.phone_status = "VERIFIED"
    body = customer_body(customer)
    body["contactVerification"] = {"email": profile.email_status, "phone": profile.phone_status}
    return body
