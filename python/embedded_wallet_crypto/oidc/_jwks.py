"""``JwksProvider``: an issuer's signing keys, fetched over HTTPS and cached.

The keys come from a configured ``jwks_uri``, from the issuer's discovery document (OpenID
Connect Discovery 1.0 section 4), or from a static JWKS (offline, never fetched). Fetches go
through an injectable HTTP getter (``_http.py``; the default uses ``urllib`` from the standard
library); the cache rules are ``JwksCache``'s (``_jwks_cache.py``), shared with the asyncio
provider.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import OidcError
from ._http import HttpGet, HttpResponse, urllib_get
from ._jwks_cache import JwksCache
from ._keyset import KeySet

__all__ = ["JwksProvider"]


class JwksProvider(JwksCache):
    """An issuer's JWKS, fetched through its discovery document or a configured URL, cached.

    - The keys are kept for the response's ``Cache-Control: max-age`` (``default_cache_seconds``
      without one, at most ``max_cache_seconds``), then fetched again at the next use.
    - A token whose ``kid`` is not in the cached set makes the provider refetch once, but never
      sooner than ``min_refetch_interval`` seconds after the previous fetch (an attacker sending
      random ``kid`` values cannot make it hammer the issuer). The same interval spaces out
      retries after a failed fetch.
    - ``stale_if_error_seconds``: when the keys have expired and the refresh fails (the issuer
      is down, answers 500 or serves garbage), the last good key set is still used for at most
      this long after its expiry (RFC 5861's ``stale-if-error``), then tokens are refused until
      a refresh succeeds. Each failed fetch is logged at WARNING on the
      ``embedded_wallet_crypto.oidc`` logger (no credentials or query strings). The default, 0,
      refuses as soon as a refresh after expiry fails.
    - With a static ``jwks`` it works offline and never fetches.
    - Thread-safe: one fetch at a time; other threads wait for it and use its result.

    For asyncio servers, :class:`AsyncJwksProvider` has the same rules without blocking I/O.
    """

    def __init__(
        self,
        *,
        jwks_uri: str | None = None,
        issuer: str | None = None,
        discovery_url: str | None = None,
        jwks: Mapping[str, Any] | None = None,
        http_get: HttpGet | None = None,
        timeout: float = 5.0,
        min_refetch_interval: float = 30.0,
        default_cache_seconds: float = 300.0,
        max_cache_seconds: float = 86400.0,
        stale_if_error_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Give exactly one source: ``jwks_uri``, ``issuer`` (its discovery document at
        ``issuer + "/.well-known/openid-configuration"``, whose ``issuer`` must match),
        ``discovery_url``, or a static ``jwks`` document.

        Raises:
            OidcError: ``OIDC_CONFIG_INVALID`` (also a ValueError): not exactly one source, a
                URL that is not https (http only to a loopback host), or a
                ``stale_if_error_seconds`` that is negative, NaN, a bool or over a day.
            OidcError: ``OIDC_JWKS_INVALID`` for a static ``jwks`` that is not a JWKS.
        """
        super().__init__(
            jwks_uri=jwks_uri,
            issuer=issuer,
            discovery_url=discovery_url,
            jwks=jwks,
            timeout=timeout,
            min_refetch_interval=min_refetch_interval,
            default_cache_seconds=default_cache_seconds,
            max_cache_seconds=max_cache_seconds,
            stale_if_error_seconds=stale_if_error_seconds,
            clock=clock,
        )
        self._http_get: HttpGet = http_get or urllib_get
        self._lock = threading.Lock()

    @classmethod
    def from_jwks(cls, document: Mapping[str, Any]) -> JwksProvider:
        """A provider that serves a fixed JWKS and never fetches."""
        return cls(jwks=document)

    def find_keys(self, kid: str | None, alg: str) -> Sequence[Any]:
        """The keys for a token's ``kid`` and ``alg``; refetches once for an unknown ``kid``.

        Raises:
            OidcError: ``OIDC_JWKS_UNAVAILABLE`` (no usable keys could be fetched) or
                ``OIDC_JWKS_INVALID`` (the issuer served something that is not a JWKS).
        """
        key_set = self._current()
        found = key_set.find(kid, alg)
        if found or self._static or (kid is not None and kid in key_set.kids):
            return found
        refreshed = self._refetch_after_miss(key_set)
        return refreshed.find(kid, alg) if refreshed is not None else []

    def refresh(self) -> None:
        """Fetch the keys now (ignores the cache, not the rate limit)."""
        if not self._static:
            with self._lock:
                self._fetch_locked(self._clock())

    def _current(self) -> KeySet:
        keys = self._keys
        if keys is not None and self._clock() < self._expires_at:
            return keys
        with self._lock:
            now = self._clock()
            if self._keys is not None and now < self._expires_at:
                return self._keys
            try:
                return self._fetch_locked(now)
            except OidcError as error:
                return self._stale_or_raise(now, error)

    def _refetch_after_miss(self, seen: KeySet) -> KeySet | None:
        with self._lock:
            if self._keys is not seen:  # another thread fetched meanwhile: use its keys
                return self._keys
            now = self._clock()
            if self._last_fetch is not None and now - self._last_fetch < self._min_refetch_interval:
                return None
            try:
                return self._fetch_locked(now)
            except OidcError:
                return None  # the old keys stay; the unknown kid is simply not found

    def _fetch_locked(self, now: float) -> KeySet:
        limited = self._rate_limited(now)
        if limited is not None:
            return limited
        self._start_fetch(now)
        try:
            key_set, lifetime = self._download()
        except OidcError as error:
            self._failed(now, error)
            raise
        return self._fetched(now, key_set, lifetime)

    def _download(self) -> tuple[KeySet, float]:
        if self._jwks_uri is None:
            assert self.discovery_url is not None
            self._discovered(self._bounded(self._response(self.discovery_url)))
        assert self._jwks_uri is not None
        return self._key_set(self._response(self._jwks_uri))

    def _response(self, url: str) -> HttpResponse:
        try:
            response = self._http_get(url, self._timeout)
        except Exception as error:  # any getter failure means: no keys from there now
            raise self._unreachable(url, error) from None
        return self._checked(url, response)
