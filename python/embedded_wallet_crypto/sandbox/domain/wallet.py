"""The embedded-wallet account: the account and its lock, the credential and session bodies,
sessions (both key flows, the list, the revoke) and the signed-retry steps that credentials,
sessions and the export share.

A change that a rule of the account must allow (the first credential unsigned, every later one
signed; at least one credential kept; only active sessions sign) is decided under the
account's row lock (:func:`lock_account`), in the transaction that commits the change, after
the signed retry was verified: the request id is claimed in the store, outside that
transaction, so the checks made before the claim are made again under the lock.

An account has at most :data:`MAX_ACTIVE_SESSIONS` active sessions, Turnkey's limit on a
user's expiring API keys (which session keys are): a new session past it ends the oldest
active one, as Turnkey deletes the oldest unexpired key. It is decided under the account's
lock too, so that concurrent logins (in any process) never leave more."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...keys import compress_public_key, parse_public_key
from ...session import seal_session_key
from ...signed_retry import Operation, VerifiedRetry
from ..clock import iso
from ..db.engine import lock
from ..db.tables_wallet import AuthMethod, InternalAccount, WalletSession
from ..ids import id_part, new_id, new_key_pair
from ..services import SESSION_SECONDS, Services
from .errors import INVALID_SIGNATURE, Refusal, invalid, not_found

__all__ = [
    "MAX_ACTIVE_SESSIONS",
    "RetryHeaders",
    "active_sessions",
    "auth_method_body",
    "credential_ids",
    "ensure_signer_active",
    "find_credential",
    "find_wallet",
    "issue_session",
    "list_sessions",
    "lock_account",
    "no_wallet",
    "retry_step",
    "revoke_session",
    "session_body",
    "session_keys",
    "signed_step",
    "wallet_id",
]


def no_wallet() -> Refusal:
    """404: no embedded-wallet account has the id."""
    return not_found("No embedded-wallet account has this id.")


def wallet_id(account_id: str) -> str:
    """The stored id (``InternalAccount:<id>``) of an account named ``InternalAccount:<id>`` or
    ``EmbeddedWallet:<id>``; a 404 :class:`Refusal` for any other name."""
    part = id_part(account_id, "InternalAccount", "EmbeddedWallet")
    if not part:
        raise no_wallet()
    return f"InternalAccount:{part}"


def find_wallet(db: Session, account_id: str) -> InternalAccount:
    """The EMBEDDED_WALLET account named ``InternalAccount:<id>`` or ``EmbeddedWallet:<id>``."""
    account = db.get(InternalAccount, wallet_id(account_id))
    if account is None or account.type != "EMBEDDED_WALLET":
        raise no_wallet()
    return account


def lock_account(db: Session, account_id: str) -> InternalAccount:
    """Lock the account's row until the transaction ends: of concurrent changes to one
    account's credentials and sessions (also from other processes) each decides after the
    previous one committed. Take it after the signed retry is verified: on SQLite the store
    shares the database file, and the lock holds the file's write lock."""
    account = db.get(InternalAccount, account_id)
    if account is None:
        raise no_wallet()
    lock(db, account)
    return account


def credential_ids(db: Session, account_id: str) -> dict[str, str]:
    """The account's credentials as they are now: id -> type."""
    rows = db.execute(
        select(AuthMethod.id, AuthMethod.type).where(AuthMethod.account_id == account_id)
    )
    return {row.id: row.type for row in rows}


def ensure_signer_active(
    db: Session, services: Services, account_id: str, retry: VerifiedRetry
) -> None:
    """Under the account's lock: the session that signed ``retry`` is still active (a revoke
    of it, or of its credential, may have committed since the retry was verified). Refused
    as the retry would have been refused had it come a moment later: 401 UNAUTHORIZED."""
    if retry.session_public_key == "":  # the sandbox stamp names no session
        return
    if retry.session_public_key not in session_keys(db, account_id, services.clock.now()):
        raise Refusal(401, "UNAUTHORIZED", INVALID_SIGNATURE)


def find_credential(db: Session, credential_id: str) -> AuthMethod:
    credential = db.get(AuthMethod, credential_id)
    if credential is None:
        raise not_found("No credential has this id.")
    return credential


def auth_method_body(credential: AuthMethod) -> dict[str, Any]:
    return {
        "id": credential.id,
        "accountId": credential.account_id,
        "type": credential.type,
        "nickname": credential.nickname,
        "createdAt": iso(credential.created_at),
        "updatedAt": iso(credential.updated_at),
    }


def session_body(row: WalletSession, sealed: str | None = None) -> dict[str, Any]:
    body = {
        "id": row.id,
        "accountId": row.account_id,
        "type": row.type,
        "nickname": row.nickname,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
        "expiresAt": iso(row.expires_at),
    }
    if sealed is not None:
        body["encryptedSessionSigningKey"] = sealed
    return body


#: The most active sessions one account keeps (a login past it ends the oldest).
MAX_ACTIVE_SESSIONS: Final = 10


def active_sessions(db: Session, account_id: str, now: datetime) -> list[WalletSession]:
    """The account's sessions that are neither revoked nor expired, oldest first."""
    return list(
        db.scalars(
            select(WalletSession)
            .where(WalletSession.account_id == account_id)
            .where(WalletSession.revoked.is_(False))
            .where(WalletSession.expires_at > now)
            .order_by(WalletSession.created_at)
        )
    )


def session_keys(db: Session, account_id: str, now: datetime) -> dict[str, str | None]:
    """The account's active session keys -> the credential that issued each (two columns, no
    session objects loaded)."""
    rows = db.execute(
        select(WalletSession.public_key, WalletSession.auth_method_id)
        .where(WalletSession.account_id == account_id)
        .where(WalletSession.revoked.is_(False))
        .where(WalletSession.expires_at > now)
        .order_by(WalletSession.created_at)
    )
    return {row.public_key: row.auth_method_id for row in rows}


def issue_session(
    db: Session, services: Services, credential: AuthMethod, client_public_key: str
) -> dict[str, Any]:
    """A new session for ``credential``: an uncompressed ``clientPublicKey`` gets a fresh
    session key sealed to it (``encryptedSessionSigningKey``); a compressed one is itself the
    session key (the client-held-key flow; nothing is returned). Past
    :data:`MAX_ACTIVE_SESSIONS`, the account's oldest active session ends (under the account's
    lock, in this transaction)."""
    raw = parse_public_key(client_public_key)  # InvalidKey (400) for a bad point
    sealed = None
    if len(client_public_key) == 130:  # uncompressed SEC1 hex (the body's pattern)
        key = new_key_pair("session")
        sealed = seal_session_key(raw, key)
        public_key = key.public_key_hex(compressed=True)
    else:
        public_key = compress_public_key(raw).hex()
        reused = db.scalars(
            select(WalletSession.id).where(WalletSession.public_key == public_key).limit(1)
        ).first()
        if reused is not None:
            raise invalid(
                "This clientPublicKey already named a session; generate a fresh key.",
                "CLIENT_PUBLIC_KEY_REUSED",
            )
    now = services.clock.now()
    lock_account(db, credential.account_id)
    active = active_sessions(db, credential.account_id, now)
    for oldest in active[: max(0, len(active) - MAX_ACTIVE_SESSIONS + 1)]:
        oldest.revoked = True
        oldest.updated_at = now
    row = WalletSession(
        id=new_id("Session"),
        account_id=credential.account_id,
        auth_method_id=credential.id,
        type=credential.type,
        nickname=credential.nickname,
        public_key=public_key,
        created_at=now,
        updated_at=now,
        expires_at=services.clock.later(SESSION_SECONDS),
        revoked=False,
    )
    db.add(row)
    return session_body(row, sealed)


@dataclass(frozen=True)
class RetryHeaders:
    """A request's ``Service-Wallet-Signature`` (the stamp) and ``Request-Id`` headers."""

    stamp: str | None = None
    request_id: str | None = None

    @property
    def present(self) -> bool:
        return bool(self.stamp) or bool(self.request_id)


def signed_step(
    db: Session,
    services: Services,
    headers: RetryHeaders,
    *,
    account_id: str,
    operation: Operation,
    parameters: dict[str, Any],
    credential_type: str | None = None,
    client_public_key: str | None = None,
) -> VerifiedRetry | dict[str, str]:
    """Either leg of a signed retry: without signature headers, the 202 challenge body (a
    dict); with them, the verified retry (its request id now used), the account's session keys
    read in ``db``."""
    keys = session_keys(db, account_id, services.clock.now()) if headers.present else {}
    return retry_step(
        services,
        headers,
        keys,
        account_id=account_id,
        operation=operation,
        parameters=parameters,
        credential_type=credential_type,
        client_public_key=client_public_key,
    )


def retry_step(
    services: Services,
    headers: RetryHeaders,
    keys: dict[str, str | None],
    *,
    account_id: str,
    operation: Operation,
    parameters: dict[str, Any],
    credential_type: str | None = None,
    client_public_key: str | None = None,
) -> VerifiedRetry | dict[str, str]:
    """:func:`signed_step` with the account's active session keys (key -> credential) already
    read (unused on the first leg)."""
    if not headers.present:
        challenge = services.signed_retry.issue(
            account_id=account_id,
            operation=operation,
            parameters=parameters,
            organization_id=services.organization_id,
            bound_client_public_key=client_public_key,
            credential_type=credential_type,
        )
        return challenge.to_response()
    return services.signed_retry.verify(
        request_id=headers.request_id,
        stamp=headers.stamp,
        account_session_keys=keys,
        request_body_client_public_key=client_public_key,
        account_id=account_id,
        expected_operation=operation,
        expected_parameters=parameters,
    )


def list_sessions(db: Session, services: Services, account_id: str) -> dict[str, Any]:
    """The account's active sessions (never their keys); empty for an unknown account."""
    try:
        account = find_wallet(db, account_id)
    except Refusal:
        return {"data": []}
    rows = active_sessions(db, account.id, services.clock.now())
    return {"data": [session_body(row) for row in rows]}


def _no_session() -> Refusal:
    return not_found("No active session has this id.")


def revoke_session(
    db: Session, services: Services, session_id: str, headers: RetryHeaders
) -> dict[str, str] | None:
    """Revoke a session by signed retry, signed by an active session of the same account (the
    session itself included): the 202 challenge body, or None once revoked. 404 when the
    session is not active."""
    row = db.get(WalletSession, session_id)
    now = services.clock.now()
    if row is None or row.revoked or row.expires_at <= now:
        raise _no_session()
    step = signed_step(
        db,
        services,
        headers,
        account_id=row.account_id,
        operation=Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": [row.id], "userId": row.account_id},
        credential_type=row.type,
    )
    if not isinstance(step, VerifiedRetry):
        return step
    # Decided again under the account's lock: a concurrent revoke (of this session, of the
    # signing one, or of its credential) may have committed since the retry was verified.
    lock_account(db, row.account_id)
    db.refresh(row)
    if row.revoked:
        raise _no_session()
    ensure_signer_active(db, services, row.account_id, step)
    row.revoked = True
    row.updated_at = now
    return None
