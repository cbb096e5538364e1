"""Same-currency transfers: ``POST /transfer-in``, ``POST /transfer-out`` (and an agent's)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from .fields import Amount, Id

__all__ = ["AccountReference", "DestinationReference", "TransferIn", "TransferOut"]


class AccountReference(BaseModel):
    model_config = ConfigDict(extra="ignore")
    accountId: Id


class DestinationReference(AccountReference):
    paymentRail: Annotated[str, Field(max_length=40)] | None = None


class TransferIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source: AccountReference
    destination: AccountReference
    amount: Amount


class TransferOut(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source: AccountReference
    destination: DestinationReference
    amount: Amount
    remittanceInformation: Annotated[str, Field(max_length=80)] | None = None
    purposeOfPayment: Annotated[str, Field(max_length=40)] | None = None
