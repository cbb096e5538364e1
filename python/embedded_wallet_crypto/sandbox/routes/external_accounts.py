"""External accounts: ``POST/GET /platform/external-accounts`` (the platform's own) and
``POST/GET /customers/external-accounts`` (a customer's), with the three account-info variants,
beneficiary verification (sandbox: by the identifier's last three digits) and at most one
``defaultUmaDepositAccount`` per customer (a new default replaces the old one)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._clock import iso
from .._db import get_session
from .._errors import ApiError, error_responses
from .._ids import new_id
from .._lists import page
from .._models import Customer
from .._models_payments import ExternalAccount
from .._payment_tables import beneficiary_status, suffix_of
from .._services import Services, get_services

__all__ = ["external_account_body", "router"]

router = APIRouter(
    tags=["External accounts"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]
_Short = Annotated[str, Field(min_length=1, max_length=200)]


class Address(BaseModel):
    model_config = ConfigDict(extra="ignore")
    line1: _Short | None = None
    line2: _Short | None = None
    city: _Short | None = None
    state: _Short | None = None
    postalCode: Annotated[str, Field(max_length=20)] | None = None
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None


class Beneficiary(BaseModel):
    model_config = ConfigDict(extra="ignore")
    beneficiaryType: Literal["INDIVIDUAL", "BUSINESS"] = "INDIVIDUAL"
    fullName: _Short
    birthDate: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = None
    nationality: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None
    address: Address | None = None


class UsdAccount(BaseModel):
    model_config = ConfigDict(extra="ignore")
    accountType: Literal["USD_ACCOUNT"]
    accountNumber: Annotated[str, Field(pattern=r"^\d{4,17}$")]
    routingNumber: Annotated[str, Field(pattern=r"^\d{9}$")]
    bankAccountType: Literal["CHECKING", "SAVINGS"] = "CHECKING"
    bankName: _Short | None = None
    platformAccountId: _Short | None = None
    beneficiary: Beneficiary | None = None


class BrlAccount(BaseModel):
    model_config = ConfigDict(extra="ignore")
    accountType: Literal["BRL_ACCOUNT"]
    pixKey: _Short
    pixKeyType: Literal["CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"]
    taxId: Annotated[str, Field(pattern=r"^[0-9./-]{11,18}$")]
    beneficiary: Beneficiary | None = None


class AedAccount(BaseModel):
    model_config = ConfigDict(extra="ignore")
    accountType: Literal["AED_ACCOUNT"]
    iban: Annotated[str, Field(pattern=r"^AE\d{21}$")]
    swiftCode: Annotated[str, Field(pattern=r"^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$")]
    beneficiary: Beneficiary | None = None


AccountInfo = Annotated[UsdAccount | BrlAccount | AedAccount, Field(discriminator="accountType")]
_CURRENCY_OF = {"USD_ACCOUNT": "USD", "BRL_ACCOUNT": "BRL", "AED_ACCOUNT": "AED"}
#: The rails an account of each variant can be paid on, added to the ``accountInfo`` the client
#: sent (as the real service's answers carry them).
_RAILS = {
    "USD_ACCOUNT": ["ACH", "WIRE", "RTP", "FEDNOW"],
    "BRL_ACCOUNT": ["PIX"],
    "AED_ACCOUNT": ["BANK_TRANSFER"],
}


class ExternalAccountCreate(BaseModel):
    model_config = ConfigDict(extra="ignore")
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    accountInfo: AccountInfo
    platformAccountId: _Short | None = None
    customerId: _Short | None = None
    defaultUmaDepositAccount: bool = False


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


def _create(
    db: Session, services: Services, body: ExternalAccountCreate, customer_id: str | None
) -> dict[str, Any]:
    info = body.accountInfo
    if _CURRENCY_OF[info.accountType] != body.currency:
        raise ApiError(
            400, "INVALID_INPUT", f"A {info.accountType} holds {_CURRENCY_OF[info.accountType]}."
        )
    if customer_id is not None and db.get(Customer, customer_id) is None:
        raise ApiError(404, "NOT_FOUND", "No customer has this id.")
    if body.defaultUmaDepositAccount and customer_id is None:
        raise ApiError(
            400, "INVALID_INPUT", "Only a customer's account can be its default UMA deposit."
        )
    identifier = _identifier(info)
    name = info.beneficiary.fullName if info.beneficiary is not None else None
    if services.sandbox:
        status = beneficiary_status(suffix_of(identifier))
        if status is None:
            raise ApiError(400, "INVALID_ACCOUNT", "The account is invalid (beneficiary check).")
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
        db.commit()
    except IntegrityError:  # another request made a default for this customer meanwhile
        db.rollback()
        raise ApiError(
            409, "CONFLICT", "Another default UMA deposit account was set meanwhile; retry."
        ) from None
    return external_account_body(row)


class PlatformExternalAccountCreate(ExternalAccountCreate):
    customerId: None = None
    defaultUmaDepositAccount: Literal[False] = False


@router.post("/platform/external-accounts", status_code=201)
def create_platform_account(
    body: PlatformExternalAccountCreate, db: Db, services: Svc
) -> dict[str, Any]:
    """Register an external account of the platform itself (``customerId`` is null)."""
    return _create(db, services, body, None)


@router.post("/customers/external-accounts", status_code=201)
def create_customer_account(body: ExternalAccountCreate, db: Db, services: Svc) -> dict[str, Any]:
    """Register a customer's external account (``customerId`` required)."""
    if body.customerId is None:
        raise ApiError(400, "INVALID_INPUT", "customerId is required.")
    return _create(db, services, body, body.customerId)


_Limit = Annotated[int, Query(ge=1, le=100)]
_Cursor = Annotated[str | None, Query(max_length=100)]
_Currency = Annotated[str | None, Query(max_length=10)]
_ORDER = (ExternalAccount.created_at, ExternalAccount.id)


@router.get("/platform/external-accounts")
def list_platform_accounts(
    db: Db, currency: _Currency = None, limit: _Limit = 20, cursor: _Cursor = None
) -> dict[str, Any]:
    query = select(ExternalAccount).where(ExternalAccount.customer_id.is_(None))
    if currency is not None:
        query = query.where(ExternalAccount.currency == currency)
    return page(db, query, _ORDER, external_account_body, limit=limit, cursor=cursor)


@router.get("/customers/external-accounts")
def list_customer_accounts(
    db: Db,
    customerId: Annotated[str | None, Query(max_length=200)] = None,
    currency: _Currency = None,
    limit: _Limit = 20,
    cursor: _Cursor = None,
) -> dict[str, Any]:
    query = select(ExternalAccount).where(ExternalAccount.customer_id.is_not(None))
    if customerId is not None:
        query = query.where(ExternalAccount.customer_id == customerId)
    if currency is not None:
        query = query.where(ExternalAccount.currency == currency)
    return page(db, query, _ORDER, external_account_body, limit=limit, cursor=cursor)


def _find(db: Session, account_id: str, platform: bool) -> ExternalAccount:
    row = db.get(ExternalAccount, account_id)
    if row is None or (row.customer_id is None) != platform:
        raise ApiError(404, "NOT_FOUND", "No external account has this id.")
    return row


_AccountId = Annotated[str, Path(max_length=200)]


@router.get("/platform/external-accounts/{externalAccountId}")
def get_platform_account(externalAccountId: _AccountId, db: Db) -> dict[str, Any]:
    return external_account_body(_find(db, externalAccountId, True))


@router.get("/customers/external-accounts/{externalAccountId}")
def get_customer_account(externalAccountId: _AccountId, db: Db) -> dict[str, Any]:
    return external_account_body(_find(db, externalAccountId, False))
