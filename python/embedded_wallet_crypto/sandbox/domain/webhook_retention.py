"""How much of the webhook history the sandbox keeps: the newest :data:`MAX_EVENTS` events
(``sandbox_webhook_events``) and, of each, the newest :data:`MAX_ATTEMPTS_KEPT` delivery
attempts (``sandbox_webhook_attempts``), like the request log keeps its newest requests.

Both are decided in the transaction that adds the row: :func:`prune_events` runs in the
transaction that records an event (``webhooks.emit``), :func:`prune_attempts` in the one that
records an attempt (``webhook_delivery``). Each transaction keeps the newest :data:`MAX_EVENTS`
events it sees, its own among them; a transaction does not see the events another one is
recording at the same moment, so the table holds at most :data:`MAX_EVENTS` plus one event per
other transaction recording events at that moment (on either backend, any number of
processes), and the next event recorded alone brings it back to :data:`MAX_EVENTS`. Attempts of
one event are made one at a time (an attempt is claimed first), so that cap is exact.

An event past the cap is deleted whatever its state (with its attempts): an older event still
``PENDING`` is not delivered any more (an incoming payment waiting on its approval request
then ends when its approval window does). An event's ``attempts`` still counts every attempt.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import and_, delete, or_, select
from sqlalchemy.orm import Session

from ..db.tables_events import WebhookAttempt, WebhookEvent

__all__ = ["MAX_ATTEMPTS_KEPT", "MAX_EVENTS", "prune_attempts", "prune_events"]

#: The most webhook events kept (the newest, by ``createdAt``).
MAX_EVENTS: Final = 1000
#: The most delivery attempts kept of one event (the newest).
MAX_ATTEMPTS_KEPT: Final = 20


def prune_events(db: Session) -> None:
    """Delete the events older than the newest :data:`MAX_EVENTS` (and their attempts), in
    ``db``'s transaction. The events it has added and not yet written count as the newest;
    nothing is flushed (a caller's own pending rows are written when it says so)."""
    added = sum(isinstance(row, WebhookEvent) for row in db.new)
    with db.no_autoflush:
        oldest_kept = db.execute(
            select(WebhookEvent.created_at, WebhookEvent.id)
            .order_by(WebhookEvent.created_at.desc(), WebhookEvent.id.desc())
            .offset(max(MAX_EVENTS - 1 - added, 0))
            .limit(1)
        ).first()
        if oldest_kept is None:
            return
        at, event_id = oldest_kept
        older = or_(
            WebhookEvent.created_at < at,
            and_(WebhookEvent.created_at == at, WebhookEvent.id < event_id),
        )
        db.execute(
            delete(WebhookAttempt)
            .where(WebhookAttempt.event_id.in_(select(WebhookEvent.id).where(older)))
            .execution_options(synchronize_session=False)
        )
        db.execute(delete(WebhookEvent).where(older).execution_options(synchronize_session=False))


def prune_attempts(db: Session, event_id: str, newest: int) -> None:
    """Delete the attempts of ``event_id`` older than the newest :data:`MAX_ATTEMPTS_KEPT`
    (attempts are numbered 1, 2, ...; ``newest`` is the number of the latest)."""
    db.execute(
        delete(WebhookAttempt)
        .where(WebhookAttempt.event_id == event_id)
        .where(WebhookAttempt.number <= newest - MAX_ATTEMPTS_KEPT)
        .execution_options(synchronize_session=False)
    )
