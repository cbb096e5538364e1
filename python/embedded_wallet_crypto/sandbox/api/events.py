"""The sandbox's webhook tools (sandbox-only: 403 in production, after the platform's
credentials): the published ``POST /sandbox/webhooks/test``; ``GET /sandbox/events`` (every
event and its delivery attempts, newest first), ``POST /sandbox/events/{id}/resend`` and
``POST /sandbox/events/trigger``."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query, Request
from fastapi.responses import JSONResponse

from ..deps import SANDBOX_ONLY, Db, Paging, Platform, Svc
from ..domain import events
from ..models.common import SortOrder
from ..models.events import EventList, EventOut, TestWebhookOut, TriggerBody
from .common import PathId, Sort, answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Sandbox"],
    responses={**error_responses(400, 401, 404), 403: {"description": "Production mode."}},
)

EventState = Literal["PENDING", "DELIVERED", "STOPPED", "FAILED", "NO_ENDPOINT"]


@router.post(
    "/sandbox/webhooks/test",
    dependencies=SANDBOX_ONLY,
    response_model=TestWebhookOut,
)
def send_test_webhook(_: Platform, db: Db, services: Svc) -> JSONResponse:
    """Send a ``TEST`` webhook to the configured ``webhookEndpoint`` now and answer what it
    answered (``response_status``, ``response_body``); 400 ``WEBHOOK_ENDPOINT_NOT_SET`` without
    an endpoint, 400 ``WEBHOOK_DELIVERY_FAILED`` when it did not answer. Never retried."""
    return answer(db, events.send_test_webhook(db, services), model=TestWebhookOut)


@router.get("/sandbox/events", dependencies=SANDBOX_ONLY, response_model=EventList)
def list_events(
    request: Request,
    _: Platform,
    db: Db,
    paging: Paging,
    type: Annotated[str | None, Query(max_length=60)] = None,
    status: EventState | None = None,
    sortOrder: Sort = SortOrder.desc,
) -> JSONResponse:
    """Every webhook event, newest first: its type, delivery ``status`` (PENDING, DELIVERED,
    STOPPED, FAILED, NO_ENDPOINT), attempts (``deliveries``: when, the receiver's status, the
    outcome, the next attempt), the body as sent with its ``signature``, and ``payload``."""
    return answer(
        db,
        events.list_events(
            db,
            request.app.state.database,
            paging.ordered(sortOrder.value),
            event_type=type,
            state=status,
        ),
    )


@router.post("/sandbox/events/{eventId}/resend", dependencies=SANDBOX_ONLY, response_model=EventOut)
def resend_event(eventId: PathId, request: Request, _: Platform, db: Db) -> JSONResponse:
    """Deliver an event again (same id and body) to the endpoint configured now: its next
    attempt is due at once, with a new retry horizon. 404 ``EVENT_NOT_FOUND``; 400
    ``WEBHOOK_ENDPOINT_NOT_SET``."""
    return answer(db, events.resend_event(db, request.app.state.database, eventId))


@router.post(
    "/sandbox/events/trigger",
    dependencies=SANDBOX_ONLY,
    status_code=201,
    response_model=EventOut,
)
def trigger_event(body: TriggerBody, request: Request, _: Platform, db: Db) -> JSONResponse:
    """Emit an event of a published webhook ``type`` with a sample resource as ``data`` (the
    given ``data`` fields replace the sample's); delivered like every event. 400
    ``INVALID_EVENT_TYPE``, ``EVENT_TYPE_NOT_SUPPORTED`` (cards)."""
    made = events.trigger_event(db, request.app.state.database, body.type, body.data)
    return answer(db, made, status=201)
