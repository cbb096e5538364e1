"""``POST /customers`` and ``GET /customers/internal-accounts``.

The interface does not show how customers are created; the service follows the real service's
``POST /customers``. A new customer gets a holding account per currency (``INTERNAL_CRYPTO`` for
a stablecoin or crypto currency, ``INTERNAL_FIAT`` for any other) and one ``EMBEDDED_WALLET``
account (no credential yet).
"""

from __future__ import annotations

import secrets
from datetime import datetime
from enum import Enum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from ...mnemonic import generate_mnemonic
from .._auth import require_platform
from .._clock import iso
from .._currencies import currency, is_currency_code
from .._db import get_session
from .._errors import ApiError, error_responses
from .._funding import funding_instructions
from .._ids import new_id
from .._limits import FreeForm
from .._lists import page
from .._models import Customer, InternalAccount
from .._services import Services, get_services

__all__ = ["account_body", "new_mnemonic", "router"]

router = APIRouter(
    tags=["Customers"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401),
)

#: The currency of an embedded wallet's balance (a sandbox choice).
WALLET_CURRENCY = "USDC"
DEFAULT_CURRENCIES = ("USD",)
#: The currencies held in an INTERNAL_CRYPTO account (managed stablecoin or crypto holdings).
CRYPTO_CURRENCIES = frozenset({"USDC", "USDT", "BTC"})


class CustomerType(str, Enum):
    INDIVIDUAL = "INDIVIDUAL"
    BUSINESS = "BUSINESS"


class AccountType(str, Enum):
    INTERNAL_FIAT = "INTERNAL_FIAT"
    INTERNAL_CRYPTO = "INTERNAL_CRYPTO"
    EMBEDDED_WALLET = "EMBEDDED_WALLET"


class CustomerCreate(BaseModel):
    """The real service's CustomerCreateRequest (fields the sandbox keeps; others ignored)."""

    model_config = ConfigDict(extra="ignore")

    customerType: CustomerType
    platformCustomerId: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    region: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None
    currencies: (
        Annotated[
            list[Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")]], Field(min_length=1, max_length=20)
        ]
        | None
    ) = None
    email: Annotated[str, Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")] | None = (
        None
    )
    phoneNumber: Annotated[str, Field(pattern=r"^\+[1-9]\d{1,14}$")] | None = None
    umaAddress: Annotated[str, Field(min_length=3, max_length=300)] | None = None
    fullName: Annotated[str, Field(max_length=300)] | None = None
    birthDate: Annotated[str, Field(max_length=10)] | None = None
    nationality: Annotated[str, Field(max_length=2)] | None = None
    #: Free-form, bounded (``_limits``): checked with the rest, before anything is stored.
    address: FreeForm | None = None
    businessInfo: FreeForm | None = None


class CurrencyOut(BaseModel):
    code: str
    name: str
    symbol: str
    decimals: int


class CurrencyAmount(BaseModel):
    amount: int
    currency: CurrencyOut


class CustomerOut(BaseModel):
    id: str
    platformCustomerId: str
    customerType: CustomerType
    region: str | None = None
    currencies: list[str]
    email: str | None = None
    phoneNumber: str | None = None
    umaAddress: str
    fullName: str | None = None
    birthDate: str | None = None
    nationality: str | None = None
    address: dict[str, Any] | None = None
    businessInfo: dict[str, Any] | None = None
    createdAt: str
    updatedAt: str
    isDeleted: bool


class InternalAccountOut(BaseModel):
    id: str
    customerId: str
    type: AccountType
    status: str
    balance: CurrencyAmount
    totalBalance: CurrencyAmount
    fundingPaymentInstructions: list[dict[str, Any]]
    createdAt: str
    updatedAt: str


class InternalAccountList(BaseModel):
    data: list[InternalAccountOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int


def new_mnemonic() -> str:
    """A fresh 12-word BIP-39 English mnemonic (128 bits of entropy and its checksum)."""
    return generate_mnemonic(words=12)


def customer_body(customer: Customer) -> dict[str, Any]:
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
    """The interface's InternalAccount (part-2 modules may add to it)."""
    amount = {"amount": account.balance, "currency": currency(account.currency)}
    return {
        "id": account.id,
        "customerId": account.customer_id,
        "type": account.type,
        "status": account.status,
        "balance": amount,
        "totalBalance": dict(amount),
        "fundingPaymentInstructions": funding_instructions(account),
        "createdAt": iso(account.created_at),
        "updatedAt": iso(account.updated_at),
    }


@router.post(
    "/customers", status_code=201, response_model=CustomerOut, response_model_exclude_none=True
)
def create_customer(
    body: CustomerCreate,
    session: Annotated[Session, Depends(get_session)],
    services: Annotated[Services, Depends(get_services)],
) -> Response:
    """Create a customer with an INTERNAL_FIAT (INTERNAL_CRYPTO for a stablecoin or crypto
    currency) account per currency and one EMBEDDED_WALLET."""
    currencies = list(dict.fromkeys(body.currencies or DEFAULT_CURRENCIES))
    for code in currencies:
        if not is_currency_code(code):
            raise ApiError(400, "INVALID_INPUT", f"{code} is not a currency code.")
    now = services.clock.now()
    customer_id = new_id("Customer")
    platform_id = body.platformCustomerId or f"sandbox-{secrets.token_hex(6)}"
    details = body.model_dump(
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
    session.add(customer)
    session.flush()
    for code in currencies:
        kind = (
            AccountType.INTERNAL_CRYPTO if code in CRYPTO_CURRENCIES else AccountType.INTERNAL_FIAT
        )
        session.add(_account(customer_id, kind.value, code, now))
    wallet = _account(customer_id, AccountType.EMBEDDED_WALLET.value, WALLET_CURRENCY, now)
    wallet.wallet_secret = new_mnemonic()
    session.add(wallet)
    # The request was validated whole before anything was added; the answer is serialised
    # before the commit, so that nothing can fail once the customer is saved (a client's
    # retry would then make a second one).
    answer = CustomerOut.model_validate(customer_body(customer)).model_dump_json(exclude_none=True)
    session.commit()
    return Response(answer, status_code=201, media_type="application/json")


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


@router.get(
    "/customers/internal-accounts",
    response_model=InternalAccountList,
    response_model_exclude_none=True,
)
def list_internal_accounts(
    session: Annotated[Session, Depends(get_session)],
    currency: Annotated[str | None, Query(max_length=10)] = None,
    customerId: Annotated[str | None, Query(max_length=200)] = None,
    type: Annotated[AccountType | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
) -> dict[str, Any]:
    """The customers' internal accounts, oldest first; filters combine."""
    query = select(InternalAccount)
    if currency is not None:
        query = query.where(InternalAccount.currency == currency)
    if customerId is not None:
        query = query.where(InternalAccount.customer_id == customerId)
    if type is not None:
        query = query.where(InternalAccount.type == type.value)
    order = (InternalAccount.created_at, InternalAccount.id)
    return page(session, query, order, account_body, limit=limit, cursor=cursor)
