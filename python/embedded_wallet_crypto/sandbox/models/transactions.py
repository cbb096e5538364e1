"""Transactions: ``GET /transactions`` (its filters), ``POST /transactions/{id}/approve``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .cards import CardTransactionOut
from .customers import CurrencyAmount
from .fields import check_free_form

__all__ = [
    "ApproveBody",
    "Direction",
    "Status",
    "TransactionList",
    "TransactionListWithCards",
    "TransactionOut",
]


class Status(str, Enum):
    CREATED = "CREATED"
    PENDING = "PENDING"
    PROCESSING = "PROCESSING"
    COMPLETED = "COMPLETED"
    REJECTED = "REJECTED"
    FAILED = "FAILED"
    REFUNDED = "REFUNDED"
    EXPIRED = "EXPIRED"


class Direction(str, Enum):
    INCOMING = "INCOMING"
    OUTGOING = "OUTGOING"


class ApproveBody(BaseModel):
    """The platform's approval of an incoming payment: the receiver data it asked for."""

    model_config = ConfigDict(extra="ignore")
    #: Field names to strings, within the free-form bounds (``fields``): no NUL, no lone
    #: surrogate; the receiver's answer to an approval request is held to the same.
    receiverCustomerInfo: Annotated[
        dict[str, Annotated[str, Field(max_length=500)]], AfterValidator(check_free_form)
    ] = {}


class TransactionOut(BaseModel):
    """The interface's Transaction (incoming and outgoing forms)."""

    id: str
    status: str
    type: str
    direction: str
    #: ``{destinationType: ACCOUNT, accountId, currency}`` or ``{destinationType: UMA_ADDRESS,
    #: umaAddress, currency}``.
    destination: dict[str, Any]
    customerId: str | None = None
    platformCustomerId: str | None = None
    receivedAmount: CurrencyAmount
    createdAt: str
    updatedAt: str
    #: ``{sourceType: ACCOUNT, accountId, currency}`` or ``{sourceType: UMA_ADDRESS, ...}``.
    source: dict[str, Any] | None = None
    sentAmount: CurrencyAmount | None = None
    settledAt: str | None = None
    agentId: str | None = None
    quoteId: str | None = None
    description: str | None = None
    reconciliationInstructions: dict[str, Any] | None = None
    failureReason: str | None = None
    receiptDeliveryConfirmedAt: str | None = None


class TransactionList(BaseModel):
    """A page of payments (an agent's list)."""

    data: list[TransactionOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class TransactionListWithCards(BaseModel):
    """A page of the platform's ``GET /transactions``: payments and card transactions."""

    data: list[TransactionOut | CardTransactionOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None
