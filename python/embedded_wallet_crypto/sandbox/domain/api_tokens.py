"""API tokens (``/tokens``): created, listed, read and deleted by the platform, and checked on
every request that takes platform credentials.

A token's HTTP Basic credentials are ``<clientId>:<clientSecret>`` (its ``id`` cannot be a
Basic user name: it has a colon). The secret is 192 random bits, shown once in
the answer to its creation and stored only as its HMAC-SHA256 under a random per-token salt;
secrets are compared in constant time. Every check reads the token's row (nothing is cached),
and a delete removes the row in one conditional ``DELETE``: once a delete has answered 204, the
token is refused by every process of the database, and of two deletes of one token exactly one
answers 204.

Permissions (``VIEW``, ``TRANSACT``, ``MANAGE``): one table, :data:`PERMISSION_RULES`, checked
by the request gate before anything else. Any token may read (``GET``); a change needs
``MANAGE`` on the sandbox's control plane (``/sandbox/reset``, ``/sandbox/faults``,
``/sandbox/clock/...``, ``/sandbox/requests``), ``TRANSACT`` for the money movements (quotes,
transfers, transactions, agent approvals, the sandbox's other simulations) and ``MANAGE`` for
everything else (configuration, tokens, customers, accounts, agents, KYC). A token without it
gets 403 ``FORBIDDEN``. A token creates only tokens with permissions it holds itself (``VIEW``
is held by every token; else 403 ``PERMISSION_NOT_HELD``). The platform credentials of
``ewc serve --platform-credentials`` hold every permission and are not tokens (not listed).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from typing import Any, Final

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ..clock import iso, parse_datetime
from ..db.engine import Database
from ..db.pages import PageRequest, page
from ..db.tables_platform import ApiToken
from ..services import Services
from .collection_caps import MAX_API_TOKENS, ensure_room, lock_platform
from .errors import Refusal, not_found
from .transaction_queries import created_between

__all__ = [
    "ALL_PERMISSIONS",
    "PERMISSION_RULES",
    "authenticate",
    "caller_permissions",
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
_READS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
#: The permission a change (any method but ``GET``, ``HEAD``, ``OPTIONS``) needs, by its path
#: under the base path: the first rule whose pattern matches; ``MANAGE`` when none does. Reads
#: need no permission past a valid token.
PERMISSION_RULES: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    # The control plane: wipes, faults, the clock (a fault or a reset locks others out).
    (re.compile(r"^/sandbox/(reset|faults|clock|requests)(/|$)"), "MANAGE"),
    # Money movements, and the sandbox's simulations of them.
    (re.compile(r"^/(quotes|transfer-in|transfer-out|transactions|sandbox)(/|$)"), "TRANSACT"),
    (re.compile(r"^/agents/[^/]+/actions/[^/]+/(approve|reject)$"), "TRANSACT"),
)
_ID_PREFIX: Final = "Token:"


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


def caller_permissions(db: Session, caller: str) -> frozenset[str]:
    """The permissions of the platform caller ``caller`` (as the gate checked it): an API
    token's, read in ``db``'s transaction (none once it is deleted), with ``VIEW`` (every token
    reads); every permission for the configured credentials (their ids have no colon: they are
    Basic user names)."""
    if not caller.startswith(_ID_PREFIX):
        return ALL_PERMISSIONS
    row = db.get(ApiToken, caller)
    return frozenset() if row is None else frozenset(row.permissions) | {"VIEW"}


def create_token(
    db: Session, services: Services, caller: str, name: str, permissions: list[str]
) -> dict[str, Any]:
    """A new token; the answer carries ``clientSecret``, which is never available again. 403
    ``PERMISSION_NOT_HELD`` when ``permissions`` has one the ``caller`` does not hold; 409
    ``COLLECTION_LIMIT_REACHED`` past :data:`MAX_API_TOKENS` (counted under the platform's lock)."""
    lacking = sorted(set(permissions) - caller_permissions(db, caller))
    if lacking:
        raise Refusal(
            403,
            "PERMISSION_NOT_HELD",
            "A token can only grant permissions its creator holds; this one lacks "
            + ", ".join(lacking)
            + ".",
        )
    lock_platform(db)
    ensure_room(db, select(ApiToken.id), MAX_API_TOKENS, "API tokens")
    ident = uuid.uuid4()
    secret = secrets.token_hex(_SECRET_BYTES)
    salt = secrets.token_hex(16)
    now = services.clock.now()
    row = ApiToken(
        id=f"{_ID_PREFIX}{ident}",
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
    """The tokens, oldest first; filters combine (bounds inclusive, as the customer list's:
    400 for a bound that is not ISO 8601 or has no UTC time)."""
    query = select(ApiToken)
    if name is not None:
        query = query.where(ApiToken.name == name)
    query = created_between(
        query,
        ApiToken.created_at,
        parse_datetime(created_after, "createdAfter"),
        parse_datetime(created_before, "createdBefore"),
    )
    query = created_between(
        query,
        ApiToken.updated_at,
        parse_datetime(updated_after, "updatedAfter"),
        parse_datetime(updated_before, "updatedBefore"),
    )
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
    needed = next((rule for pattern, rule in PERMISSION_RULES if pattern.search(path)), "MANAGE")
    if needed not in permissions:
        raise Refusal(403, "FORBIDDEN", f"This API token lacks the {needed} permission.")
