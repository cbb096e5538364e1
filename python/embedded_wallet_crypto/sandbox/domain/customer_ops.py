"""A customer after its creation: the list (filters, keyset pages), one customer, its update,
its deletion and its hosted KYC link.

A deletion is a row of its own (``CustomerDeletion``): the customer stays readable (``isDeleted:
true``), its accounts and transactions stay, and it leaves the list unless
``isIncludingDeleted=true``. An update or a deletion locks the customer's row first and decides
under that lock, in the transaction that makes the change: of concurrent ones each sees what the
one before it committed (a second deletion is 410 ``CUSTOMER_DELETED``, an update after the
deletion 404 ``USER_NOT_FOUND``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import String, cast, exists, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.engine import lock
from ..db.pages import PageRequest, page
from ..db.tables_customer_ops import CustomerDeletion
from ..db.tables_wallet import Customer, InternalAccount
from ..ids import new_id
from ..models.customer_ops import CustomerUpdate, KycLinkCreate
from ..services import Services
from .currencies import is_currency_code
from .customer_contact import apply_contact, contact_step
from .customers import CRYPTO_CURRENCIES, customer_body, ensure_uma_address_free
from .errors import Refusal, invalid, not_found
from .transaction_queries import created_between
from .wallet import RetryHeaders

__all__ = [
    "KYC_LINK_SECONDS",
    "CustomerFilters",
    "delete_customer",
    "find_customer",
    "get_customer",
    "kyc_link",
    "list_customers",
    "update_customer",
]

#: A KYC link is valid this long (a sandbox choice).
KYC_LINK_SECONDS = 24 * 3600
_DETAILS = ("fullName", "birthDate", "nationality", "address", "businessInfo")


def _deleted() -> Refusal:
    return Refusal(410, "CUSTOMER_DELETED", "This customer has been deleted.")


def find_customer(db: Session, customer_id: str) -> Customer:
    """The customer (404 ``USER_NOT_FOUND``)."""
    row = db.get(Customer, customer_id)
    if row is None:
        raise not_found("No customer has this id.", "USER_NOT_FOUND")
    return row


def _deleted_at(db: Session, customer_id: str) -> datetime | None:
    return db.scalar(
        select(CustomerDeletion.deleted_at).where(CustomerDeletion.customer_id == customer_id)
    )


def _body(customer: Customer, deleted: bool) -> dict[str, Any]:
    return {**customer_body(customer), "isDeleted": deleted}


def get_customer(db: Session, customer_id: str) -> dict[str, Any]:
    """One customer, deleted ones included (``isDeleted``)."""
    row = find_customer(db, customer_id)
    return _body(row, _deleted_at(db, row.id) is not None)


@dataclass(frozen=True)
class CustomerFilters:
    """The list's filters (all optional; they combine; the date bounds are inclusive)."""

    platform_customer_id: str | None = None
    customer_type: str | None = None
    region: str | None = None
    currency: str | None = None
    uma_address: str | None = None
    created: tuple[datetime | None, datetime | None] = (None, None)
    updated: tuple[datetime | None, datetime | None] = (None, None)
    including_deleted: bool = False


def list_customers(db: Session, filters: CustomerFilters, request: PageRequest) -> dict[str, Any]:
    """One page of the customers matching ``filters``, oldest first (400 for a currency that
    is not a code)."""
    if filters.currency is not None and not is_currency_code(filters.currency):
        raise invalid("currency must be a currency code (3 to 5 capital letters).")
    deleted = exists().where(CustomerDeletion.customer_id == Customer.id)
    query = select(Customer)
    for column, value in (
        (Customer.platform_customer_id, filters.platform_customer_id),
        (Customer.customer_type, filters.customer_type),
        (Customer.region, filters.region),
        (Customer.uma_address, filters.uma_address),
    ):
        if value is not None:
            query = query.where(column == value)
    if filters.currency is not None:
        # The list is stored as JSON text: a code (capital letters only) in quotes is one item.
        query = query.where(cast(Customer.currencies, String).like(f'%"{filters.currency}"%'))
    if not filters.including_deleted:
        query = query.where(~deleted)
    query = created_between(query, Customer.created_at, *filters.created)
    query = created_between(query, Customer.updated_at, *filters.updated)
    if not filters.including_deleted:
        return page(db, query, Customer, lambda row: _body(row, False), request)
    # One primary-key read per customer shown (a page holds at most 100).
    return page(
        db,
        query,
        Customer,
        lambda row: _body(row, db.get(CustomerDeletion, row.id) is not None),
        request,
    )


def _locked(db: Session, customer_id: str, *, deleting: bool = False) -> Customer:
    """The customer, its row locked until the transaction ends. Once deleted: 410
    ``CUSTOMER_DELETED`` to a deletion, 404 ``USER_NOT_FOUND`` to anything else (the published
    answers of each operation)."""
    row = find_customer(db, customer_id)
    lock(db, row)
    if _deleted_at(db, row.id) is not None:
        if deleting:
            raise _deleted()
        raise not_found("This customer has been deleted.", "USER_NOT_FOUND")
    return row


def update_customer(
    db: Session, services: Services, customer_id: str, body: CustomerUpdate, headers: RetryHeaders
) -> tuple[int, dict[str, Any]]:
    """Change the fields ``body`` carries (a list replaces the list); a currency the customer
    did not have gets its holding account. 400 when ``customerType`` is not the customer's or
    ``email`` and ``phoneNumber`` come together; 409 ``UMA_ADDRESS_EXISTS`` for another
    customer's UMA address. An email (phone number) change of a customer whose embedded
    wallet has an EMAIL_OTP (SMS_OTP) credential is a signed retry (``customer_contact``):
    202 and the challenge, then 200 and the credentials updated with the customer."""
    if body.email is not None and body.phoneNumber is not None:
        raise invalid("Update email and phoneNumber in separate calls.")
    current = find_customer(db, customer_id)
    if _deleted_at(db, current.id) is not None:
        raise not_found("This customer has been deleted.", "USER_NOT_FOUND")
    if body.customerType.value != current.customer_type:
        raise invalid(f"customerType must be the customer's own ({current.customer_type}).")
    step = contact_step(db, services, current, body, headers)
    if isinstance(step, dict):
        return 202, step
    row = _locked(db, customer_id)
    if body.customerType.value != row.customer_type:
        raise invalid(f"customerType must be the customer's own ({row.customer_type}).")
    apply_contact(db, services, row, body, step)
    if body.umaAddress is not None and body.umaAddress != row.uma_address:
        ensure_uma_address_free(db, body.umaAddress, holder=row.id)
        row.uma_address = body.umaAddress
    now = services.clock.now()
    if body.currencies is not None:
        currencies = list(dict.fromkeys(body.currencies))
        for code in currencies:
            if not is_currency_code(code):
                raise invalid(f"{code} is not a currency code.")
        _open_accounts(db, row.id, [c for c in currencies if c not in row.currencies], now)
        row.currencies = currencies
    for name, column in (("email", "email"), ("phoneNumber", "phone_number"), ("region", "region")):
        value = getattr(body, name)
        if value is not None:
            setattr(row, column, value)
    changed = body.model_dump(mode="json", include=set(_DETAILS), exclude_none=True)
    if "businessInfo" in changed:  # the given fields change, the others stay
        changed["businessInfo"] = {**row.details.get("businessInfo", {}), **changed["businessInfo"]}
        if "legalName" not in changed["businessInfo"]:
            raise invalid("businessInfo.legalName is required: the customer has none yet.")
    if changed:
        row.details = {**row.details, **changed}
    row.updated_at = now
    db.flush()
    return 200, _body(row, False)


def _open_accounts(db: Session, customer_id: str, codes: list[str], now: datetime) -> None:
    """A holding account for each new currency that has none yet (as at creation)."""
    held = set(
        db.scalars(
            select(InternalAccount.currency).where(
                InternalAccount.customer_id == customer_id,
                InternalAccount.type != "EMBEDDED_WALLET",
            )
        ).all()
    )
    for code in codes:
        if code in held:
            continue
        kind = "INTERNAL_CRYPTO" if code in CRYPTO_CURRENCIES else "INTERNAL_FIAT"
        db.add(
            InternalAccount(
                id=new_id("InternalAccount"),
                customer_id=customer_id,
                type=kind,
                currency=code,
                status="ACTIVE",
                balance=0,
                created_at=now,
                updated_at=now,
            )
        )


def delete_customer(db: Session, services: Services, customer_id: str) -> dict[str, Any]:
    """Mark the customer deleted; its body (``isDeleted: true``). 410 ``CUSTOMER_DELETED``
    when it was already (the primary key of the deletion decides between concurrent ones,
    also where the row lock does not serialize them)."""
    row = _locked(db, customer_id, deleting=True)
    db.add(CustomerDeletion(customer_id=row.id, deleted_at=services.clock.now()))
    try:
        db.flush()
    except IntegrityError:
        raise _deleted() from None
    return _body(row, True)


def kyc_link(
    db: Session, services: Services, customer_id: str, body: KycLinkCreate, origin: str
) -> dict[str, Any]:
    """A fresh hosted KYC link of the customer: a page of this service (``GET
    /sandbox/kyc/{token}``, at ``origin``) that collects nothing and links to
    ``redirectUri``. The customer's status does not change (``POST /verifications`` decides
    it). 404 for an unknown or deleted customer."""
    row = find_customer(db, customer_id)
    if _deleted_at(db, row.id) is not None:
        raise not_found("No customer has this id.", "USER_NOT_FOUND")
    token = secrets.token_urlsafe(18)
    query = {"customerType": row.customer_type}
    if body.redirectUri is not None:
        query["redirectUri"] = body.redirectUri
    expires = services.clock.now() + timedelta(seconds=services.clock.seconds(KYC_LINK_SECONDS))
    return {
        "kycUrl": f"{origin.rstrip('/')}/sandbox/kyc/{token}?{urlencode(query)}",
        "expiresAt": iso(expires),
        "provider": "SUMSUB",
        "token": f"_act-sbx-{token}",
    }
