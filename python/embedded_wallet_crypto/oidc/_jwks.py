"""``JwksProvider``: an issuer's signing keys, fetched over HTTPS and cached.

The keys come from a configured ``jwks_uri``, from the issuer's discovery document (OpenID
Connect Discovery 1.0 section 4), or from a static JWKS (offline, never fetched). Fetches go
through an injectable HTTP getter; the default uses ``urllib`` from the standard library.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.client import HTTPMessage
from typing import IO, Any

from .._contract import utf8
from ..errors import OidcError
from ._common import JWKS_INVALID, JWKS_UNAVAILABLE, config_error, fail, json_object
from ._keyset import KeySet

__all__ = [
    "MAX_STALE_IF_ERROR_SECONDS",
    "HttpGet",
    "HttpResponse",
    "JwksProvider",
    "check_fetch_url",
    "urllib_get",
]

#: A JWKS or discovery document larger than this is refused (Google's JWKS is about 1.5 KB).
MAX_DOCUMENT_BYTES = 256 * 1024
#: The longest ``stale_if_error_seconds`` accepted: one day.
MAX_STALE_IF_ERROR_SECONDS = 86400.0
#: Where refresh failures are logged (WARNING); never with credentials or a query string.
LOGGER = logging.getLogger("embedded_wallet_crypto.oidc")
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d{1,10})\"?\s*(?:,|$)", re.IGNORECASE)
_NO_CACHE = re.compile(r"(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)", re.IGNORECASE)


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)


#: ``http_get(url, timeout_seconds) -> HttpResponse``; raise (anything) when no response came.
HttpGet = Callable[[str, float], HttpResponse]


def _is_loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_fetch_url(url: str) -> bool:
    """Keys are only fetched over https; plain http only to a loopback host (tests, sidecars)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return False
    if parts.scheme == "https" and parts.hostname:
        return True
    return parts.scheme == "http" and _is_loopback(parts.hostname)


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        if not check_fetch_url(newurl):
            raise urllib.error.HTTPError(newurl, code, "redirect to a non-https URL", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SafeRedirects)


def urllib_get(url: str, timeout: float) -> HttpResponse:
    """The default getter: one GET with ``urllib``, following https redirects only.

    Raises:
        TypeError: ``url`` is not a ``str``.
        OidcError: ``OIDC_CONFIG_INVALID`` for a URL that is not an absolute http(s) URL.
    """
    utf8(url, "url", config_error)
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise config_error("the URL to fetch is not an absolute http(s) URL")
    request = urllib.request.Request(url, headers={"Accept": "application/json"})  # noqa: S310
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            body = response.read(MAX_DOCUMENT_BYTES + 1)
            return HttpResponse(response.status, body, dict(response.headers.items()))
    except urllib.error.HTTPError as error:
        return HttpResponse(error.code, b"", dict(error.headers.items()) if error.headers else {})


def cache_seconds(cache_control: str | None, default: float, maximum: float) -> float:
    """How long a response may be used: ``max-age`` (RFC 9111 section 5.2.2.1), 0 for
    ``no-store``/``no-cache``, ``default`` without either; never more than ``maximum``."""
    if cache_control is None:
        return min(default, maximum)
    if _NO_CACHE.search(cache_control):
        return 0.0
    match = _MAX_AGE.search(cache_control)
    return min(float(match.group(1)), maximum) if match else min(default, maximum)


def redacted_url(url: str) -> str:
    """``url`` for a log line: scheme, host, port and path; no user, password, query or
    fragment (a JWKS URL may carry a token in any of them)."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "<unparsable URL>"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{parts.path}"


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
