"""Contact verification (``/customers/{id}/verify-email``, ``/verify-phone`` and their
``/confirm``): for customers of the EEA, a one-time code to the email address or by SMS (both
written to the local outbox), checked like the login codes (``ewc.otp``: stored as keyed
hashes, five attempts, used once); the published sandbox code 123456 in the sandbox only.

A verification holds for the contact it was made for: a code is kept under the customer and
a hash of the address (or number) it was sent to, so that a code sent to an old address never
confirms a new one, and every change of the email (phone number) puts that channel back to
``PENDING`` (:func:`contact_changed`, called in the transaction of the change: the customers
``PATCH`` and an SMS_OTP reset). A confirmation decides under the customer's row lock, which
every change takes: a contact changed while its code was checked is 409 ``CONTACT_CHANGED``.
A deleted customer is 404 ``USER_NOT_FOUND``."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from ...errors import OtpError
from ..clock import iso
from ..db.tables_sca import ScaProfile
from ..db.tables_wallet import Customer
from ..services import Services
from .customers import customer_body
from .errors import Refusal, invalid
from .live_customers import live_customer
from .sca_profile import EEA, SANDBOX_SCA_CODE, locked_profile, profile_of, send_sms_code

__all__ = ["confirm_contact", "contact_changed", "send_contact_code"]


def _contact(customer: Customer, channel: str) -> str | None:
    return customer.email if channel == "email" else customer.phone_number


def _customer(db: Session, customer_id: str, channel: str) -> tuple[Customer, str]:
    customer = live_customer(db, customer_id)
    if customer.region not in EEA:
        raise Refusal(
            409,
            "CONTACT_VERIFICATION_NOT_REQUIRED",
            "The customer's region does not require contact verification.",
        )
    contact = _contact(customer, channel)
    if not contact:
        raise invalid(f"The customer has no {channel} to verify.", "CONTACT_MISSING")
    profile = profile_of(db, customer)
    status = profile.email_status if channel == "email" else profile.phone_status
    if status == "VERIFIED":
        raise Refusal(409, "ALREADY_VERIFIED", f"The customer's {channel} is already verified.")
    return customer, contact


def _key(channel: str, customer_id: str, contact: str) -> str:
    """The code store's key of a code sent to ``contact`` (a hash: no address in a key)."""
    digest = hashlib.sha256(contact.encode("utf-8", "surrogatepass")).hexdigest()
    return f"verify-{channel}:{customer_id}:{digest}"


def contact_changed(db: Session, customer_id: str, field: str) -> None:
    """The customer's ``email`` or ``phoneNumber`` changes (in the caller's transaction): its
    channel is ``PENDING`` again (a customer with no profile yet has nothing to reset)."""
    column = ScaProfile.email_status if field == "email" else ScaProfile.phone_status
    db.execute(
        update(ScaProfile).where(ScaProfile.customer_id == customer_id).values({column: "PENDING"})
    )


def send_contact_code(db: Session, services: Services, customer_id: str, channel: str) -> None:
    """A fresh code (429 with ``Retry-After`` when asked too often)."""
    customer, contact = _customer(db, customer_id, channel)
    key = _key(channel, customer.id, contact)
    if channel == "phone":
        send_sms_code(services, customer, key)
        return
    issued = services.sms.issue(key)
    services.mailer.send(
        contact,
        "Verify your email address",
        f"Your verification code is: {issued.code}\n\nIt expires at {iso(issued.expires_at)}.\n",
    )


def confirm_contact(
    db: Session, services: Services, customer_id: str, channel: str, code: str
) -> dict[str, Any]:
    """The code -> the channel VERIFIED; the customer with its ``contactVerification``."""
    customer, contact = _customer(db, customer_id, channel)
    db.commit()  # nothing held while the code store (maybe the same database) is written
    if not (services.sandbox and code == SANDBOX_SCA_CODE):
        try:
            services.sms.verify(_key(channel, customer.id, contact), code)
        except OtpError as error:
            if error.status >= 500:
                raise
            raise Refusal(400, error.code, error.reason) from None
    customer = live_customer(db, customer.id, locked=True)
    if _contact(customer, channel) != contact:
        raise Refusal(
            409,
            "CONTACT_CHANGED",
            f"The customer's {channel} changed while the code was checked; send a new code.",
        )
    profile = locked_profile(db, customer)
    if channel == "email":
        profile.email_status = "VERIFIED"
    else:
        profile.phone_status = "VERIFIED"
    body = customer_body(customer)
    body["contactVerification"] = {"email": profile.email_status, "phone": profile.phone_status}
    return body
