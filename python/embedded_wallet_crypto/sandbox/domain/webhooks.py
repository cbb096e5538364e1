"""Webhook delivery: events are stored, then POSTed to the configured ``webhookEndpoint`` by the
background worker, signed with ``ewc.sign_webhook`` (header ``X-Grid-Signature``, formats.md
section 10) and retried with backoff (scaled by ``--time-scale``).

Each event body is ``{"id": "Webhook:<id>", "type": ..., "timestamp": ..., "data": {...}}``;
``id`` (also in the ``X-Grid-Webhook-Id`` header) is the same on every retry, so a receiver can
de-duplicate.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ...keys import KeyPair
from ...webhooks import sign_webhook
from ..clock import Clock, iso
from ..db.engine import Database
from ..db.tables_payments import WebhookDelivery
from ..ids import new_id
from ..services import shared_secret
from .platform_config import load_config

__all__ = [
    "MAX_ATTEMPTS",
    "SIGNATURE_HEADER",
    "deliver_due",
    "emit",
    "public_key_pem",
    "signing_key",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

SIGNATURE_HEADER = "X-Grid-Signature"
#: Attempts per event; the wait before attempt n+1 is ``BACKOFF_SECONDS * 2**(n-1)``, scaled.
MAX_ATTEMPTS = 5
BACKOFF_SECONDS = 5.0
#: How long one process holds a delivery it is sending (real seconds).
_LEASE_SECONDS = 30.0

_KEY_NAME = "webhook-signing-key"


def signing_key(database: Database) -> KeyPair:
    """The service's webhook signing key (made once per database)."""
    return KeyPair.from_private_hex(
        shared_secret(database, _KEY_NAME, lambda: KeyPair.generate().private_key_bytes().hex())
    )


def public_key_pem(database: Database) -> str:
    """The verification key of the webhooks, SPKI PEM."""
    private = bytes.fromhex(
        shared_secret(database, _KEY_NAME, lambda: KeyPair.generate().private_key_bytes().hex())
    )
    public = ec.derive_private_key(int.from_bytes(private, "big"), ec.SECP256R1()).public_key()
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def emit(
    db: Session,
    platform: str,
    event_type: str,
    data: dict[str, Any],
    *,
    transaction_id: str | None = None,
) -> str | None:
    """Queue the event ``event_type`` with ``data`` for the configured endpoint, in ``db``'s
    transaction (it is sent once that commits). Returns the event id, or None when the
    platform has no ``webhookEndpoint``."""
    endpoint = load_config(db).webhook_endpoint
    if not endpoint:
        return None
    now = Clock.now()
    event_id = new_id("Webhook")
    body = json.dumps(
        {"id": event_id, "type": event_type, "timestamp": iso(now), "data": data},
        separators=(",", ":"),
    )
    db.add(
        WebhookDelivery(
            id=event_id,
            platform=platform,
            event_type=event_type,
            url=endpoint,
            body=body,
            attempts=0,
            next_at=now.timestamp(),
            state="PENDING",
            last_status=None,
            transaction_id=transaction_id,
            created_at=now,
        )
    )
    return event_id


def _claim(database: Database, now: float) -> list[WebhookDelivery]:
    """The due deliveries this process takes (a lease, so another process skips them)."""
    claimed = []
    with database.sessions() as db:
        due = db.scalars(
            select(WebhookDelivery)
            .where(WebhookDelivery.state == "PENDING")
            .where(WebhookDelivery.next_at <= now)
            .order_by(WebhookDelivery.next_at)
            .limit(20)
        ).all()
        for row in due:
            taken = db.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id == row.id)
                .where(WebhookDelivery.attempts == row.attempts)
                .where(WebhookDelivery.state == "PENDING")
                .values(attempts=row.attempts + 1, next_at=now + _LEASE_SECONDS)
                .execution_options(synchronize_session=False)
            )
            if getattr(taken, "rowcount", 0) == 1:
                row.attempts += 1
                claimed.append(row)
        db.commit()
        for row in claimed:
            db.expunge(row)
    return claimed


def deliver_due(database: Database, clock: Clock, on_result: Any = None) -> int:
    """Send every due delivery once; returns how many were attempted.

    ``on_result(db, delivery, final_state, http_status)`` is called (in the session that
    records the result) when a delivery ends DELIVERED or FAILED, and on every answer of an
    incoming-payment approval request.
    """
    now = Clock.time()
    claimed = _claim(database, now)
    if not claimed:
        return 0
    key = signing_key(database)
    with httpx.Client(timeout=5.0) as client:
        for row in claimed:
            body = row.body.encode("utf-8")
            status: int | None
            try:
                response = client.post(
                    row.url,
                    content=body,
                    headers={
                        "Content-Type": "application/json",
                        SIGNATURE_HEADER: sign_webhook(body, key),
                        "X-Grid-Webhook-Id": row.id,
                    },
                )
                status = response.status_code
            except httpx.HTTPError:
                status = None
            ok = status is not None and 200 <= status < 300
            if ok:
                state, next_at = "DELIVERED", None
            elif row.attempts >= MAX_ATTEMPTS:
                state, next_at = "FAILED", None
            else:
                state = "PENDING"
                next_at = Clock.time() + clock.seconds(BACKOFF_SECONDS * 2 ** (row.attempts - 1))
            with database.sessions() as db:
                db.execute(
                    update(WebhookDelivery)
                    .where(WebhookDelivery.id == row.id)
                    .values(state=state, next_at=next_at, last_status=status)
                )
                if on_result is not None and state != "PENDING":
                    on_result(db, row, state, status)
                db.commit()
    return len(claimed)
