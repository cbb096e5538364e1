"""OIDC ID tokens: the OAUTH credential (the API reference, formats.md section 7).

A server trusts an ID token only when all of these hold: the signature verifies with the
issuer's keys (RS256 or ES256; ``none`` and HMAC never), ``iss`` is allowed, ``aud`` is this
platform, ``exp`` is in the future, ``iat`` is at most 60 s old (and at most 5 s ahead), and,
with a clientPublicKey, ``nonce`` (or ``tknonce``) is :func:`nonce_for` of it.

- :func:`verify_id_token`: the verify call. :func:`verify_create_token`: the create call,
  whose sandbox form skips the signature (:func:`check_token_shape`) through ``ewc.policy``.
- :class:`JwksProvider`: an issuer's keys by discovery or ``jwks_uri``, cached per
  ``Cache-Control``, refetched once (rate-limited) for an unknown ``kid``, optionally served
  stale for a bounded time while refreshes fail (``stale_if_error_seconds``); or a static JWKS.
- ``AsyncJwksProvider`` and ``verify_id_token_async`` (in :mod:`embedded_wallet_crypto.oidc.aio`,
  loaded on first use; the ``async`` extra, httpx): the same for asyncio servers.

JWS itself is PyJWT's; ES256 signatures are checked by the core (``_jws``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._claims import DEFAULT_ISSUERS, SANDBOX_TOKEN, OidcIdentity, nonce_for
from ._common import MAX_TOKEN_LENGTH
from ._http import HttpGet, HttpResponse, urllib_get
from ._jwks import JwksProvider
from ._jwks_cache import MAX_STALE_IF_ERROR_SECONDS
from ._jws import DEFAULT_ALGORITHMS, SUPPORTED_ALGORITHMS
from ._keyset import KeySource
from ._verify import check_token_shape, verify_create_token, verify_id_token

if TYPE_CHECKING:
    from .aio import AsyncJwksProvider, verify_id_token_async

# The asyncio names load httpx (the ``async`` extra): imported on first use only.
_ASYNC_NAMES = frozenset({"AsyncJwksProvider", "verify_id_token_async"})


def __getattr__(name: str) -> Any:
    if name not in _ASYNC_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    aio = importlib.import_module(".aio", __name__)
    aio.require_httpx()  # an ImportError naming the extra when httpx is missing
    value = getattr(aio, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _ASYNC_NAMES)


__all__ = [
    "DEFAULT_ALGORITHMS",
    "DEFAULT_ISSUERS",
    "MAX_STALE_IF_ERROR_SECONDS",
    "MAX_TOKEN_LENGTH",
    "SANDBOX_TOKEN",
    "SUPPORTED_ALGORITHMS",
    "AsyncJwksProvider",
    "HttpGet",
    "HttpResponse",
    "JwksProvider",
    "KeySource",
    "OidcIdentity",
    "check_token_shape",
    "nonce_for",
    "urllib_get",
    "verify_create_token",
    "verify_id_token",
    "verify_id_token_async",
]
