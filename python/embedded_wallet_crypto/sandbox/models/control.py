"""The control plane's bodies (sandbox only): the test clock, the request log, the faults."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "MAX_FAULT_COUNT",
    "MAX_LATENCY_MS",
    "MAX_RETRY_AFTER",
    "ClockAdvance",
    "ClockOut",
    "FaultIn",
    "FaultList",
    "FaultOut",
    "RequestList",
    "RequestOut",
]

#: The longest ``latencyMs`` of a fault: one minute.
MAX_LATENCY_MS = 60_000
#: The largest ``retryAfter`` of a fault: one day.
MAX_RETRY_AFTER = 86_400
#: The most calls one fault applies to.
MAX_FAULT_COUNT = 10_000
#: The most one advance moves the clock: ten years (``control.MAX_ADVANCE_SECONDS``).
_MAX_ADVANCE = 10 * 365 * 24 * 3600


class ClockOut(BaseModel):
    """The service's time."""

    now: str


class ClockAdvance(BaseModel):
    """How far to move the test clock, in seconds (a JSON number, 0 to ten years)."""

    model_config = ConfigDict(extra="forbid")
    seconds: Annotated[float, Field(strict=True, ge=0, le=_MAX_ADVANCE, allow_inf_nan=False)]


class RequestOut(BaseModel):
    """One answered request (never a header, a query or a body)."""

    at: str
    method: str
    path: str
    status: int
    durationMs: float
    code: str | None = None


class RequestList(BaseModel):
    data: list[RequestOut]


class FaultIn(BaseModel):
    """A fault for the next ``count`` calls of ``operation``: answer ``status`` (with
    ``Retry-After: retryAfter`` when given), and/or wait ``latencyMs`` first; with
    ``afterCommit`` the call's work is done, then the fault is answered."""

    model_config = ConfigDict(extra="forbid")
    operation: Annotated[str, Field(min_length=3, max_length=300)]
    status: Annotated[int, Field(strict=True)] | None = None
    retryAfter: Annotated[int, Field(strict=True, ge=0, le=MAX_RETRY_AFTER)] | None = None
    latencyMs: Annotated[int, Field(strict=True, ge=0, le=MAX_LATENCY_MS)] | None = None
    count: Annotated[int, Field(strict=True, ge=1, le=MAX_FAULT_COUNT)] = 1
    afterCommit: Annotated[bool, Field(strict=True)] = False

    @model_validator(mode="after")
    def _consistent(self) -> FaultIn:
        if self.status is None and self.latencyMs is None:
            raise ValueError("a fault needs a status, a latencyMs, or both")
        if self.status is None and (self.retryAfter is not None or self.afterCommit):
            raise ValueError("retryAfter and afterCommit need a status")
        return self


class FaultOut(BaseModel):
    """An armed fault (``operation`` with every path parameter written ``{}``; ``count``: the
    calls left)."""

    operation: str
    status: int | None = None
    retryAfter: int | None = None
    latencyMs: int | None = None
    count: int
    afterCommit: bool


class FaultList(BaseModel):
    data: list[FaultOut]
