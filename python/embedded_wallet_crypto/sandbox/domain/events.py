"""The sandbox's event tools: ``GET /sandbox/events`` (every webhook event with its delivery
attempts, newest first), ``POST /sandbox/events/{id}/resend``, ``POST /sandbox/events/trigger``
and the published ``POST /sandbox/webhooks/test``."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Final

import httpx
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ..clock import Clock, iso
from ..db.engine import Database
from ..db.pages import PageRequest, page
from ..db.tables_events import WebhookAttempt, WebhookEvent
from ..services import Services
from .errors import Refusal, invalid, not_found
from .event_samples import sample
from .platform_config import load_config
from .webhook_delivery import ATTEMPT_TIMEOUT_SECONDS, deliver_one
from .webhooks import TEST, WEBHOOK_TYPES, emit, sign

__all__ = [
    "EVENT_STATES",
    "event_body",
    "list_events",
    "resend_event",
    "send_test_webhook",
    "trigger_event",
]

#: The states an event can be in (``GET /sandbox/events?status=``).
EVENT_STATES: Final = ("PENDING", "DELIVERED", "STOPPED", "FAILED", "NO_ENDPOINT")


def _moment(epoch: float | None) -> str | None:
    return None if epoch is None else iso(datetime.fromtimestamp(epoch, timezone.utc))


def _attempt_body(row: WebhookAttempt) -> dict[str, Any]:
    return {
        "attempt": row.number,
        "at": iso(row.created_at),
        "url": row.url,
        "responseStatus": row.status,
        "error": row.error,
        "outcome": row.outcome,
        "durationMs": row.duration_ms,
        "nextAttemptAt": _moment(row.next_at),
        "responseBody": row.response_body,
    }


def event_body(
    event: WebhookEvent, attempts: list[WebhookAttempt], signature: str
) -> dict[str, Any]:
    """One event as ``GET /sandbox/events`` shows it: its delivery state, its attempts (oldest
    first), the webhook body as sent (``body``, with its ``signature``) and parsed
    (``payload``)."""
    return {
        "id": event.id,
        "type": event.type,
        "status": event.state,
        "outcome": event.outcome,
        "url": event.url,
        "attempts": event.attempts,
        "lastResponseStatus": event.last_status,
        "nextAttemptAt": _moment(event.next_at) if event.state == "PENDING" else None,
        "createdAt": iso(event.created_at),
        "transactionId": event.transaction_id,
        "payload": json.loads(event.body),
        "body": event.body,
        "signature": signature,
        "deliveries": [_attempt_body(row) for row in attempts],
    }


def _attempts_of(db: Session, ids: list[str]) -> dict[str, list[WebhookAttempt]]:
    found: dict[str, list[WebhookAttempt]] = {event_id: [] for event_id in ids}
    if ids:
        rows = db.scalars(
            select(WebhookAttempt)
            .where(WebhookAttempt.event_id.in_(ids))
            .order_by(WebhookAttempt.event_id, WebhookAttempt.number)
        ).all()
        for row in rows:
            found[row.event_id].append(row)
    return found


def _render(db: Session, database: Database, events: list[WebhookEvent]) -> list[dict[str, Any]]:
    attempts = _attempts_of(db, [event.id for event in events])
    return [event_body(e, attempts[e.id], sign(database, e.body)) for e in events]


def list_events(
    db: Session,
    database: Database,
    request: PageRequest,
    *,
    event_type: str | None = None,
    state: str | None = None,
) -> dict[str, Any]:
    """One page of the events (newest first unless ``sortOrder`` says otherwise)."""
    query = select(WebhookEvent)
    if event_type is not None:
        query = query.where(WebhookEvent.type == event_type)
    if state is not None:
        query = query.where(WebhookEvent.state == state)
    listed = page(db, query, WebhookEvent, lambda row: {"row": row}, request)
    listed["data"] = _render(db, database, [item["row"] for item in listed["data"]])
    return listed


def _find(db: Session, event_id: str) -> WebhookEvent:
    event = db.get(WebhookEvent, event_id)
    if event is None:
        raise not_found("No webhook event has this id.", "EVENT_NOT_FOUND")
    return event


def _endpoint(db: Session) -> str:
    endpoint = load_config(db).webhook_endpoint
    if not endpoint:
        raise invalid(
            "No webhookEndpoint is configured (PATCH /config).", "WEBHOOK_ENDPOINT_NOT_SET"
        )
    return endpoint


def resend_event(db: Session, database: Database, event_id: str) -> dict[str, Any]:
    """Deliver the event again, to the endpoint configured now: its next attempt is due at
    once, with a new retry horizon (the same body, the same id)."""
    event = _find(db, event_id)
    endpoint = _endpoint(db)
    now = Clock.time()
    db.execute(
        update(WebhookEvent)
        .where(WebhookEvent.id == event.id)
        .values(
            url=endpoint,
            state="PENDING",
            outcome="RESENT",
            next_at=now,
            give_up_at=None,
            claimed_until=None,
            version=WebhookEvent.version + 1,
            updated_at=datetime.fromtimestamp(now, timezone.utc),
        )
        .execution_options(synchronize_session=False)
    )
    db.refresh(event)
    return _render(db, database, [event])[0]


def trigger_event(db: Session, database: Database, event_type: str, data: Any) -> dict[str, Any]:
    """Record an event of ``event_type`` with a sample resource (``data``'s fields over it);
    delivered like any event. A triggered event is a notification, never an approval request."""
    if event_type not in WEBHOOK_TYPES:
        raise invalid(f"{event_type[:60]!r} is not a published webhook type.", "INVALID_EVENT_TYPE")
    if data is not None and not isinstance(data, dict):
        raise invalid("data must be a JSON object.")
    body = sample(event_type, Clock.now())
    if body is None:
        raise invalid(
            f"The sandbox has no {event_type} events (it has no cards).",
            "EVENT_TYPE_NOT_SUPPORTED",
        )
    body.update(data or {})
    event_id = emit(db, event_type, body, kind=TEST if event_type == "TEST" else "NOTIFY")
    db.flush()
    return _render(db, database, [_find(db, event_id)])[0]


def send_test_webhook(db: Session, services: Services) -> dict[str, Any]:
    """Send the ``TEST`` event to the configured endpoint now and wait for its answer (the
    published ``POST /sandbox/webhooks/test``): ``{url, response_status, response_body}``; 400
    ``WEBHOOK_DELIVERY_FAILED`` when the endpoint did not answer. Never retried."""
    endpoint = _endpoint(db)
    event_id = emit(db, "TEST", {}, kind=TEST)
    event = _find(db, event_id)
    event.next_at = None  # made here, not by the worker
    event.state = "PENDING"
    db.commit()
    with httpx.Client(timeout=ATTEMPT_TIMEOUT_SECONDS) as client:
        made = deliver_one(services.database, services.clock, client, event_id, 0)
    if made is None:  # pragma: no cover - nothing else claims an event that is not due
        raise Refusal(409, "EVENT_IN_PROGRESS", "The test event is being delivered already.")
    _, answer, _ = made
    if answer.status is None:
        raise invalid(
            f"The webhook endpoint did not answer ({answer.error}).", "WEBHOOK_DELIVERY_FAILED"
        )
    return {"url": endpoint, "response_status": answer.status, "response_body": answer.body}
