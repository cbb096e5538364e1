"""Platform authentication: HTTP Basic with ``<api token id>:<api client secret>``.

Pairs given with ``--platform-credentials ID:SECRET`` are stored (salted SHA-256 only). Without
any, the first start creates one pair, stores its hash and prints it once. A secret is compared
in constant time; the pairs are cached per process and re-read on an unknown id, so that pairs
stored by another process of the same database are found.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPBasic, HTTPBasicCredentials
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ._clock import Clock
from ._db import Database
from ._errors import ApiError
from ._models import PlatformCredential, ServiceSecret

__all__ = ["PLATFORM_SCOPE_KEY", "PlatformAuth", "platform_token", "require_platform"]

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
        with self._database.sessions() as session:
            for token_id, secret in pairs:
                salt = secrets.token_hex(16)
                row = session.get(PlatformCredential, token_id)
                if row is None:
                    row = PlatformCredential(id=token_id, created_at=Clock.now())
                    session.add(row)
                if row.secret_hash != _hash(row.salt or "", secret):
                    row.salt, row.secret_hash = salt, _hash(salt, secret)
            session.commit()
        created = None
        if not pairs:
            created = self._create_once()
        self._reload()
        return created

    def _create_once(self) -> tuple[str, str] | None:
        with self._database.sessions() as session:
            if session.scalars(select(PlatformCredential.id).limit(1)).first() is not None:
                return None
            token_id = f"sandbox_{secrets.token_hex(8)}"
            secret = secrets.token_urlsafe(24)
            salt = secrets.token_hex(16)
            session.add(ServiceSecret(name=_GENERATED_MARKER, value=token_id))
            session.add(
                PlatformCredential(
                    id=token_id, salt=salt, secret_hash=_hash(salt, secret), created_at=Clock.now()
                )
            )
            try:
                session.commit()
            except IntegrityError:  # another process made the pair first
                return None
        return token_id, secret

    def _reload(self) -> None:
        with self._database.sessions() as session:
            rows = session.scalars(select(PlatformCredential)).all()
            known = {row.id: _Stored(row.salt, row.secret_hash) for row in rows}
        with self._lock:
            self._known = known

    def check(self, token_id: str, secret: str) -> bool:
        stored = self._known.get(token_id)
        if stored is None:
            self._reload()
            stored = self._known.get(token_id)
        if stored is None:
            _hash("0" * 32, secret)  # the same work for an unknown id
            return False
        return hmac.compare_digest(_hash(stored.salt, secret), stored.secret_hash)


_CHALLENGE = {"WWW-Authenticate": 'Basic realm="ewc-sandbox"'}


def _unauthorized(reason: str) -> ApiError:
    return ApiError(401, "UNAUTHORIZED", reason, dict(_CHALLENGE))


_basic = HTTPBasic(auto_error=False, realm="ewc-sandbox")


def platform_token(auth: PlatformAuth, header: str | None) -> str:
    """The token id of valid platform Basic credentials in an ``Authorization`` header, or a
    401 :class:`ApiError`."""
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
    if not separator or not auth.check(token_id, secret):
        raise _unauthorized("Invalid platform credentials.")
    return token_id


#: Where the request gate leaves the token id it checked (``_gate.RequestGate``).
PLATFORM_SCOPE_KEY = "ewc.platform_token"


def require_platform(
    request: Request, basic: Annotated[HTTPBasicCredentials | None, Depends(_basic)]
) -> str:
    """FastAPI dependency: the platform's Basic credentials; returns the token id.

    ``basic`` only documents the scheme in the OpenAPI document; the header is read here, so
    that every failure has the service's error shape. The request gate has checked them before
    the route was reached (before the body was read); this takes its result.
    """
    del basic
    checked = request.scope.get(PLATFORM_SCOPE_KEY)
    if isinstance(checked, str):
        return checked
    return platform_token(request.app.state.platform_auth, request.headers.get("authorization"))
