"""Webhook delivery, as the published docs describe it: each due event is POSTed to the
endpoint it was recorded for, signed (``X-Grid-Signature``), and what the receiver answers
decides what follows.

- A notification (``NOTIFY``): 2xx delivers it; 409 stops it (the receiver has it already);
  any other answer, or none (connection refused, timeout), schedules a retry with exponential
  backoff (``webhooks.retry_delay``, scaled by ``--time-scale``), until the retry horizon
  (7 days after the first attempt) has passed: then it is ``FAILED``.
- An incoming payment's approval request (``APPROVAL``): one attempt, never retried; the
  answer decides the payment (``incoming_approval``).
- The test event (``TEST``): one attempt, never retried.

Across processes on one database each attempt is made once: an event is claimed by a
conditional ``UPDATE`` on its ``version`` (which also numbers the attempt and takes a lease of
:data:`LEASE_SECONDS` real seconds), and its outcome is written only by the holder of that
version. The newest attempts of each event are kept (``sandbox_webhook_attempts``, see
``webhook_retention``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Final

import httpx
from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from ..clock import Clock
from ..db.engine import Database
from ..db.tables_events import WebhookAttempt, WebhookEvent
from ..ids import new_id
from .incoming_approval import decide
from .webhook_retention import prune_attempts
from .webhooks import (
    APPROVAL,
    RETRY_HORIZON_SECONDS,
    SIGNATURE_HEADER,
    TEST,
    Answer,
    retry_delay,
    sign,
)

__all__ = [
    "ATTEMPT_TIMEOUT_SECONDS",
    "LEASE_SECONDS",
    "MAX_RESPONSE_BYTES",
    "deliver_due",
    "deliver_one",
    "post_event",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: How long one attempt waits for the receiver's answer (real seconds).
ATTEMPT_TIMEOUT_SECONDS: Final = 10.0
#: How long a claimed attempt is held before another process may take it (real seconds).
LEASE_SECONDS: Final = 60.0
#: The most of a receiver's answer read (and kept: the first 2000 characters).
MAX_RESPONSE_BYTES: Final = 64 * 1024
_KEPT_CHARACTERS: Final = 2000
#: Due events one tick looks at.
_BATCH: Final = 20


def post_event(client: httpx.Client, url: str, event_id: str, body: str, signature: str) -> Answer:
    """POST ``body`` to ``url`` with the webhook's headers; the receiver's answer."""
    started = time.monotonic()
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: signature,
        "X-Grid-Webhook-Id": event_id,
        "User-Agent": "ewc-sandbox-webhooks",
    }
    try:
        with client.stream("POST", url, content=body.encode("utf-8"), headers=headers) as reply:
            received = bytearray()
            for chunk in reply.iter_bytes():
                received += chunk
                if len(received) >= MAX_RESPONSE_BYTES:
                    break
            text = bytes(received[:MAX_RESPONSE_BYTES]).decode("utf-8", "replace")
            status: int | None = reply.status_code
            error = None
    except httpx.TimeoutException:
        status, text, error = None, "", "TIMEOUT"
    except httpx.HTTPError:
        status, text, error = None, "", "CONNECTION_FAILED"
    return Answer(status, text, error, int((time.monotonic() - started) * 1000))


def _claim(database: Database, event_id: str, version: int, now: float) -> bool:
    """Take the attempt of ``event_id`` at ``version`` (numbering it); False if another process
    took it, or it changed."""
    with database.sessions() as db:
        taken = db.execute(
            update(WebhookEvent)
            .where(WebhookEvent.id == event_id)
            .where(WebhookEvent.version == version)
            .where(WebhookEvent.state == "PENDING")
            .values(
                version=version + 1,
                attempts=WebhookEvent.attempts + 1,
                claimed_until=time.time() + LEASE_SECONDS,
                updated_at=datetime.fromtimestamp(now, timezone.utc),
            )
            .execution_options(synchronize_session=False)
        )
        db.commit()
        return getattr(taken, "rowcount", 0) == 1


def _notify_outcome(
    event: WebhookEvent, answer: Answer, now: float, clock: Clock
) -> tuple[str, str, float | None]:
    """(state, outcome, next attempt) of a notification after ``answer``."""
    if answer.status is not None and 200 <= answer.status < 300:
        return "DELIVERED", "DELIVERED", None
    if answer.status == 409:
        return "STOPPED", "STOPPED_BY_409", None
    if event.kind == TEST:
        return "FAILED", "NOT_RETRIED", None
    next_at = now + clock.seconds(retry_delay(event.attempts))
    if event.give_up_at is not None and next_at > event.give_up_at:
        return "FAILED", "RETRY_HORIZON_PASSED", None
    return "PENDING", "RETRY_SCHEDULED", next_at


def _record(
    database: Database, event: WebhookEvent, claimed: int, answer: Answer, clock: Clock
) -> str:
    """Write the attempt and what follows it (the payment's decision too, for an approval
    request) in one transaction; returns the attempt's outcome."""
    now = Clock.time()
    with database.sessions() as db:
        if event.kind == APPROVAL:
            state, outcome = decide(db, event, answer)
            next_at = None
        else:
            state, outcome, next_at = _notify_outcome(event, answer, now, clock)
        written = db.execute(
            update(WebhookEvent)
            .where(WebhookEvent.id == event.id)
            .where(WebhookEvent.version == claimed)
            .values(
                version=claimed + 1,
                state=state,
                outcome=outcome,
                next_at=next_at,
                claimed_until=None,
                last_status=answer.status,
                give_up_at=event.give_up_at,
                updated_at=datetime.fromtimestamp(now, timezone.utc),
            )
            .execution_options(synchronize_session=False)
        )
        if getattr(written, "rowcount", 0) != 1:
            db.rollback()  # resent meanwhile: the attempt is kept, the event's new state stays
            outcome = "SUPERSEDED"
        _attempt_row(db, event, answer, outcome, now, next_at)
        prune_attempts(db, event.id, event.attempts)
        db.commit()
    return outcome


def _attempt_row(
    db: Session,
    event: WebhookEvent,
    answer: Answer,
    outcome: str,
    now: float,
    next_at: float | None,
) -> None:
    db.add(
        WebhookAttempt(
            id=new_id("WebhookAttempt"),
            event_id=event.id,
            number=event.attempts,
            url=event.url or "",
            status=answer.status,
            error=answer.error,
            outcome=outcome,
            # Text every backend stores (PostgreSQL's text has no NUL).
            response_body=answer.body[:_KEPT_CHARACTERS].replace("\x00", "\ufffd") or None,
            duration_ms=answer.duration_ms,
            next_at=next_at,
            created_at=datetime.fromtimestamp(now, timezone.utc),
        )
    )


def _due(database: Database, now: float) -> list[tuple[str, int]]:
    with database.reads() as connection:  # every tick: one statement, no transaction
        rows = connection.execute(
            select(WebhookEvent.id, WebhookEvent.version)
            .where(WebhookEvent.state == "PENDING")
            .where(WebhookEvent.next_at <= now)
            .where(
                or_(WebhookEvent.claimed_until.is_(None), WebhookEvent.claimed_until < time.time())
            )
            .order_by(WebhookEvent.next_at)
            .limit(_BATCH)
        ).all()
    return [(row[0], row[1]) for row in rows]


def deliver_one(
    database: Database, clock: Clock, client: httpx.Client, event_id: str, version: int
) -> tuple[WebhookEvent, Answer, str] | None:
    """Claim the event at ``version``, make its attempt and record it: (the event as claimed,
    the answer, the attempt's outcome); None if another process took it."""
    if not _claim(database, event_id, version, Clock.time()):
        return None
    with database.sessions() as db:
        event = db.get(WebhookEvent, event_id)
        if event is None or event.url is None:  # pragma: no cover - claimed above
            return None
        db.expunge(event)
    if event.give_up_at is None:
        event.give_up_at = Clock.time() + clock.seconds(RETRY_HORIZON_SECONDS)
    answer = post_event(client, event.url, event.id, event.body, sign(database, event.body))
    outcome = _record(database, event, version + 1, answer, clock)
    logger.info(
        "webhook %s %s attempt %d: %s (%s)",
        event.type,
        event.id,
        event.attempts,
        answer.status if answer.status is not None else answer.error,
        outcome,
    )
    return event, answer, outcome


def deliver_due(
    database: Database, clock: Clock, stopping: Callable[[], bool] | None = None
) -> int:
    """Make every due attempt once (each claimed first); returns how many were made. With
    ``stopping``, no further attempt starts once it answers True (the service is stopping: an
    unanswering receiver holds up the stop by one attempt's timeout at most)."""
    due = _due(database, Clock.time())
    if not due:
        return 0
    made = 0
    with httpx.Client(timeout=ATTEMPT_TIMEOUT_SECONDS) as client:
        for event_id, version in due:
            if stopping is not None and stopping():
                break
            made += deliver_one(database, clock, client, event_id, version) is not None
    return made
