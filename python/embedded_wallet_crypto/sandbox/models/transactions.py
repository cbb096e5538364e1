"""Transactions: ``GET /transactions`` (its filters), ``POST /transactions/{id}/approve``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ApproveBody", "Direction", "Status"]


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
    receiverCustomerInfo: dict[str, Annotated[str, Field(max_length=500)]] = {}
