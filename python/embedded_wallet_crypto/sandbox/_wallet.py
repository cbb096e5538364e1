"""What the credential, session and export routes share: the embedded-wallet account, the
response bodies, sessions (both key flows) and the signed-retry steps.

A change that a rule of the account must allow (the first credential unsigned, every later one
signed; at least one credential kept; only active sessions sign) is decided under the
account's row lock (:func:`lock_account`), in the transaction that commits the change, after
the signed retry was verified: the request id is claimed in the store, outside that
transaction, so the checks made before the claim are made again under the lock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastapi import Request
from sqlalchemy import select
from sqlalchemy.orm import Session

from ..keys import KeyPair, compress_public_key, parse_public_key
from ..session import seal_session_key
from ..signed_retry import Operation, VerifiedRetry
from ._clock import iso
from ._db import lock
from ._errors import INVALID_SIGNATURE, ApiError
from ._ids import id_part, new_id
from ._models import AuthMethod, InternalAccount, WalletSession
from ._services import SESSION_SECONDS, Services

__all__ = [
    "SIGNATURE_HEADERS",
    "auth_method_body",
    "credential_ids",
    "ensure_signer_active",
    "find_wallet",
    "issue_session",
    "lock_account",
    "retry_headers",
    "session_body",
    "session_keys",
    "signed_step",
]

#: The stamp header, and the name the real service also accepts for it.
SIGNATURE_HEADERS = ("Service-Wallet-Signature", "Grid-Wallet-Signature")
CLIENT_PUBLIC_KEY_PATTERN = r"^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$"
UNCOMPRESSED_KEY_PATTERN = r"^04[0-9a-fA-F]{128}$"


def find_wallet(session: Session, account_id: str) -> InternalAccount:
    """The EMBEDDED_WALLET account named ``InternalAccount:<id>`` or ``EmbeddedWallet:<id>``."""
    part = id_part(account_id, "InternalAccount", "EmbeddedWallet")
    account = session.get(InternalAccount, f"InternalAccount:{part}") if part else None
    if account is None or account.type != "EMBEDDED_WALLET":
        raise ApiError(404, "NOT_FOUND", "No embedded-wallet account has this id.")
    return account


def lock_account(session: Session, account_id: str) -> InternalAccount:
    """Lock the account's row until the transaction ends: of concurrent changes to one
    account's credentials and sessions (also from other processes) each decides after the
    previous one committed. Take it after the signed retry is verified: on SQLite the store
    shares the database file, and the lock holds the file's write lock."""
    account = session.get(InternalAccount, account_id)
    if account is None:
        raise ApiError(404, "NOT_FOUND", "No embedded-wallet account has this id.")
    lock(session, account)
    return account


def credential_ids(session: Session, account_id: str) -> dict[str, str]:
    """The account's credentials as they are now: id -> type."""
    rows = session.execute(
        select(AuthMethod.id, AuthMethod.type).where(AuthMethod.account_id == account_id)
    )
    return {row.id: row.type for row in rows}


def ensure_signer_active(
    session: Session, services: Services, account_id: str, retry: VerifiedRetry
) -> None:
    """Under the account's lock: the session that signed ``retry`` is still active (a revoke
    of it, or of its credential, may have committed since the retry was verified). Refused
    as the retry would have been refused had it come a moment later: 401 UNAUTHORIZED."""
    if retry.session_public_key == "":  # the sandbox stamp names no session
        return
    if retry.session_public_key not in session_keys(session, account_id, services.clock.now()):
        raise ApiError(401, "UNAUTHORIZED", INVALID_SIGNATURE)


def find_credential(session: Session, credential_id: str) -> AuthMethod:
    credential = session.get(AuthMethod, credential_id)
    if credential is None:
        raise ApiError(404, "NOT_FOUND", "No credential has this id.")
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


def active_sessions(session: Session, account_id: str, now: datetime) -> list[WalletSession]:
    return list(
        session.scalars(
            select(WalletSession)
            .where(WalletSession.account_id == account_id)
            .where(WalletSession.revoked.is_(False))
            .where(WalletSession.expires_at > now)
            .order_by(WalletSession.created_at)
        )
    )


def session_keys(session: Session, account_id: str, now: datetime) -> dict[str, str | None]:
    """The account's active session keys -> the credential that issued each."""
    return {row.public_key: row.auth_method_id for row in active_sessions(session, account_id, now)}


def issue_session(
    session: Session, services: Services, credential: AuthMethod, client_public_key: str
) -> dict[str, Any]:
    """A new session for ``credential``: an uncompressed ``clientPublicKey`` gets a fresh
    session key sealed to it (``encryptedSessionSigningKey``); a compressed one is itself the
    session key (the client-held-key flow; nothing is returned)."""
    raw = parse_public_key(client_public_key)  # InvalidKey (400) for a bad point
    sealed = None
    if len(client_public_key) == 130:  # uncompressed SEC1 hex (the body's pattern)
        key = KeyPair.generate()
        sealed = seal_session_key(raw, key)
        public_key = key.public_key_hex(compressed=True)
    else:
        public_key = compress_public_key(raw).hex()
        reused = session.scalars(
            select(WalletSession.id).where(WalletSession.public_key == public_key).limit(1)
        ).first()
        if reused is not None:
            raise ApiError(
                400,
                "CLIENT_PUBLIC_KEY_REUSED",
                "This clientPublicKey already named a session; generate a fresh key.",
            )
    now = services.clock.now()
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
    session.add(row)
    session.commit()
    return session_body(row, sealed)


@dataclass(frozen=True)
class RetryHeaders:
    stamp: str | None
    request_id: str | None

    @property
    def present(self) -> bool:
        return bool(self.stamp) or bool(self.request_id)


def retry_headers(request: Request) -> RetryHeaders:
    stamp = None
    for name in SIGNATURE_HEADERS:
        value = request.headers.get(name)
        if value:
            stamp = value
            break
    return RetryHeaders(stamp=stamp, request_id=request.headers.get("Request-Id") or None)


def signed_step(
    session: Session,
    services: Services,
    request: Request,
    *,
    account_id: str,
    operation: Operation,
    parameters: dict[str, Any],
    credential_type: str | None = None,
    client_public_key: str | None = None,
) -> VerifiedRetry | dict[str, str]:
    """Either leg of a signed retry: without signature headers, the 202 challenge body (a
    dict); with them, the verified retry (its request id now used)."""
    headers = retry_headers(request)
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
        account_session_keys=session_keys(session, account_id, services.clock.now()),
        request_body_client_public_key=client_public_key,
        account_id=account_id,
        expected_operation=operation,
        expected_parameters=parameters,
    )
