"""The optional bodies of ``POST /transactions/{transactionId}/reject``, ``/cancel`` and
``/confirm`` (the published RejectPaymentRequest, CancelTransactionRequest and
ConfirmReceiptDeliveryRequest)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from .fields import IsoDateTime

__all__ = ["CancelBody", "ConfirmBody", "RejectBody"]

_Reason = Annotated[str, Field(min_length=1, max_length=200)]


class RejectBody(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reason: _Reason | None = None


class CancelBody(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reason: _Reason | None = None


class ConfirmBody(BaseModel):
    model_config = ConfigDict(extra="ignore")

    receiptDeliveryConfirmedAt: IsoDateTime | None = None
