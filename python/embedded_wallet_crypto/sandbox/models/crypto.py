"""``POST /crypto/estimate-withdrawal-fee`` and ``GET /customers/end-user-terms``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .fields import Amount, CurrencyCode, Id

__all__ = ["EndUserTermsOut", "WithdrawalFeeOut", "WithdrawalFeeRequest"]

Network = Literal[
    "SOLANA", "ETHEREUM", "BASE", "POLYGON", "SPARK", "LIGHTNING", "BITCOIN", "TRON", "PLASMA"
]


class WithdrawalFeeRequest(BaseModel):
    """EstimateCryptoWithdrawalFeeRequest."""

    model_config = ConfigDict(extra="ignore")

    internalAccountId: Id
    currency: CurrencyCode
    cryptoNetwork: Network
    amount: Amount
    destinationAddress: Annotated[str, Field(min_length=1, max_length=200)]


class WithdrawalFeeOut(BaseModel):
    networkFee: int
    networkFeeAsset: str
    applicationFee: int
    totalFee: int
    netAmount: int


class EndUserTermsOut(BaseModel):
    version: str
    url: str
