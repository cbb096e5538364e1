"""API tokens: ``POST /tokens`` and the published ApiToken."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .fields import storable_text

__all__ = ["ApiTokenCreate", "ApiTokenList", "ApiTokenOut", "Permission"]


class Permission(str, Enum):
    """What a token may do: VIEW (read), TRANSACT (move money), MANAGE (everything else)."""

    VIEW = "VIEW"
    TRANSACT = "TRANSACT"
    MANAGE = "MANAGE"


def _distinct(values: list[Permission]) -> list[Permission]:
    if len(set(values)) != len(values):
        raise ValueError("names a permission twice")
    return values


class ApiTokenCreate(BaseModel):
    """The published ApiTokenCreateRequest."""

    model_config = ConfigDict(extra="ignore")

    name: Annotated[str, Field(min_length=1, max_length=200), AfterValidator(storable_text)]
    permissions: Annotated[
        list[Permission], Field(min_length=1, max_length=3), AfterValidator(_distinct)
    ]


class ApiTokenOut(BaseModel):
    """The published ApiToken (``clientSecret`` only in the answer to its creation)."""

    id: str
    name: str
    permissions: list[Permission]
    clientId: str
    clientSecret: str | None = None
    createdAt: str
    updatedAt: str


class ApiTokenList(BaseModel):
    data: list[ApiTokenOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int
