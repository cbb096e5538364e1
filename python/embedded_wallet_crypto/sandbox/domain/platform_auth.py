"""Platform authentication: HTTP Basic with ``<api token id>:<api client secret>``.

Pairs given with ``--platform-credentials ID:SECRET`` are stored (salted SHA-256 only). Without
any, the first start creates one pair, stores its hash and prints it once. A secret is compared
in constant time; the pairs are cached per process and re-read on an unknown id, so that pairs
stored by another process of the same database are found. These pairs hold every permission.

The API tokens the platform creates (``POST /tokens``, ``domain.api_tokens``) are Basic
credentials too: :meth:`PlatformAuth.authenticate` finds either kind.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..clock import Clock
from ..db.engine import Database
from ..db.tables_wallet import PlatformCredential, ServiceSecret
from . import api_tokens
from .errors import Refusal

__all__ = ["BASIC_REALM", "PlatformAuth", "basic_credentials", "invalid_credentials"]

#: The realm of the ``WWW-Authenticate`` challenge of every platform 401.
BASIC_REALM = "ewc-sandbox"

_GENERATED_MARKER = "platform-credentials-generated"


def _hash(salt: str, secret: str) -> str:
    return hashlib.sha256(f"{salt}\x00{secret}".encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class _Stored:
    salt: str
    secret_hash: str


class PlatformAuth:
    """The platform's Basic credentials, as stored in the database."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._lock = threading.Lock()
        self._known: dict[str, _Stored] = {}

    def setup(self, pairs: list[tuple[str, str]]) -> tuple[str, str] | None:
        """Store the configured pairs; with none and none stored, create one.

        Returns:
            The created ``(id, secret)`` pair (to print once), or None.
        """
        with self._database.sessions() as db:
            for token_id, secret in pairs:
                salt = secrets.token_hex(16)
                row = db.get(PlatformCredential, token_id)
                if row is None:
                    row = PlatformCredential(id=token_id, created_at=Clock.now())
                    db.add(row)
                if row.secret_hash != _hash(row.salt or "", secret):
                    row.salt, row.secret_hash = salt, _hash(salt, secret)
            db.commit()
        created = None
        if not pairs:
            created = self._create_once()
        self._reload()
        return created

    def _create_once(self) -> tuple[str, str] | None:
        with self._database.sessions() as db:
            if db.scalars(select(PlatformCredential.id).limit(1)).first() is not None:
                return None
            token_id = f"sandbox_{secrets.token_hex(8)}"
            secret = secrets.token_urlsafe(24)
            salt = secrets.token_hex(16)
            db.add(ServiceSecret(name=_GENERATED_MARKER, value=token_id))
            db.add(
                PlatformCredential(
                    id=token_id, salt=salt, secret_hash=_hash(salt, secret), created_at=Clock.now()
                )
            )
            try:
                db.commit()
            except IntegrityError:  # another process made the pair first
                return None
        return token_id, secret

    def _reload(self) -> None:
        with self._database.sessions() as db:
            rows = db.scalars(select(PlatformCredential)).all()
            known = {row.id: _Stored(row.salt, row.secret_hash) for row in rows}
        with self._lock:
            self._known = known

    def known(self, token_id: str) -> bool:
        """Whether ``token_id`` is in this process's cache (then :meth:`check` reads nothing)."""
        return token_id in self._known

    def check(self, token_id: str, secret: str) -> bool:
        """Whether ``secret`` is the secret of ``token_id``; an id not in the cache re-reads the
        stored pairs first (database work)."""
        stored = self._known.get(token_id)
        if stored is None:
            self._reload()
            stored = self._known.get(token_id)
        if stored is None:
            _hash("0" * 32, secret)  # the same work for an unknown id
            return False
        return hmac.compare_digest(_hash(stored.salt, secret), stored.secret_hash)

    def authenticate(self, user: str, secret: str) -> tuple[str, frozenset[str]] | None:
        """The caller (a configured pair's id, or an API token's id) and its permissions, or
        None for invalid credentials (database work: an API token is read on every call)."""
        if not self.known(user):
            found = api_tokens.authenticate(self._database, user, secret)
            if found is not None:
                return found
        if self.check(user, secret):
            return user, api_tokens.ALL_PERMISSIONS
        return None


def _unauthorized(reason: str) -> Refusal:
    return Refusal(
        401, "UNAUTHORIZED", reason, {"WWW-Authenticate": f'Basic realm="{BASIC_REALM}"'}
    )


def basic_credentials(header: str | None) -> tuple[str, str]:
    """The ``(token id, secret)`` of an ``Authorization: Basic`` header, or a 401
    :class:`Refusal` (missing, another scheme, not base64 of ``ID:SECRET``)."""
    if not header:
        raise _unauthorized("Platform credentials are required (HTTP Basic).")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        raise _unauthorized("Platform credentials must use HTTP Basic authentication.")
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise _unauthorized("The Basic credentials are not valid base64 of ID:SECRET.") from None
    token_id, separator, secret = decoded.partition(":")
    if not separator:
        raise _unauthorized("Invalid platform credentials.")
    return token_id, secret


def invalid_credentials() -> Refusal:
    """401: the id is unknown or the secret is not its secret."""
    return _unauthorized("Invalid platform credentials.")
