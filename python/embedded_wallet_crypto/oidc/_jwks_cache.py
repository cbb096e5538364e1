"""``JwksCache``: the key-cache rules the sync and async providers share, without any I/O.

Where the keys come from (a ``jwks_uri``, an issuer's discovery document, or a static JWKS), how
long a key set is used, when a fetch may happen, how long the last good key set is served after
failed refreshes (``stale_if_error_seconds``), and what a response means.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from typing import Any

from .._contract import utf8
from ..errors import OidcError
from ._common import JWKS_INVALID, JWKS_UNAVAILABLE, config_error, fail, json_object
from ._http import MAX_DOCUMENT_BYTES, HttpResponse, cache_seconds, check_fetch_url, redacted_url
from ._keyset import KeySet

__all__ = ["LOGGER", "MAX_STALE_IF_ERROR_SECONDS", "JwksCache"]

#: The longest ``stale_if_error_seconds`` accepted: one day.
MAX_STALE_IF_ERROR_SECONDS = 86400.0
#: Where refresh failures are logged (WARNING); never with credentials or a query string.
LOGGER = logging.getLogger("embedded_wallet_crypto.oidc")


def _stale_seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, bool):
            raise config_error("stale_if_error_seconds must be a number of seconds, not a bool")
        raise TypeError(f"stale_if_error_seconds must be a number, not {type(value).__name__}")
    if isinstance(value, int):
        if not 0 <= value <= MAX_STALE_IF_ERROR_SECONDS:
            raise config_error(
                f"stale_if_error_seconds must be between 0 and {MAX_STALE_IF_ERROR_SECONDS:.0f}"
            )
        return float(value)
    if not (math.isfinite(value) and 0 <= value <= MAX_STALE_IF_ERROR_SECONDS):
        raise config_error(
            "stale_if_error_seconds must be a finite number between 0 and "
            f"{MAX_STALE_IF_ERROR_SECONDS:.0f}"
        )
    return value


class JwksCache:
    """The cache rules the sync and async providers share, without any I/O: where the keys
    come from, how long a key set is used, when a fetch may happen, how long the last good key
    set is served after failed refreshes, and what a response means."""

    def __init__(
        self,
        *,
        jwks_uri: str | None,
        issuer: str | None,
        discovery_url: str | None,
        jwks: Mapping[str, Any] | None,
        timeout: float,
        min_refetch_interval: float,
        default_cache_seconds: float,
        max_cache_seconds: float,
        stale_if_error_seconds: float,
        clock: Callable[[], float],
    ) -> None:
        sources = [s for s in (jwks_uri, issuer, discovery_url, jwks) if s is not None]
        if len(sources) != 1:
            raise config_error("give exactly one of jwks_uri, issuer, discovery_url and jwks")
        for name, url in (
            ("jwks_uri", jwks_uri),
            ("issuer", issuer),
            ("discovery_url", discovery_url),
        ):
            if url is not None:
                utf8(url, name, config_error)  # TypeError for a non-str, a lone surrogate refused
        if issuer is not None:
            discovery_url = issuer.rstrip("/") + "/.well-known/openid-configuration"
        for url in (jwks_uri, discovery_url):
            if url is not None and not check_fetch_url(url):
                raise config_error(
                    f"{url[:200]!r}: keys are fetched over https only (http to loopback)"
                )
        self.issuer = issuer
        self.discovery_url = discovery_url
        self._jwks_uri = jwks_uri
        self._timeout = timeout
        self._min_refetch_interval = min_refetch_interval
        self._default_cache_seconds = default_cache_seconds
        self._max_cache_seconds = max_cache_seconds
        self._stale_if_error = _stale_seconds(stale_if_error_seconds)
        self._clock = clock
        self._keys: KeySet | None = KeySet(jwks) if jwks is not None else None
        self._static = jwks is not None
        self._expires_at = float("inf")
        self._last_fetch: float | None = None
        self._last_error: OidcError | None = None
        #: How many fetches of the JWKS were attempted (for tests and monitoring).
        self.fetch_count = 0

    @property
    def jwks_uri(self) -> str | None:
        return self._jwks_uri

    @property
    def stale_if_error_seconds(self) -> float:
        """How long after expiry the last good key set is served while refreshes fail."""
        return self._stale_if_error

    def _fresh(self, now: float) -> KeySet | None:
        keys = self._keys
        return keys if keys is not None and now < self._expires_at else None

    def _rate_limited(self, now: float) -> KeySet | None:
        """Inside the refetch interval: the last error again, or the keys; None: fetch now."""
        if self._last_fetch is not None and now - self._last_fetch < self._min_refetch_interval:
            if self._last_error is not None:
                raise self._last_error
            if self._keys is not None:
                return self._keys
        return None

    def _start_fetch(self, now: float) -> None:
        self._last_fetch = now
        self.fetch_count += 1

    def _fetched(self, now: float, key_set: KeySet, lifetime: float) -> KeySet:
        self._keys, self._last_error = key_set, None
        self._expires_at = now + lifetime
        return key_set

    def _failed(self, now: float, error: OidcError) -> None:
        """Remember a failed fetch and log it (WARNING), once per fetch attempt."""
        self._last_error = error
        if self._keys is not None and now < self._expires_at:
            outcome = "the cached keys are still fresh"
        elif self._keys is not None and now < self._expires_at + self._stale_if_error:
            left = self._expires_at + self._stale_if_error - now
            outcome = f"serving the last good key set for at most {left:.0f} s more"
        else:
            outcome = "no usable key set: tokens are refused until a refresh succeeds"
        reason = error.reason
        for url in (self._jwks_uri, self.discovery_url):
            if url:
                reason = reason.replace(url, redacted_url(url))
        source = redacted_url(self._jwks_uri or self.discovery_url or "")
        LOGGER.warning(
            "JWKS refresh from %s failed (%s: %s); %s", source, error.code, reason, outcome
        )

    def _stale_or_raise(self, now: float, error: OidcError) -> KeySet:
        """After a failed refresh: the last good key set while inside the stale window."""
        if self._keys is not None and now < self._expires_at + self._stale_if_error:
            return self._keys
        raise error

    def _discovered(self, body: bytes) -> str:
        """The ``jwks_uri`` of a discovery document (remembered for later fetches)."""
        discovery = json_object(body, "discovery document", JWKS_INVALID)
        if self.issuer is not None and discovery.get("issuer") != self.issuer:
            fail(JWKS_INVALID, "the discovery document names another issuer")
        uri = discovery.get("jwks_uri")
        if not isinstance(uri, str) or not check_fetch_url(uri):
            fail(JWKS_INVALID, "the discovery document has no https jwks_uri")
        self._jwks_uri = uri
        return uri

    def _key_set(self, response: HttpResponse) -> tuple[KeySet, float]:
        document = json_object(self._bounded(response), "JWKS", JWKS_INVALID)
        key_set = KeySet(document)
        if not len(key_set):
            fail(JWKS_INVALID, f"the JWKS at {self._jwks_uri} has no usable signature key")
        lifetime = cache_seconds(
            response.header("Cache-Control"), self._default_cache_seconds, self._max_cache_seconds
        )
        return key_set, lifetime

    @staticmethod
    def _checked(url: str, response: HttpResponse) -> HttpResponse:
        if response.status != 200:
            fail(JWKS_UNAVAILABLE, f"{url} answered HTTP {response.status}")
        return response

    @staticmethod
    def _unreachable(url: str, error: Exception) -> OidcError:
        return OidcError(f"cannot fetch {url}: {type(error).__name__}", JWKS_UNAVAILABLE, 401)

    @staticmethod
    def _bounded(response: HttpResponse) -> bytes:
        if len(response.body) > MAX_DOCUMENT_BYTES:
            fail(JWKS_INVALID, f"the document is larger than {MAX_DOCUMENT_BYTES} bytes")
        return response.body
