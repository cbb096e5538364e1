"""The published contact update of ``PATCH /customers/{customerId}``: a new ``email`` (or
``phoneNumber``) of a customer whose embedded wallet has an EMAIL_OTP (SMS_OTP) credential is a
signed retry (202 and the challenge, then the retry stamped by a session of that wallet), and
updates every such credential with the customer.

Built on the library's ``ewc.signed_retry``: the operations that add those credentials
(``ACTIVITY_TYPE_UPDATE_USER_EMAIL``, ``ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER``) are the
contact updates themselves. Decided under the customer's row lock (held by the caller), the
contact lock (the platform's configuration row: of two customers taking one address at once,
the second sees the first's credential and is refused 409) and the wallet's, in the
transaction that commits the change; the signed step itself comes before the locks. A change
puts the contact's verification back to ``PENDING`` (``domain.contact_verification``)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...signed_retry import Operation, VerifiedRetry
from ..db.tables_wallet import AuthMethod, Customer, InternalAccount
from ..models.customer_ops import CustomerUpdate
from ..services import Services
from .collection_caps import lock_platform
from .contact_verification import contact_changed
from .errors import Refusal
from .wallet import RetryHeaders, ensure_signer_active, lock_account, signed_step

__all__ = ["apply_contact", "contact_step", "replace_phone"]

#: body field -> (credential type, operation, parameter, 409 code when another has it)
_CONTACTS = {
    "email": (
        "EMAIL_OTP",
        Operation.ADD_EMAIL_OTP_CREDENTIAL,
        "userEmail",
        "EMAIL_OTP_EMAIL_ALREADY_EXISTS",
    ),
    "phoneNumber": ("SMS_OTP", Operation.ADD_SMS_OTP_CREDENTIAL, "userPhoneNumber", "CONFLICT"),
}


def _change(customer: Customer, body: CustomerUpdate) -> tuple[str, str] | None:
    """The contact field ``body`` changes, and its new value (one at most: the caller refuses
    both at once)."""
    if body.email is not None and body.email != customer.email:
        return "email", body.email
    if body.phoneNumber is not None and body.phoneNumber != customer.phone_number:
        return "phoneNumber", body.phoneNumber
    return None


def _tied(db: Session, customer_id: str, kind: str) -> list[AuthMethod]:
    return list(
        db.scalars(
            select(AuthMethod)
            .join(InternalAccount, InternalAccount.id == AuthMethod.account_id)
            .where(InternalAccount.customer_id == customer_id, AuthMethod.type == kind)
            .order_by(AuthMethod.created_at, AuthMethod.id)
        )
    )


def contact_step(
    db: Session,
    services: Services,
    customer: Customer,
    body: CustomerUpdate,
    headers: RetryHeaders,
) -> dict[str, str] | VerifiedRetry | None:
    """Before the customer's lock (the signed-retry store writes outside the transaction): the
    202 challenge body of a contact change that needs a signature, the verified retry of one,
    or None when none is needed. 409 when another account's credential of that type has the
    new contact."""
    change = _change(customer, body)
    if change is None:
        return None
    field, value = change
    kind, operation, parameter, taken_code = _CONTACTS[field]
    tied = _tied(db, customer.id, kind)
    if not tied:
        return None
    if _taken(db, kind, value, tied) is not None:
        raise Refusal(409, taken_code, f"Another account's {kind} credential has this {field}.")
    account_id = tied[0].account_id
    return signed_step(
        db,
        services,
        headers,
        account_id=account_id,
        operation=operation,
        parameters={parameter: value, "userId": account_id},
    )


def _taken(db: Session, kind: str, value: str, tied: list[AuthMethod]) -> str | None:
    """The id of another account's ``kind`` credential that has ``value`` (an email address
    compared without case), if any."""
    subject = AuthMethod.subject == value
    if kind == "EMAIL_OTP":
        subject = func.lower(AuthMethod.subject) == value.lower()
    return db.scalar(
        select(AuthMethod.id)
        .where(
            AuthMethod.type == kind,
            subject,
            AuthMethod.id.not_in([credential.id for credential in tied]),
        )
        .limit(1)
    )


def _take(
    db: Session, services: Services, customer: Customer, field: str, value: str
) -> list[AuthMethod]:
    """Under the contact lock (:func:`lock_platform`, taken here: every contact change takes
    it, so that of two at once the second sees what the first committed): 409 when another
    account's credential has the new contact; else the customer has it, its channel is PENDING
    again, and the tied credentials are returned (the caller updates them)."""
    kind, _, _, taken_code = _CONTACTS[field]
    lock_platform(db)
    tied = _tied(db, customer.id, kind)
    if tied and _taken(db, kind, value, tied) is not None:
        raise Refusal(409, taken_code, f"Another account's {kind} credential has this {field}.")
    if field == "email":
        customer.email = value
    else:
        customer.phone_number = value
    contact_changed(db, customer.id, field)
    return tied


def _update_credentials(services: Services, tied: list[AuthMethod], value: str) -> None:
    now = services.clock.now()
    for credential in tied:
        credential.nickname = value
        credential.subject = value
        credential.updated_at = now


def apply_contact(
    db: Session,
    services: Services,
    customer: Customer,
    body: CustomerUpdate,
    retry: VerifiedRetry | None,
) -> None:
    """Under the customer's lock, in the transaction that changes it: the customer and the
    tied credentials take the new contact, and its verification is PENDING again. Decided
    again here: another account's credential with it is 409; a credential tied since the
    unsigned request makes it 409 ``CONFLICT`` (ask again, for the challenge); a signed one
    needs the signer's session still active."""
    change = _change(customer, body)
    if change is None:
        return
    field, value = change
    tied = _take(db, services, customer, field, value)
    if not tied:
        return
    if retry is None or retry.account_id not in {credential.account_id for credential in tied}:
        raise Refusal(
            409, "CONFLICT", f"The customer's {field} now needs a signed retry; ask again."
        )
    tied = _locked_tied(db, customer.id, _CONTACTS[field][0], tied)
    ensure_signer_active(db, services, retry.account_id, retry)
    _update_credentials(services, tied, value)


def _locked_tied(
    db: Session, customer_id: str, kind: str, tied: list[AuthMethod]
) -> list[AuthMethod]:
    """The accounts of ``tied`` (read before) locked, in a fixed order, until the transaction
    ends: the customer's ``kind`` credentials read again under those locks. A revoke takes its
    account's lock, so a credential it deleted after ``tied`` was read is not in the list (its
    update would match no row: a 500), and none is deleted before the change commits."""
    for account_id in sorted({credential.account_id for credential in tied}):
        lock_account(db, account_id)
    return _tied(db, customer_id, kind)


def replace_phone(db: Session, services: Services, customer: Customer, phone: str) -> None:
    """A completed SMS_OTP reset (the liveness check is the proof, no signed retry): the
    customer's number and its SMS_OTP credentials change together, as by :func:`apply_contact`
    (409 ``CONFLICT`` when another account's credential has the number)."""
    if phone == customer.phone_number:
        return
    tied = _take(db, services, customer, "phoneNumber", phone)
    _update_credentials(services, _locked_tied(db, customer.id, "SMS_OTP", tied), phone)
