"""Customers and their internal accounts.

The interface does not show how customers are created; the service follows the real service's
``POST /customers``. A new customer gets a holding account per currency (``INTERNAL_CRYPTO`` for
a stablecoin or crypto currency, ``INTERNAL_FIAT`` for any other) and one ``EMBEDDED_WALLET``
account (no credential yet).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ...keys import KeyPair
from ..clock import iso
from ..db.pages import PageRequest, page
from ..db.tables_wallet import Customer, InternalAccount
from ..ids import new_id, random_hex
from ..ids import new_mnemonic as seeded_mnemonic
from ..models.customers import AccountType, CustomerCreate
from ..services import Services
from .at_rest import seal_mnemonic
from .collection_caps import lock_platform
from .currencies import currency, is_currency_code
from .errors import Refusal, invalid
from .funding import funding_instructions

__all__ = [
    "account_body",
    "add_customer",
    "create_customer",
    "customer_body",
    "ensure_uma_address_free",
    "list_internal_accounts",
    "new_mnemonic",
]

#: The currency of an embedded wallet's balance (a sandbox choice).
WALLET_CURRENCY = "USDC"
DEFAULT_CURRENCIES = ("USD",)
#: The currencies held in an INTERNAL_CRYPTO account (managed stablecoin or crypto holdings).
CRYPTO_CURRENCIES = frozenset({"USDC", "USDT", "BTC"})


def new_mnemonic() -> str:
    """A fresh 12-word BIP-39 English mnemonic (128 bits of entropy and its checksum;
    derived from ``--seed`` when given)."""
    return seeded_mnemonic()


def customer_body(customer: Customer) -> dict[str, Any]:
    """The real service's Customer."""
    body: dict[str, Any] = {
        "id": customer.id,
        "platformCustomerId": customer.platform_customer_id,
        "customerType": customer.customer_type,
        "currencies": list(customer.currencies),
        "umaAddress": customer.uma_address,
        "createdAt": iso(customer.created_at),
        "updatedAt": iso(customer.updated_at),
        "isDeleted": False,
    }
    for name, value in (
        ("region", customer.region),
        ("email", customer.email),
        ("phoneNumber", customer.phone_number),
    ):
        if value is not None:
            body[name] = value
    body.update({k: v for k, v in customer.details.items() if v is not None})
    return body


def account_body(account: InternalAccount) -> dict[str, Any]:
    """The interface's InternalAccount."""
    amount = {"amount": account.balance, "currency": currency(account.currency)}
    body: dict[str, Any] = {
        "id": account.id,
        "customerId": account.customer_id,
        "type": account.type,
        "status": account.status,
        "balance": amount,
        "totalBalance": dict(amount),
        "fundingPaymentInstructions": funding_instructions(account),
    }
    if account.type == "EMBEDDED_WALLET":  # only present for EMBEDDED_WALLET accounts
        body["privateEnabled"] = bool(account.private_enabled)
    body["createdAt"] = iso(account.created_at)
    body["updatedAt"] = iso(account.updated_at)
    return body


def create_customer(db: Session, services: Services, body: CustomerCreate) -> dict[str, Any]:
    """Create a customer with an INTERNAL_FIAT (INTERNAL_CRYPTO for a stablecoin or crypto
    currency) account per currency and one EMBEDDED_WALLET.

    Raises:
        Refusal: 400 INVALID_INPUT (a currency), 409 CONFLICT (a customer has this
            ``platformCustomerId`` already, deleted customers included), 409
            UMA_ADDRESS_EXISTS (a customer has this ``umaAddress``, deleted ones included).
    """
    return add_customer(db, services.clock.now(), body, services.sealing_key)


def add_customer(
    db: Session, now: datetime, body: CustomerCreate, sealing_key: KeyPair
) -> dict[str, Any]:
    """:func:`create_customer` at ``now`` (also the bulk import's, which has no request); the
    wallet's mnemonic is stored sealed with ``sealing_key`` (``at_rest``)."""
    currencies = list(dict.fromkeys(body.currencies or DEFAULT_CURRENCIES))
    for code in currencies:
        if not is_currency_code(code):
            raise invalid(f"{code} is not a currency code.")
    customer_id = new_id("Customer")
    platform_id = body.platformCustomerId or f"sandbox-{random_hex(6, 'customer')}"
    details = body.model_dump(
        mode="json",
        include={"fullName", "birthDate", "nationality", "address", "businessInfo"},
        exclude_none=True,
    )
    customer = Customer(
        id=customer_id,
        platform_customer_id=platform_id,
        customer_type=body.customerType.value,
        region=body.region,
        currencies=currencies,
        email=body.email,
        phone_number=body.phoneNumber,
        uma_address=body.umaAddress or f"${customer_id.split(':', 1)[1][:8]}@sandbox.uma.invalid",
        details=details,
        created_at=now,
        updated_at=now,
    )
    if db.scalar(select(Customer.id).where(Customer.platform_customer_id == platform_id)):
        raise _taken()
    if body.umaAddress is not None:  # a made-up address is the new id's own
        ensure_uma_address_free(db, body.umaAddress)
    db.add(customer)
    try:  # two creations at once: the unique index decides (the second waits, then fails)
        db.flush()
    except IntegrityError as error:
        if "platform_customer_id" not in str(error.orig):
            raise
        raise _taken() from None
    for code in currencies:
        kind = (
            AccountType.INTERNAL_CRYPTO if code in CRYPTO_CURRENCIES else AccountType.INTERNAL_FIAT
        )
        db.add(_account(customer_id, kind.value, code, now))
    wallet = _account(customer_id, AccountType.EMBEDDED_WALLET.value, WALLET_CURRENCY, now)
    wallet.wallet_secret = seal_mnemonic(sealing_key, new_mnemonic(), wallet.id)
    db.add(wallet)
    return customer_body(customer)


def ensure_uma_address_free(db: Session, address: str, *, holder: str | None = None) -> None:
    """409 ``UMA_ADDRESS_EXISTS`` when a customer other than ``holder`` has ``address``
    (deleted customers keep theirs). Decided under the platform's lock, in the caller's
    transaction: two requests for one address (creations, or updates of two customers, whose
    own row locks do not meet) are serialized there, and the second sees the first's."""
    lock_platform(db)
    taken = select(Customer.id).where(Customer.uma_address == address)
    if holder is not None:
        taken = taken.where(Customer.id != holder)
    if db.scalar(taken.limit(1)) is not None:
        raise Refusal(409, "UMA_ADDRESS_EXISTS", "Another customer has this UMA address.")


def _taken() -> Refusal:
    return Refusal(409, "CONFLICT", "A customer with this platformCustomerId exists already.")


def _account(customer_id: str, kind: str, code: str, now: datetime) -> InternalAccount:
    return InternalAccount(
        id=new_id("InternalAccount"),
        customer_id=customer_id,
        type=kind,
        currency=code,
        status="ACTIVE",
        balance=0,
        created_at=now,
        updated_at=now,
    )


def list_internal_accounts(
    db: Session,
    request: PageRequest,
    *,
    currency_code: str | None = None,
    customer_id: str | None = None,
    account_type: str | None = None,
) -> dict[str, Any]:
    """The customers' internal accounts, oldest first; filters combine."""
    query = select(InternalAccount)
    if currency_code is not None:
        query = query.where(InternalAccount.currency == currency_code)
    if customer_id is not None:
        query = query.where(InternalAccount.customer_id == customer_id)
    if account_type is not None:
        query = query.where(InternalAccount.type == account_type)
    return page(db, query, InternalAccount, account_body, request)
