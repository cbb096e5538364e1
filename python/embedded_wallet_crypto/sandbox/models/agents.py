"""Agents: ``POST /agents``, ``PATCH /agents/{id}``, ``POST .../actions/{id}/reject``."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from .fields import FreeForm

__all__ = ["AgentCreate", "AgentUpdate", "RejectBody"]


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
