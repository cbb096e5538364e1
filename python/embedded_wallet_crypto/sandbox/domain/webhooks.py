"""Webhook events as the published document sends them: ``{"id": "Webhook:<id>", "type":
"<OBJECT>.<EVENT>", "timestamp": ..., "data": <the full resource>}`` (its ``WebhookType``), signed
with the service's P-256 key in ``X-Grid-Signature`` (``ewc.sign_webhook``, formats.md section
10), the verification key at ``GET /sandbox/webhook-public-key``.

:func:`emit` records an event in the caller's transaction (it is sent once that commits); the
background worker delivers it (``webhook_delivery``). Every event is recorded, also while no
``webhookEndpoint`` is configured (state ``NO_ENDPOINT``): ``GET /sandbox/events`` and
``ewc listen`` show them all.

The body is made once, when the event is: with ``--names published`` (the database's sessions
carry ``info["names"] == "published"``, set by the app) its ``data`` has the published field
names and values (``models.names.published_resource``), so that the delivered body, its
signature, the events list and ``ewc listen``'s forwarded copy are all the published one.

The retry schedule follows the published retry policy: exponential backoff from
:data:`FIRST_RETRY_SECONDS`, each wait at most :data:`MAX_RETRY_INTERVAL_SECONDS` (30 minutes),
for up to :data:`RETRY_HORIZON_SECONDS` (7 days) after the event; simulated seconds, scaled by
``--time-scale`` and read on the service's clock.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Final

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy.orm import Session

from ...keys import KeyPair, parse_public_key
from ...webhooks import sign_webhook
from ..clock import Clock, iso
from ..db.engine import Database
from ..db.tables_events import WebhookEvent
from ..ids import new_id
from ..models.names import published_resource
from ..services import shared_secret
from .platform_config import load_config
from .webhook_retention import prune_events

__all__ = [
    "APPROVAL",
    "FIRST_RETRY_SECONDS",
    "MAX_RETRY_INTERVAL_SECONDS",
    "NOTIFY",
    "RETRY_HORIZON_SECONDS",
    "SIGNATURE_HEADER",
    "TEST",
    "WEBHOOK_TYPES",
    "Answer",
    "emit",
    "payment_event_type",
    "public_key_pem",
    "retry_delay",
    "sign",
    "signing_key",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

SIGNATURE_HEADER: Final = "X-Grid-Signature"
#: The wait before the first retry, in simulated seconds (the published policy gives the cap
#: and the horizon, not the first wait: this is the sandbox's choice).
FIRST_RETRY_SECONDS: Final = 30.0
#: The longest wait between two attempts: 30 minutes (published).
MAX_RETRY_INTERVAL_SECONDS: Final = 30 * 60.0
#: How long an event is retried: 7 days after it was emitted (published).
RETRY_HORIZON_SECONDS: Final = 7 * 24 * 3600.0

#: Event kinds: a notification (retried), an incoming payment's approval request (never
#: retried: the answer decides the payment) and the test event (never retried).
NOTIFY: Final = "NOTIFY"
APPROVAL: Final = "APPROVAL"
TEST: Final = "TEST"

#: The published ``WebhookType`` values.
WEBHOOK_TYPES: Final = (
    "OUTGOING_PAYMENT.PENDING",
    "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
    "OUTGOING_PAYMENT.PROCESSING",
    "OUTGOING_PAYMENT.COMPLETED",
    "OUTGOING_PAYMENT.FAILED",
    "OUTGOING_PAYMENT.EXPIRED",
    "OUTGOING_PAYMENT.REFUND_PENDING",
    "OUTGOING_PAYMENT.REFUND_COMPLETED",
    "OUTGOING_PAYMENT.REFUND_FAILED",
    "INCOMING_PAYMENT.PENDING",
    "INCOMING_PAYMENT.COMPLETED",
    "INCOMING_PAYMENT.FAILED",
    "INCOMING_PAYMENT.REFUND_PENDING",
    "INCOMING_PAYMENT.REFUND_COMPLETED",
    "INCOMING_PAYMENT.REFUND_FAILED",
    "CUSTOMER.KYC_APPROVED",
    "CUSTOMER.KYC_REJECTED",
    "CUSTOMER.KYC_PENDING",
    "CUSTOMER.KYB_APPROVED",
    "CUSTOMER.KYB_REJECTED",
    "CUSTOMER.KYB_PENDING",
    "VERIFICATION.APPROVED",
    "VERIFICATION.REJECTED",
    "VERIFICATION.RESOLVE_ERRORS",
    "VERIFICATION.IN_PROGRESS",
    "VERIFICATION.PENDING_MANUAL_REVIEW",
    "VERIFICATION.READY_FOR_VERIFICATION",
    "EXTERNAL_ACCOUNT.STATUS_UPDATED",
    "INTERNAL_ACCOUNT.BALANCE_UPDATED",
    "INTERNAL_ACCOUNT.STATUS_UPDATED",
    "INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED",
    "INVITATION.CLAIMED",
    "BULK_UPLOAD.COMPLETED",
    "BULK_UPLOAD.FAILED",
    "AGENT_ACTION.PENDING_APPROVAL",
    "CARD.STATE_CHANGE",
    "CARD.FUNDING_SOURCE_CHANGE",
    "CARD_TRANSACTION.AUTHORIZED",
    "CARD_TRANSACTION.PARTIALLY_SETTLED",
    "CARD_TRANSACTION.SETTLED",
    "CARD_TRANSACTION.REFUNDED",
    "CARD_TRANSACTION.EXCEPTION",
    "TEST",
)

# A transaction's status -> the event of its direction (None: no published event).
_OUTGOING: Final = {
    "PENDING": "OUTGOING_PAYMENT.PENDING",
    "PENDING_AUTHORIZATION": "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
    "PROCESSING": "OUTGOING_PAYMENT.PROCESSING",
    "COMPLETED": "OUTGOING_PAYMENT.COMPLETED",
    "FAILED": "OUTGOING_PAYMENT.FAILED",
    "REJECTED": "OUTGOING_PAYMENT.FAILED",
    "EXPIRED": "OUTGOING_PAYMENT.EXPIRED",
    "REFUNDED": "OUTGOING_PAYMENT.REFUND_COMPLETED",
}
_INCOMING: Final = {
    "PENDING": "INCOMING_PAYMENT.PENDING",
    "COMPLETED": "INCOMING_PAYMENT.COMPLETED",
    "FAILED": "INCOMING_PAYMENT.FAILED",
    "REJECTED": "INCOMING_PAYMENT.FAILED",
    "EXPIRED": "INCOMING_PAYMENT.FAILED",
    "REFUNDED": "INCOMING_PAYMENT.REFUND_COMPLETED",
}

_KEY_NAME = "webhook-signing-key"


@dataclass(frozen=True)
class Answer:
    """What the receiver answered: its status (None: no answer, ``error`` says why), its body
    (at most what the delivery reads), and how long it took."""

    status: int | None
    body: str
    error: str | None
    duration_ms: int

    def json(self) -> dict[str, Any]:
        """The body as a JSON object ({} when it is not one)."""
        try:
            value = json.loads(self.body)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


def payment_event_type(direction: str, status: str) -> str | None:
    """The published event of a transaction of ``direction`` (INCOMING, OUTGOING) reaching
    ``status``; None for a status with no event (CREATED, an incoming PROCESSING)."""
    return (_INCOMING if direction == "INCOMING" else _OUTGOING).get(status)


#: The signing key of each database this process serves (read once: signing inside a
#: request's transaction must not open another one).
_KEYS: dict[str, KeyPair] = {}


def _private_hex(database: Database) -> str:
    return shared_secret(database, _KEY_NAME, lambda: KeyPair.generate().private_key_bytes().hex())


def signing_key(database: Database) -> KeyPair:
    """The service's webhook signing key (made once per database, read once per process: the
    app reads it at its start)."""
    key = _KEYS.get(database.url)
    if key is None:
        key = _KEYS[database.url] = KeyPair.from_private_hex(_private_hex(database))
    return key


def sign(database: Database, body: str) -> str:
    """The ``X-Grid-Signature`` value of ``body`` (as sent: its UTF-8 bytes)."""
    return sign_webhook(body.encode("utf-8"), signing_key(database))


def public_key_pem(database: Database) -> str:
    """The verification key of the webhooks, SPKI PEM."""
    point = parse_public_key(signing_key(database).public_key_hex())  # uncompressed
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def retry_delay(attempt: int) -> float:
    """The wait after failed attempt number ``attempt`` (1 is the first), in simulated seconds:
    ``FIRST_RETRY_SECONDS * 2**(attempt-1)``, at most ``MAX_RETRY_INTERVAL_SECONDS``."""
    exponent = min(max(attempt - 1, 0), 32)
    return float(min(FIRST_RETRY_SECONDS * 2**exponent, MAX_RETRY_INTERVAL_SECONDS))


def emit(
    db: Session,
    event_type: str,
    data: dict[str, Any],
    *,
    transaction_id: str | None = None,
    kind: str = NOTIFY,
) -> str:
    """Record the event ``event_type`` with ``data`` (the full resource) in ``db``'s
    transaction; its first attempt is due at once, to the ``webhookEndpoint`` configured now.
    Returns the event id (the body's ``id``, the same on every attempt). Older events past
    ``webhook_retention.MAX_EVENTS`` are deleted in the same transaction."""
    endpoint = load_config(db).webhook_endpoint or None
    if db.info.get("names") == "published":
        data = published_resource(data)
    now = Clock.now()
    event_id = new_id("Webhook")
    body = json.dumps(
        {"id": event_id, "type": event_type, "timestamp": iso(now), "data": data},
        separators=(",", ":"),
    )
    db.add(
        WebhookEvent(
            id=event_id,
            type=event_type,
            kind=kind,
            url=endpoint,
            body=body,
            state="PENDING" if endpoint else "NO_ENDPOINT",
            outcome=None,
            attempts=0,
            next_at=now.timestamp() if endpoint else None,
            give_up_at=None,
            last_status=None,
            transaction_id=transaction_id,
            version=0,
            created_at=now,
            updated_at=now,
        )
    )
    prune_events(db)
    return event_id
