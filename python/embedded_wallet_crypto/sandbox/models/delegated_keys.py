"""Delegated signing keys (``/auth/delegated-keys``): the published ``DelegatedKey``,
``DelegatedKeyListResponse`` and ``DelegatedKeyCreateRequest``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DelegatedKeyCreate", "DelegatedKeyList", "DelegatedKeyOut"]


class DelegatedKeyCreate(BaseModel):
    """The same body on all three legs."""

    model_config = ConfigDict(extra="forbid")
    cardId: Annotated[str, Field(pattern=r"^Card:[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")]
    internalAccountId: Annotated[str, Field(min_length=1, max_length=200)]
    nickname: Annotated[str, Field(min_length=1, max_length=256)]


class DelegatedKeyOut(BaseModel):
    id: str
    cardId: str
    fundingSourceId: str
    accountId: str
    publicKey: str
    nickname: str
    status: Literal["PENDING", "ACTIVE", "REVOKED"]
    createdAt: str
    updatedAt: str


class DelegatedKeyList(BaseModel):
    data: list[DelegatedKeyOut]
