"""The sandbox-only simulations: fund an account, pay a quote's funding instructions, receive
an UMA payment."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from .fields import Amount, CurrencyCode, Id

__all__ = ["FundBody", "SendBody", "UmaReceiveBody"]


class FundBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    amount: Amount


class SendBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    quoteId: Id
    currencyCode: CurrencyCode


class UmaReceiveBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    senderUmaAddress: Annotated[str, Field(min_length=3, max_length=300)]
    receivingCurrencyCode: CurrencyCode
    receivingCurrencyAmount: Amount
    receiverUmaAddress: Annotated[str, Field(min_length=3, max_length=300)] | None = None
    customerId: Id | None = None
