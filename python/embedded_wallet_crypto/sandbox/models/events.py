"""The sandbox's event tools: the body of ``POST /sandbox/events/trigger`` and the answers of
``POST /sandbox/webhooks/test`` and of ``/sandbox/events``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from .fields import FreeForm

__all__ = [
    "EventAttemptOut",
    "EventList",
    "EventOut",
    "TestWebhookOut",
    "TriggerBody",
]


class TriggerBody(BaseModel):
    """An event to emit: a published webhook type and, optionally, fields of ``data`` that
    replace the sample resource's (a free-form object within ``fields``' bounds: depth, members,
    key and string lengths, size; no NUL, no lone surrogate)."""

    model_config = ConfigDict(extra="forbid")
    type: Annotated[str, Field(min_length=1, max_length=60)]
    data: FreeForm | None = None


class TestWebhookOut(BaseModel):
    """The published ``TestWebhookResponse``: where the test event went and what the endpoint
    answered."""

    url: str
    response_status: int
    response_body: str | None = None


class EventAttemptOut(BaseModel):
    """One delivery attempt of an event: when, where, what the receiver answered."""

    attempt: int
    at: str
    url: str | None
    responseStatus: int | None
    error: str | None
    outcome: str | None
    durationMs: int | None
    nextAttemptAt: str | None
    responseBody: str | None


class EventOut(BaseModel):
    """A webhook event of ``GET /sandbox/events``: its delivery state, the body as sent
    with its ``signature``, ``payload`` (that body parsed) and every attempt."""

    id: str
    type: str
    status: str
    outcome: str | None
    url: str | None
    attempts: int
    lastResponseStatus: int | None
    nextAttemptAt: str | None
    createdAt: str
    transactionId: str | None
    payload: Any
    body: str
    signature: str
    deliveries: list[EventAttemptOut]


class EventList(BaseModel):
    data: list[EventOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int
