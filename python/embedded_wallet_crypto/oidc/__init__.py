"""OIDC ID tokens: the OAUTH credential (the API reference, formats.md section 7).

A server trusts an ID token only when all of these hold: the signature verifies with the
issuer's keys (RS256 or ES256; ``none`` and HMAC never), ``iss`` is allowed, ``aud`` is this
platform, ``exp`` is in the future, ``iat`` is at most 60 s old (and at most 5 s ahead), and,
with a clientPublicKey, ``nonce`` (or ``tknonce``) is :func:`nonce_for` of it.

- :func:`verify_id_token`: the verify call. :func:`verify_create_token`: the create call,
  whose sandbox form skips the signature (:func:`check_token_shape`) through ``ewc.policy``.
- :class:`JwksProvider`: an issuer's keys by discovery or ``jwks_uri``, cached per
  ``Cache-Control``, refetched once (rate-limited) for an unknown ``kid``; or a static JWKS.

JWS itself is PyJWT's; ES256 signatures are checked by the core (``_jws``).
"""

from __future__ import annotations

from ._claims import DEFAULT_ISSUERS, SANDBOX_TOKEN, OidcIdentity, nonce_for
from ._common import MAX_TOKEN_LENGTH
from ._jwks import HttpGet, HttpResponse, JwksProvider, urllib_get
from ._jws import DEFAULT_ALGORITHMS, SUPPORTED_ALGORITHMS
from ._keyset import KeySource
from ._verify import check_token_shape, verify_create_token, verify_id_token

__all__ = [
    "DEFAULT_ALGORITHMS",
    "DEFAULT_ISSUERS",
    "MAX_TOKEN_LENGTH",
    "SANDBOX_TOKEN",
    "SUPPORTED_ALGORITHMS",
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
]
