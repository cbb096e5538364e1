"""Cards: ``/cards`` (issue, list, read, update, reveal) and the sandbox's card simulations
(``/sandbox/cards/{id}/simulate/...``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .customers import CurrencyAmount
from .fields import MAX_AMOUNT, Amount, Id, storable_text

__all__ = [
    "AdviceRequest",
    "AuthorizationRequest",
    "BalanceInquiryRequest",
    "CardCreate",
    "CardList",
    "CardOut",
    "CardRevealOut",
    "CardTransactionOut",
    "CardUpdate",
    "ClearingRequest",
    "Merchant",
    "ReturnRequest",
    "SimulationOut",
    "TransactionRefRequest",
]

#: The most funding sources a card binds.
MAX_FUNDING_SOURCES = 10
_Sources = Annotated[list[Id], Field(min_length=1, max_length=MAX_FUNDING_SOURCES)]
_Limit = Annotated[int, Field(strict=True, ge=1, le=MAX_AMOUNT)]


class CardCreate(BaseModel):
    """CardCreateRequest."""

    model_config = ConfigDict(extra="ignore")

    cardholderId: Id
    platformCardId: (
        Annotated[str, Field(min_length=1, max_length=200), AfterValidator(storable_text)] | None
    ) = None
    threeDSecurePassword: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    form: Literal["VIRTUAL"]
    fundingSources: _Sources
    maxSpendPerTransaction: _Limit | None = None


class CardUpdate(BaseModel):
    """CardUpdateRequest: at least one field; ``maxSpendPerTransaction: null`` clears the
    limit (``model_fields_set`` tells it from an absent one)."""

    model_config = ConfigDict(extra="ignore")

    state: Literal["ACTIVE", "FROZEN", "CLOSED"] | None = None
    fundingSources: _Sources | None = None
    maxSpendPerTransaction: _Limit | None = None


class CardOut(BaseModel):
    id: str
    cardholderId: str
    platformCardId: str | None = None
    state: str
    stateReason: str | None = None
    brand: str | None = None
    form: str
    last4: str | None = None
    expMonth: int | None = None
    expYear: int | None = None
    fundingSources: list[str]
    maxSpendPerTransaction: int | None
    currency: str | None = None
    processorRef: str | None = None
    issuerRef: str | None = None
    createdAt: str
    updatedAt: str


class CardList(BaseModel):
    data: list[CardOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class CardRevealOut(BaseModel):
    """The signed, short-lived reveal URL (a bearer secret: never stored or logged)."""

    panEmbedUrl: str = Field(repr=False)
    expiresAt: str


class _Currency(BaseModel):
    model_config = ConfigDict(extra="ignore")

    code: Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")] | None = None


class Merchant(BaseModel):
    """CardMerchant."""

    model_config = ConfigDict(extra="ignore")

    descriptor: Annotated[str, Field(min_length=1, max_length=200), AfterValidator(storable_text)]
    mcc: Annotated[str, Field(pattern=r"^[0-9]{4}$")] | None = None
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None


class AuthorizationRequest(BaseModel):
    """SandboxCardAuthorizationRequest."""

    model_config = ConfigDict(extra="ignore")

    amount: Amount
    currency: _Currency
    merchant: Merchant


class BalanceInquiryRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    merchant: Merchant


class TransactionRefRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    cardTransactionId: Id


class AdviceRequest(TransactionRefRequest):
    amount: Amount


class ReturnRequest(TransactionRefRequest):
    amount: Amount


class ClearingRequest(TransactionRefRequest):
    amount: Annotated[int, Field(strict=True, ge=0, le=MAX_AMOUNT)]


class SimulationOut(BaseModel):
    """SandboxCardSimulationResponse. In the sandbox the token is the card transaction's
    uuid: the transaction is ``CardTransaction:<issuerTransactionToken>``."""

    issuerTransactionToken: str


class CardTransactionOut(BaseModel):
    """The published CardTransaction (``type: CARD``), as ``GET /transactions`` lists it and
    the ``CARD_TRANSACTION.*`` webhooks carry it."""

    type: Literal["CARD"]
    id: str
    cardId: str
    customerId: str
    platformCustomerId: str
    issuerTransactionToken: str
    status: str
    direction: str
    merchant: dict[str, Any]
    authorizedAmount: CurrencyAmount
    settledAmount: CurrencyAmount
    refundedAmount: CurrencyAmount
    accountId: str
    pullSummary: dict[str, int]
    refundSummary: dict[str, int]
    settlementSummary: dict[str, int]
    authorizedAt: str
    lastEventAt: str
    createdAt: str
    updatedAt: str
