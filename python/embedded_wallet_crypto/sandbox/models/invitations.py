"""UMA invitations: ``POST /invitations`` and ``POST /invitations/{code}/claim``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from .customers import CurrencyAmount
from .fields import MAX_AMOUNT

__all__ = ["InvitationClaim", "InvitationCreate", "InvitationOut"]


class InvitationCreate(BaseModel):
    """The real service's UmaInvitationCreateRequest."""

    model_config = ConfigDict(extra="ignore")

    inviterUma: Annotated[str, Field(min_length=3, max_length=300)]
    firstName: Annotated[str, Field(min_length=1, max_length=300)] | None = None
    amountToSend: Annotated[int, Field(strict=True, ge=1, le=MAX_AMOUNT)] | None = None
    expiresAt: datetime | None = None


class InvitationClaim(BaseModel):
    model_config = ConfigDict(extra="ignore")

    inviteeUma: Annotated[str, Field(min_length=3, max_length=300)]


class InvitationOut(BaseModel):
    """The interface's Invitation (its status as of the answer)."""

    code: str
    createdAt: str
    url: str
    inviterUma: str
    status: str
    claimedAt: str | None = None
    expiresAt: str | None = None
    inviteeUma: str | None = None
    firstName: str | None = None
    amountToSend: CurrencyAmount | None = None
