"""Quotes: ``POST /quotes`` and an agent's ``POST /agents/me/quotes``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .config import CounterpartyField
from .customers import CurrencyOut
from .fields import Amount, CurrencyCode, Id
from .names import either
from .sca import ScaChallengeOut

#: The factors of a per-transaction SCA challenge (published ``ScaFactor`` without TOTP).
TransactionFactor = Literal["SMS_OTP", "PASSKEY"]

__all__ = [
    "ExecuteQuote",
    "PurposeOfPayment",
    "QuoteCreate",
    "QuoteDestination",
    "QuoteOut",
    "QuoteSource",
    "RateDetails",
    "ReceiverCurrency",
    "ReceiverLookupOut",
]


class RateDetails(BaseModel):
    """A quote's (or an outgoing transaction's) ``rateDetails``, read in either spelling (the
    interface's ``serviceApi*`` or the published ``gridApi*``, see ``names``), kept under the
    interface's names."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    counterpartyMultiplier: float | None = None
    counterpartyFixedFee: float | None = None
    serviceApiMultiplier: float | None = Field(
        None, validation_alias=either("serviceApiMultiplier")
    )
    serviceApiFixedFee: float | None = Field(None, validation_alias=either("serviceApiFixedFee"))
    serviceApiVariableFeeRate: float | None = Field(
        None, validation_alias=either("serviceApiVariableFeeRate")
    )
    serviceApiVariableFeeAmount: float | None = Field(
        None, validation_alias=either("serviceApiVariableFeeAmount")
    )


class QuoteSource(BaseModel):
    model_config = ConfigDict(extra="ignore")
    sourceType: Literal["ACCOUNT", "REALTIME_FUNDING"] = "ACCOUNT"
    accountId: Id | None = None
    customerId: Id | None = None
    currency: CurrencyCode | None = None


class QuoteDestination(BaseModel):
    model_config = ConfigDict(extra="ignore")
    destinationType: Literal["ACCOUNT", "UMA_ADDRESS"] = "ACCOUNT"
    accountId: Id | None = None
    umaAddress: Annotated[str, Field(min_length=3, max_length=300)] | None = None
    currency: CurrencyCode | None = None
    paymentRail: Annotated[str, Field(max_length=40)] | None = None


class PurposeOfPayment(str, Enum):
    GIFT = "GIFT"
    SELF = "SELF"
    GOODS_OR_SERVICES = "GOODS_OR_SERVICES"
    EDUCATION = "EDUCATION"
    HEALTH_OR_MEDICAL = "HEALTH_OR_MEDICAL"
    REAL_ESTATE_PURCHASE = "REAL_ESTATE_PURCHASE"
    TAX_PAYMENT = "TAX_PAYMENT"
    LOAN_PAYMENT = "LOAN_PAYMENT"
    UTILITY_BILL = "UTILITY_BILL"
    DONATION = "DONATION"
    TRAVEL = "TRAVEL"
    OTHER = "OTHER"


class QuoteCreate(BaseModel):
    """The body of ``POST /quotes`` (and of an agent's quote)."""

    model_config = ConfigDict(extra="ignore")
    source: QuoteSource
    destination: QuoteDestination
    lockedCurrencySide: Literal["SENDING", "RECEIVING"]
    lockedCurrencyAmount: Amount
    lookupId: Annotated[str, Field(max_length=200)] | None = None
    immediatelyExecute: Annotated[bool, Field(strict=True)] = False
    description: Annotated[str, Field(max_length=500)] | None = None
    purposeOfPayment: PurposeOfPayment | None = None
    senderCustomerInfo: dict[str, Annotated[str, Field(max_length=500)]] | None = None
    #: The factor of the SCA challenge a realtime-funding quote of a customer of the EEA is
    #: issued (SMS_OTP by default; TOTP cannot carry the dynamic linking: refused).
    scaFactor: TransactionFactor | None = None


class ExecuteQuote(BaseModel):
    """The optional body of ``POST /quotes/{quoteId}/execute``: the factor of the SCA
    challenge the execution issues for a customer of the EEA."""

    model_config = ConfigDict(extra="ignore")
    scaFactor: TransactionFactor | None = None


class QuoteOut(BaseModel):
    """The interface's Quote."""

    id: str
    status: str
    createdAt: str
    expiresAt: str
    source: dict[str, Any]
    destination: dict[str, Any]
    sendingCurrency: CurrencyOut
    receivingCurrency: CurrencyOut
    totalSendingAmount: int
    totalReceivingAmount: int
    exchangeRate: float
    feesIncluded: int
    transactionId: str | None = None
    rateDetails: dict[str, Any] | None = None
    #: Where to pay; from an embedded wallet, the ``payloadToSign`` that executing stamps.
    paymentInstructions: list[dict[str, Any]] | None = None
    description: str | None = None
    #: While ``PENDING_AUTHORIZATION``: the SCA challenge to authorize now.
    scaChallenge: ScaChallengeOut | None = None


class ReceiverCurrency(BaseModel):
    """A currency a receiver takes, with its estimated rate and limits."""

    currency: CurrencyOut
    estimatedExchangeRate: float
    min: int
    max: int


class ReceiverLookupOut(BaseModel):
    """A receiver lookup (an UMA address or an external account) before a quote."""

    lookupId: str
    receiverUmaAddress: str | None = None
    accountId: str | None = None
    supportedCurrencies: list[ReceiverCurrency]
    requiredPayerDataFields: list[CounterpartyField]
