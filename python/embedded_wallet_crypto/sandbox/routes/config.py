"""``GET /config`` and ``PATCH /config``: the platform configuration."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy.orm import Session

from .._auth import require_platform
from .._clock import Clock
from .._db import get_session
from .._errors import error_responses
from .._payment_tables import MAX_LOCKED_AMOUNT
from .._platform_config import config_body, load_config

__all__ = ["router"]

router = APIRouter(
    tags=["Configuration"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401),
)

_Amount = Annotated[int, Field(strict=True, ge=0, le=MAX_LOCKED_AMOUNT)]


#: The published CustomerInfoFieldName values: the names a currency's field lists may hold.
CustomerInfoFieldName = Literal[
    "FULL_NAME",
    "BIRTH_DATE",
    "NATIONALITY",
    "PHONE_NUMBER",
    "EMAIL",
    "POSTAL_ADDRESS",
    "TAX_ID",
    "REGISTRATION_NUMBER",
    "USER_TYPE",
    "COUNTRY_OF_RESIDENCE",
    "ACCOUNT_IDENTIFIER",
    "FI_LEGAL_ENTITY_NAME",
    "FI_ADDRESS",
    "PURPOSE_OF_PAYMENT",
    "ULTIMATE_INSTITUTION_COUNTRY",
    "IDENTIFIER",
    "BUSINESS_TYPE",
    "COMPANY_LEGAL_NAME",
    "ID_TYPE",
    "ID_NUMBER",
]
#: A list of field names: each at most once, so at most all of them.
_FieldNames = Annotated[list[CustomerInfoFieldName], Field(max_length=20)]


class CounterpartyField(BaseModel):
    name: CustomerInfoFieldName
    mandatory: Annotated[bool, Field(strict=True)]


class SupportedCurrency(BaseModel):
    model_config = ConfigDict(extra="ignore")
    currencyCode: Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")]
    minAmount: _Amount
    maxAmount: _Amount
    enabledTransactionTypes: Annotated[
        list[Annotated[str, Field(pattern=r"^(OUTGOING|INCOMING)$")]], Field(max_length=2)
    ] = ["OUTGOING", "INCOMING"]
    requiredCounterpartyFields: Annotated[list[CounterpartyField], Field(max_length=20)] = []
    providerRequiredCustomerFields: _FieldNames = []
    providerRequiredCounterpartyCustomerFields: _FieldNames = []

    @model_validator(mode="after")
    def _ordered(self) -> SupportedCurrency:
        if self.minAmount > self.maxAmount:
            raise ValueError("minAmount must not exceed maxAmount")
        return self


class ConfigUpdate(BaseModel):
    model_config = ConfigDict(extra="ignore")
    umaDomain: Annotated[str, Field(min_length=1, max_length=300)] | None = None
    webhookEndpoint: Annotated[str, Field(max_length=2000, pattern=r"^https?://[^\s]+$")] | None = (
        None
    )
    supportedCurrencies: Annotated[list[SupportedCurrency], Field(max_length=50)] | None = None


@router.get("/config")
def get_config(db: Annotated[Session, Depends(get_session)]) -> dict[str, Any]:
    """The platform configuration."""
    return config_body(load_config(db))


@router.patch("/config")
def patch_config(
    body: ConfigUpdate, db: Annotated[Session, Depends(get_session)]
) -> dict[str, Any]:
    """Change umaDomain, webhookEndpoint or supportedCurrencies (the others are read-only)."""
    row = load_config(db)
    if body.umaDomain is not None:
        row.uma_domain = body.umaDomain
    if body.webhookEndpoint is not None:
        row.webhook_endpoint = body.webhookEndpoint
    if body.supportedCurrencies is not None:
        codes = [entry.currencyCode for entry in body.supportedCurrencies]
        if len(set(codes)) != len(codes):
            from .._errors import ApiError

            raise ApiError(400, "INVALID_INPUT", "supportedCurrencies names a currency twice.")
        row.supported_currencies = [entry.model_dump() for entry in body.supportedCurrencies]
    row.updated_at = Clock.now()
    db.commit()
    return config_body(row)
