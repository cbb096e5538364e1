"""A session's refresh (``POST /auth/sessions/{id}/refresh``): a signed retry
(``REFRESH_SESSION``, binding the body's ``clientPublicKey``) stamped by the session being
refreshed; then a new session of the same credential (a compressed key is the new session key;
an uncompressed one gets a fresh key sealed to it), and the old session ends."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ...signed_retry import Operation, VerifiedRetry
from ..db.tables_wallet import WalletSession
from ..services import Services
from .errors import INVALID_SIGNATURE, Refusal, not_found
from .wallet import RetryHeaders, find_credential, issue_session, lock_account, signed_step

__all__ = ["refresh_session"]


def _inactive() -> Refusal:
    return Refusal(401, "UNAUTHORIZED", "The session is no longer active; log in again.")


def refresh_session(
    db: Session,
    services: Services,
    session_id: str,
    client_public_key: str,
    headers: RetryHeaders,
) -> tuple[int, dict[str, Any]]:
    """202 and the challenge, then (the same body, stamped by this session's key) 201 and the
    new session. 404 for an unknown session, 401 for one that ended."""
    row = db.get(WalletSession, session_id)
    if row is None:
        raise not_found("No session has this id.")
    if row.revoked or row.expires_at <= services.clock.now():
        raise _inactive()
    step = signed_step(
        db,
        services,
        headers,
        account_id=row.account_id,
        operation=Operation.REFRESH_SESSION,
        parameters={},
        client_public_key=client_public_key,
    )
    if not isinstance(step, VerifiedRetry):
        return 202, step
    if step.session_public_key not in ("", row.public_key):  # "": the sandbox stamp
        raise Refusal(401, "UNAUTHORIZED", INVALID_SIGNATURE)
    lock_account(db, row.account_id)
    db.refresh(row)
    if row.revoked or row.expires_at <= services.clock.now():
        raise _inactive()
    credential = find_credential(db, row.auth_method_id)
    row.revoked = True  # first (autoflushed), so that the new session takes its place
    row.updated_at = services.clock.now()
    return 201, issue_session(db, services, credential, client_public_key)
