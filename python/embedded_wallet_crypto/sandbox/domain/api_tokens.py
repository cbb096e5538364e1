"""API tokens (``/tokens``): created, listed, read and deleted by the platform, and checked on
every request that takes platform credentials.

A token's HTTP Basic credentials are ``<clientId>:<clientSecret>`` (its ``id`` cannot be a
Basic user name: it has a colon). The secret is 192 random bits, shown once in
the answer to its creation and stored only as its HMAC-SHA256 under a random per-token salt;
secrets are compared in constant time. Every check reads the token's row (nothing is cached),
and a delete removes the row in one conditional ``DELETE``: once a delete has answered 204, the
token is refused by every process of the database, and of two deletes of one token exactly one
answers 204.

Permissions (``VIEW``, ``TRANSACT``, ``MANAGE``): any token may read (``GET``); a change needs
``TRANSACT`` for the money movements (quotes, transfers, transactions, agent approvals, the
sandbox's simulations) and ``MANAGE`` for everything else (configuration, tokens, customers,
accounts, agents, KYC). A token without it gets 403 ``FORBIDDEN``. The platform credentials of
``ewc serve --platform-credentials`` hold every permission and are not tokens (not listed).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from datetime import datetime
from typing import Any, Final

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ..clock import iso, parse_datetime
from ..db.engine import Database
from ..db.pages import PageRequest, page
from ..db.tables_platform import ApiToken
from ..services import Services
from .errors import Refusal, not_found

__all__ = [
    "ALL_PERMISSIONS",
    "authenticate",
    "create_token",
    "delete_token",
    "find_token",
    "list_tokens",
    "require_permission",
    "token_body",
]

ALL_PERMISSIONS: Final = frozenset({"VIEW", "TRANSACT", "MANAGE"})
_SECRET_BYTES: Final = 24
_CLIENT_ID: Final = re.compile(r"^[0-9a-f]{32}$")
#: Changes that move money (``TRANSACT``); every other change needs ``MANAGE``.
_TRANSACT = re.compile(
    r"^/(quotes|transfer-in|transfer-out|transactions|sandbox)(/|$)"
    r"|^/agents/[^/]+/actions/[^/]+/(approve|reject)$"
)
_READS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


def _digest(salt: str, secret: str) -> str:
    return hmac.new(
        bytes.fromhex(salt), secret.encode("utf-8", "surrogatepass"), hashlib.sha256
    ).hexdigest()


def token_body(row: ApiToken) -> dict[str, Any]:
    """The published ApiToken, without its secret."""
    return {
        "id": row.id,
        "name": row.name,
        "permissions": list(row.permissions),
        "clientId": row.client_id,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def create_token(
    db: Session, services: Services, name: str, permissions: list[str]
) -> dict[str, Any]:
    """A new token; the answer carries ``clientSecret``, which is never available again."""
    ident = uuid.uuid4()
    secret = secrets.token_hex(_SECRET_BYTES)
    salt = secrets.token_hex(16)
    now = services.clock.now()
    row = ApiToken(
        id=f"Token:{ident}",
        client_id=ident.hex,
        name=name,
        permissions=[p for p in ("VIEW", "TRANSACT", "MANAGE") if p in permissions],
        salt=salt,
        secret_hash=_digest(salt, secret),
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    return {**token_body(row), "clientSecret": secret}


def _missing() -> Refusal:
    return not_found("No API token has this id.", "TOKEN_NOT_FOUND")


def find_token(db: Session, token_id: str) -> dict[str, Any]:
    row = db.get(ApiToken, token_id)
    if row is None:
        raise _missing()
    return token_body(row)


def delete_token(db: Session, token_id: str) -> None:
    """Delete a token: one conditional ``DELETE`` decides (404 when it was already gone)."""
    removed = db.execute(delete(ApiToken).where(ApiToken.id == token_id))
    if getattr(removed, "rowcount", 0) != 1:
        raise _missing()


def _when(value: str | None, name: str) -> datetime | None:
    return parse_datetime(value, name)


def list_tokens(
    db: Session,
    request: PageRequest,
    *,
    name: str | None = None,
    created_after: str | None = None,
    created_before: str | None = None,
    updated_after: str | None = None,
    updated_before: str | None = None,
) -> dict[str, Any]:
    """The tokens, oldest first; filters combine (bounds inclusive)."""
    query = select(ApiToken)
    if name is not None:
        query = query.where(ApiToken.name == name)
    for value, field, column, after in (
        (created_after, "createdAfter", ApiToken.created_at, True),
        (created_before, "createdBefore", ApiToken.created_at, False),
        (updated_after, "updatedAfter", ApiToken.updated_at, True),
        (updated_before, "updatedBefore", ApiToken.updated_at, False),
    ):
        moment = _when(value, field)
        if moment is not None:
            query = query.where(column >= moment if after else column <= moment)
    return page(db, query, ApiToken, token_body, request)


def authenticate(database: Database, user: str, secret: str) -> tuple[str, frozenset[str]] | None:
    """The id and permissions of the token whose Basic credentials these are, or None (read
    from the database on every call: a deleted token is refused at once)."""
    if not _CLIENT_ID.fullmatch(user):
        return None
    with database.sessions() as db:
        row = db.scalars(select(ApiToken).where(ApiToken.client_id == user)).first()
        if row is None:
            _digest("00" * 16, secret)  # the same work for an unknown token
            return None
        if not hmac.compare_digest(_digest(row.salt, secret), row.secret_hash):
            return None
        return row.id, frozenset(row.permissions)


def require_permission(permissions: frozenset[str], method: str, path: str) -> None:
    """403 ``FORBIDDEN`` when a token's ``permissions`` do not allow ``method`` on ``path``
    (under the base path)."""
    if permissions >= ALL_PERMISSIONS or method.upper() in _READS:
        return
    needed = "TRANSACT" if _TRANSACT.search(path) else "MANAGE"
    if needed not in permissions:
        raise Refusal(403, "FORBIDDEN", f"This API token lacks the {needed} permission.")
