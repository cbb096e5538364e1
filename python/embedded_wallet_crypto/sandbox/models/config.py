"""The platform configuration: ``PATCH /config``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .fields import MAX_AMOUNT

__all__ = [
    "ConfigOut",
    "ConfigUpdate",
    "CounterpartyField",
    "CustomerInfoFieldName",
    "SupportedCurrency",
]

#: A limit of a currency: 0 to the largest amount.
_Limit = Annotated[int, Field(strict=True, ge=0, le=MAX_AMOUNT)]


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
    minAmount: _Limit
    maxAmount: _Limit
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


class ConfigOut(BaseModel):
    """The platform configuration."""

    id: str
    umaDomain: str
    proxyUmaSubdomain: str | None = None
    supportedCurrencies: list[SupportedCurrency]
    isRegulatedFinancialInstitution: bool | None = None
    webhookEndpoint: str | None = None
    createdAt: str
    updatedAt: str
