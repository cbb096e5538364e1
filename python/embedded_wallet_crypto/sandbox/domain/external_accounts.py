"""External accounts: the platform's own and the customers', with the three account-info
variants, beneficiary verification (sandbox: by the identifier's last three digits) and at most
one ``defaultUmaDepositAccount`` per customer (a new default replaces the old one)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.pages import PageRequest, page
from ..db.tables_payments import ExternalAccount
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..models.external_accounts import (
    AedAccount,
    BrlAccount,
    ExternalAccountCreate,
    UsdAccount,
)
from ..services import Services
from .errors import Refusal, invalid, not_found
from .payment_tables import beneficiary_status, suffix_of

__all__ = [
    "create_external_account",
    "external_account_body",
    "find_external_account",
    "list_external_accounts",
]

_CURRENCY_OF = {"USD_ACCOUNT": "USD", "BRL_ACCOUNT": "BRL", "AED_ACCOUNT": "AED"}
#: The rails an account of each variant can be paid on, added to the ``accountInfo`` the client
#: sent (as the real service's answers carry them).
_RAILS = {
    "USD_ACCOUNT": ["ACH", "WIRE", "RTP", "FEDNOW"],
    "BRL_ACCOUNT": ["PIX"],
    "AED_ACCOUNT": ["BANK_TRANSFER"],
}


def _identifier(info: UsdAccount | BrlAccount | AedAccount) -> str:
    if isinstance(info, UsdAccount):
        return info.accountNumber
    if isinstance(info, BrlAccount):
        return info.pixKey
    return info.iban


def external_account_body(row: ExternalAccount) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": row.id,
        "status": row.status,
        "currency": row.currency,
        "accountInfo": {
            **row.account_info,
            "paymentRails": list(_RAILS[row.account_info["accountType"]]),
        },
        "customerId": row.customer_id,
        "defaultUmaDepositAccount": row.default_uma_of is not None,
        "beneficiaryVerificationStatus": row.verification_status,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    if row.platform_account_id is not None:
        body["platformAccountId"] = row.platform_account_id
    if row.verified_name is not None:
        body["beneficiaryVerifiedData"] = {"fullName": row.verified_name}
    return body


def create_external_account(
    db: Session, services: Services, body: ExternalAccountCreate, customer_id: str | None
) -> dict[str, Any]:
    """Register an external account: a customer's (``customer_id``), or the platform's own
    (None). At most one default UMA deposit account per customer: a new default replaces the
    old one (a unique index decides between concurrent ones: 409 ``CONFLICT``)."""
    info = body.accountInfo
    if _CURRENCY_OF[info.accountType] != body.currency:
        raise invalid(f"A {info.accountType} holds {_CURRENCY_OF[info.accountType]}.")
    if customer_id is not None and db.get(Customer, customer_id) is None:
        raise not_found("No customer has this id.")
    if body.defaultUmaDepositAccount and customer_id is None:
        raise invalid("Only a customer's account can be its default UMA deposit.")
    identifier = _identifier(info)
    name = info.beneficiary.fullName if info.beneficiary is not None else None
    if services.sandbox:
        status = beneficiary_status(suffix_of(identifier))
        if status is None:
            raise invalid("The account is invalid (beneficiary check).", "INVALID_ACCOUNT")
    else:
        status = "UNSUPPORTED"  # no real bank to ask offline
    verified = None
    if name is not None and status in ("MATCHED", "PARTIAL_MATCH"):
        verified = name if status == "MATCHED" else name.split(" ")[0]
    now = services.clock.now()
    if body.defaultUmaDepositAccount:
        db.execute(
            update(ExternalAccount)
            .where(ExternalAccount.default_uma_of == customer_id)
            .values(default_uma_of=None, updated_at=now)
        )
    row = ExternalAccount(
        id=new_id("ExternalAccount"),
        customer_id=customer_id,
        currency=body.currency,
        account_info=info.model_dump(exclude_none=True),
        identifier=identifier,
        platform_account_id=body.platformAccountId or getattr(info, "platformAccountId", None),
        status="PENDING" if status == "PENDING" else "ACTIVE",
        verification_status=status,
        verified_name=verified,
        default_uma_of=customer_id if body.defaultUmaDepositAccount else None,
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    try:
        db.flush()
    except IntegrityError:  # another request made a default for this customer meanwhile
        raise Refusal(
            409, "CONFLICT", "Another default UMA deposit account was set meanwhile; retry."
        ) from None
    return external_account_body(row)


def find_external_account(db: Session, account_id: str, *, platform: bool) -> dict[str, Any]:
    """The platform's own external account (``platform``) or a customer's; 404 otherwise."""
    row = db.get(ExternalAccount, account_id)
    if row is None or (row.customer_id is None) != platform:
        raise not_found("No external account has this id.")
    return external_account_body(row)


def list_external_accounts(
    db: Session,
    request: PageRequest,
    *,
    platform: bool,
    customer_id: str | None = None,
    currency_code: str | None = None,
) -> dict[str, Any]:
    """The platform's own external accounts (``platform``) or the customers', oldest first;
    filters combine."""
    owner = ExternalAccount.customer_id
    query = select(ExternalAccount).where(owner.is_(None) if platform else owner.is_not(None))
    if customer_id is not None:
        query = query.where(owner == customer_id)
    if currency_code is not None:
        query = query.where(ExternalAccount.currency == currency_code)
    return page(db, query, ExternalAccount, external_account_body, request)
