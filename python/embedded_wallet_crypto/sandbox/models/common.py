"""What every area shares: the error body and the sort order of the lists."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel

__all__ = ["ErrorOut", "SortOrder"]


class ErrorOut(BaseModel):
    """Every error body of the service."""

    status: int
    code: str
    reason: str


class SortOrder(str, Enum):
    """The order of a list by creation time."""

    asc = "asc"
    desc = "desc"
