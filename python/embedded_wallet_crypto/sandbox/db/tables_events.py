"""The webhook tables: every event the service emits (``sandbox_webhook_events``) and every
attempt to deliver one (``sandbox_webhook_attempts``).

An event row is claimed for a delivery attempt by a conditional ``UPDATE`` on its ``version``
(the claim moves ``next_at`` past a lease), so of two processes on one database only one sends a
given attempt; the attempt's outcome is written with the version it claimed.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, UtcDateTime

__all__ = ["WebhookAttempt", "WebhookEvent"]


class WebhookEvent(Base):
    """One webhook event: its exact body (the bytes signed and sent on every attempt) and its
    delivery state.

    ``state``: ``PENDING`` (an attempt is due at ``next_at``, epoch seconds of the service's
    clock), ``DELIVERED``, ``STOPPED`` (the receiver answered 409, or a rule ends it),
    ``FAILED`` (no attempt succeeded within the retry horizon) or ``NO_ENDPOINT`` (recorded
    while no ``webhookEndpoint`` was configured). ``kind``: ``NOTIFY``, ``APPROVAL`` (an
    incoming payment's approval request) or ``TEST`` (never retried).
    """

    __tablename__ = "sandbox_webhook_events"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    type: Mapped[str] = mapped_column(String(60), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    url: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    body: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(20))
    outcome: Mapped[str | None] = mapped_column(String(60), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    #: The end of the retry horizon (epoch seconds of the service's clock; set by the first
    #: attempt, which knows the time scale).
    give_up_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: While an attempt is being made: until when (real epoch seconds) its process holds it.
    claimed_until: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    transaction_id: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (Index("ix_sandbox_webhook_events_order", "created_at", "id"),)


class WebhookAttempt(Base):
    """One attempt to deliver an event: when, what the receiver answered (``status``, NULL when
    it did not answer: ``error`` says why) and what followed (``outcome``)."""

    __tablename__ = "sandbox_webhook_attempts"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    event_id: Mapped[str] = mapped_column(String(100), index=True)
    number: Mapped[int] = mapped_column(Integer)
    url: Mapped[str] = mapped_column(String(2000))
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error: Mapped[str | None] = mapped_column(String(60), nullable=True)
    outcome: Mapped[str] = mapped_column(String(60))
    response_body: Mapped[str | None] = mapped_column(Text, nullable=True)
    duration_ms: Mapped[int] = mapped_column(Integer)
    #: When the next attempt is due after this one (epoch seconds of the service's clock).
    next_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    __table_args__ = (
        Index("ix_sandbox_webhook_attempts_unique", "event_id", "number", unique=True),
    )
