"""``Idempotency-Key`` for every operation that takes it, as the IETF draft
draft-ietf-httpapi-idempotency-key-header describes: one mechanism, decided by the database (the
key is unique per caller), so that it holds across requests and processes on one database.

- The key (1 to 255 characters, opaque) belongs to the authenticated caller (the platform
  credential, or the agent) and is bound to a fingerprint of its first request: the method, the
  path, and the SHA-256 of the body in canonical JSON (members sorted, no spaces; a body that is
  not JSON counts as its bytes).
- The first request claims the key (an insert, committed at once) and stores its response in the
  same database transaction as the work it did; a repeat then gets that response, status and
  body, with ``Idempotent-Replayed: true``.
- The key with another request: 422 ``IDEMPOTENCY_KEY_REUSED``. A repeat while the first is still
  running: 409 ``IDEMPOTENCY_REQUEST_IN_PROGRESS`` (with ``Retry-After``), so the work runs
  once. A first request that fails (an error answer) stores nothing: the key is free again.
- A stored response is kept for the retention (``--idempotency-retention``, 24 hours by
  default, simulated seconds scaled by ``--time-scale``); then the key is free for any request.
  A claim whose process died is free again after :data:`LEASE_SECONDS`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..clock import Clock
from ..db.engine import Database
from ..db.tables_payments import IdempotencyRecord
from .errors import Refusal, invalid

__all__ = [
    "LEASE_SECONDS",
    "MAX_KEY_LENGTH",
    "Answer",
    "KeyedRequest",
    "keyed_request",
    "once",
    "purge_expired",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: How long a claim holds while its first request runs (real seconds): after that, a claim
#: whose process died (or whose request hangs) no longer blocks the key.
LEASE_SECONDS = 60.0
#: The longest key.
MAX_KEY_LENGTH = 255
_DONE, _RUNNING = "DONE", "IN_PROGRESS"


@dataclass(frozen=True)
class KeyedRequest:
    """A request with an ``Idempotency-Key``: the key, the request's fingerprint, and where
    and how long its response is kept."""

    key: str
    fingerprint: str
    database: Database
    retention_seconds: float


@dataclass(frozen=True)
class Answer:
    """An operation's answer: its status and body, and whether it is a stored one replayed."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


def _canonical_body(body: bytes) -> bytes:
    try:
        parsed = json.loads(body)
    except ValueError:  # not JSON (the operation refuses it): its bytes
        return b"raw:" + body
    return b"json:" + json.dumps(
        parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8", "surrogatepass")


def keyed_request(
    key: str, method: str, path: str, body: bytes, database: Database, retention_seconds: float
) -> KeyedRequest:
    """The key of a request and the fingerprint of the request (method, path, canonical body)."""
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise invalid(f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters.")
    body_hash = hashlib.sha256(_canonical_body(body)).hexdigest()
    fingerprint = hashlib.sha256(
        "\n".join((method, path, body_hash)).encode("utf-8", "surrogatepass")
    ).hexdigest()
    return KeyedRequest(key, fingerprint, database, retention_seconds)


def _in_progress() -> Refusal:
    return Refusal(
        409,
        "IDEMPOTENCY_REQUEST_IN_PROGRESS",
        "A request with this Idempotency-Key is still running; retry it shortly.",
        {"Retry-After": "1"},
    )


def _claim(keyed: KeyedRequest, caller: str, token: str) -> tuple[int, Any] | None:
    """Claim the key for this request (None), or the stored response to replay; raises 422 or
    409. Decided by the database: the insert of the key, or a conditional update of an
    expired one, succeeds for one request only."""
    for _ in range(3):
        with keyed.database.sessions() as db:
            now = Clock.now()
            claim = {
                "fingerprint": keyed.fingerprint,
                "state": _RUNNING,
                "token": token,
                "status": None,
                "body": None,
                "created_at": now,
                "expires_at": now + timedelta(seconds=LEASE_SECONDS),
            }
            db.add(IdempotencyRecord(caller=caller, key=keyed.key, **claim))
            try:
                db.commit()
                return None
            except IntegrityError:
                db.rollback()
        with keyed.database.sessions() as db:
            row = db.get(IdempotencyRecord, (caller, keyed.key))
            if row is None:
                continue  # released meanwhile: claim again
            if row.expires_at <= now:  # an expired response, or a lapsed claim: take it over
                taken = db.execute(
                    update(IdempotencyRecord)
                    .where(IdempotencyRecord.caller == caller)
                    .where(IdempotencyRecord.key == keyed.key)
                    .where(IdempotencyRecord.token == row.token)
                    .values(**claim)
                    .execution_options(synchronize_session=False)
                )
                db.commit()
                if getattr(taken, "rowcount", 0) == 1:
                    return None
                continue
            if row.fingerprint != keyed.fingerprint:
                raise Refusal(
                    422,
                    "IDEMPOTENCY_KEY_REUSED",
                    "This Idempotency-Key was used with another request (method, path or body).",
                )
            if row.state == _DONE and row.status is not None and row.body is not None:
                return row.status, json.loads(row.body)
            raise _in_progress()
    raise _in_progress()


def _release(keyed: KeyedRequest, caller: str, token: str) -> None:
    """Free the key of a first request that failed (if the claim is still this request's)."""
    with keyed.database.sessions() as db:
        db.execute(
            delete(IdempotencyRecord)
            .where(IdempotencyRecord.caller == caller)
            .where(IdempotencyRecord.key == keyed.key)
            .where(IdempotencyRecord.token == token)
        )
        db.commit()


def once(
    db: Session,
    caller: str,
    keyed: KeyedRequest | None,
    produce: Callable[[], tuple[int, dict[str, Any]]],
) -> Answer:
    """Answer ``produce()`` (status and body) once per key of ``caller``; commits ``db``.

    Without a key, ``produce`` runs and its answer is returned. With one, see the module: the
    stored response is replayed, or 422 ``IDEMPOTENCY_KEY_REUSED``, or 409
    ``IDEMPOTENCY_REQUEST_IN_PROGRESS``; an error of ``produce`` frees the key again.
    """
    if keyed is None:
        status, body = produce()
        db.commit()
        return Answer(status, body)
    token = secrets.token_hex(16)
    stored = _claim(keyed, caller, token)
    if stored is not None:
        return Answer(stored[0], stored[1], replayed=True)
    try:
        status, body = produce()
        kept = db.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.caller == caller)
            .where(IdempotencyRecord.key == keyed.key)
            .where(IdempotencyRecord.token == token)
            .values(
                state=_DONE,
                status=status,
                body=json.dumps(body, separators=(",", ":")),
                expires_at=Clock.now() + timedelta(seconds=keyed.retention_seconds),
            )
            .execution_options(synchronize_session=False)
        )
        if getattr(kept, "rowcount", 0) != 1:  # the claim lapsed and another request took it
            raise _in_progress()
        db.commit()
    except BaseException:
        db.rollback()
        try:
            _release(keyed, caller, token)
        except Exception:  # the claim then lapses after LEASE_SECONDS
            logger.exception("could not free an idempotency key")
        raise
    return Answer(status, body)


def purge_expired(database: Database, now: datetime | None = None) -> int:
    """Delete the keys whose retention (or lapsed claim) has ended; returns how many."""
    moment = now or Clock.now()
    with database.sessions() as db:
        gone = db.execute(delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= moment))
        db.commit()
        return int(getattr(gone, "rowcount", 0) or 0)
