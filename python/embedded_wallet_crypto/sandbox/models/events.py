"""The sandbox's event tools: the body of ``POST /sandbox/events/trigger`` and the answer of
``POST /sandbox/webhooks/test``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TestWebhookOut", "TriggerBody"]


class TriggerBody(BaseModel):
    """An event to emit: a published webhook type and, optionally, fields of ``data`` that
    replace the sample resource's."""

    model_config = ConfigDict(extra="forbid")
    type: Annotated[str, Field(min_length=1, max_length=60)]
    data: dict[str, Any] | None = None


class TestWebhookOut(BaseModel):
    """The published ``TestWebhookResponse``: where the test event went and what the endpoint
    answered."""

    url: str
    response_status: int
    response_body: str | None = None
