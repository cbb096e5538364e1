"""Agents: ``POST /agents``, ``PATCH /agents/{id}``, ``POST .../actions/{id}/reject``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from .fields import FreeForm
from .quotes import QuoteOut
from .transactions import TransactionOut

__all__ = [
    "AgentActionList",
    "AgentActionOut",
    "AgentCreate",
    "AgentCreated",
    "AgentList",
    "AgentOut",
    "AgentUpdate",
    "DeviceCodeOut",
    "DeviceCodeStatusOut",
    "RedeemedDeviceCodeOut",
    "RejectBody",
]


class AgentCreate(BaseModel):
    """The real service's AgentCreateRequest."""

    model_config = ConfigDict(extra="ignore")

    name: Annotated[str, Field(min_length=1, max_length=500)]
    customerId: Annotated[str, Field(min_length=1, max_length=100)]
    #: As sent, bounded (``fields``) before the policy rules read it.
    policy: FreeForm


class AgentUpdate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    isPaused: Annotated[bool, Field(strict=True)] | None = None


class RejectBody(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reason: Annotated[str, Field(max_length=1000)] | None = None


class AgentOut(BaseModel):
    """The real service's Agent: its policy as stored, and its spending so far."""

    id: str
    name: str
    customerId: str
    isPaused: bool
    isConnected: bool
    policy: dict[str, Any]
    usage: dict[str, Any]
    createdAt: str
    updatedAt: str


class AgentList(BaseModel):
    data: list[AgentOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None


class DeviceCodeOut(BaseModel):
    """A device code, shown once: the agent's software redeems it for its access token."""

    code: str = Field(repr=False)
    agentId: str
    expiresAt: str
    redeemed: bool


class AgentCreated(BaseModel):
    agent: AgentOut
    deviceCode: DeviceCodeOut


class DeviceCodeStatusOut(BaseModel):
    code: str = Field(repr=False)
    redeemed: bool


class RedeemedDeviceCodeOut(BaseModel):
    """A redeemed device code: the agent's access token (shown once; not in the repr)."""

    agentId: str
    agentName: str
    accessToken: str = Field(repr=False)
    policy: dict[str, Any]


class AgentActionOut(BaseModel):
    """The interface's AgentAction: the quote as it is now, the transaction once execution
    began."""

    id: str
    agentId: str
    customerId: str
    platformCustomerId: str | None = None
    status: str
    type: str
    createdAt: str
    updatedAt: str
    quote: QuoteOut | None = None
    transferDetails: dict[str, Any] | None = None
    transaction: TransactionOut | None = None
    rejectionReason: str | None = None


class AgentActionList(BaseModel):
    data: list[AgentActionOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int | None = None
