"""OIDC for asyncio servers: :class:`AsyncJwksProvider` and :func:`verify_id_token_async`.

The same key cache as :class:`~embedded_wallet_crypto.oidc.JwksProvider` (``Cache-Control``,
one rate-limited refetch for an unknown ``kid``, ``stale_if_error_seconds``) and the same token
checks as :func:`~embedded_wallet_crypto.oidc.verify_id_token`, with the keys fetched by httpx
on the event loop: no call here blocks the loop. Concurrent verifications that find the keys
expired share one fetch.

Needs the optional ``async`` extra (``pip install 'embedded-wallet-crypto[async]'``, httpx).
"""

from __future__ import annotations

import asyncio
import inspect
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..errors import OidcError
from ..policy import Environment
from ._claims import DEFAULT_ISSUERS, OidcIdentity
from ._http import MAX_DOCUMENT_BYTES, HttpResponse, check_fetch_url
from ._jwks import JwksProvider
from ._jwks_cache import JwksCache
from ._jws import DEFAULT_ALGORITHMS
from ._keyset import KeySet
from ._verify import finish_id_token, prepare_id_token

if TYPE_CHECKING:
    import httpx

__all__ = ["AsyncHttpGet", "AsyncJwksProvider", "require_httpx", "verify_id_token_async"]

#: ``await http_get(url, timeout_seconds) -> HttpResponse``; raise (anything) when no response
#: came. The default is httpx's ``AsyncClient``.
AsyncHttpGet = Callable[[str, float], Awaitable[HttpResponse]]
_MAX_REDIRECTS = 5


def require_httpx() -> ModuleType:
    """httpx, or an ImportError that names the extra to install."""
    try:
        import httpx
    except ImportError as error:
        raise ImportError(
            "the asyncio OIDC support (AsyncJwksProvider, verify_id_token_async) needs httpx: "
            "pip install 'embedded-wallet-crypto[async]'"
        ) from error
    return httpx


class AsyncJwksProvider(JwksCache):
    """An issuer's JWKS for asyncio servers, fetched with httpx and cached.

    The rules are :class:`~embedded_wallet_crypto.oidc.JwksProvider`'s: ``Cache-Control``
    lifetimes, one refetch for an unknown ``kid`` at most every ``min_refetch_interval``
    seconds, ``stale_if_error_seconds`` (the last good key set served for at most that long
    after its expiry while refreshes fail, each failure logged at WARNING), or a static
    ``jwks``. Verifications that need a fetch at the same time share it (one request).

    Use one provider per issuer for the life of the process, on one event loop;
    ``await provider.aclose()`` (or ``async with``) closes the HTTP client it made. Pass
    ``http_client`` to use your own ``httpx.AsyncClient`` (then you close it), or ``http_get``
    for any other async getter.
    """

    def __init__(
        self,
        *,
        jwks_uri: str | None = None,
        issuer: str | None = None,
        discovery_url: str | None = None,
        jwks: Mapping[str, Any] | None = None,
        http_client: httpx.AsyncClient | None = None,
        http_get: AsyncHttpGet | None = None,
        timeout: float = 5.0,
        min_refetch_interval: float = 30.0,
        default_cache_seconds: float = 300.0,
        max_cache_seconds: float = 86400.0,
        stale_if_error_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Give exactly one source, as for ``JwksProvider``.

        Raises:
            ImportError: httpx is not installed (the ``async`` extra) and no ``http_get`` is
                given.
            OidcError: ``OIDC_CONFIG_INVALID`` (also a ValueError), ``OIDC_JWKS_INVALID``: as
                ``JwksProvider``.
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
        if http_get is not None and http_client is not None:
            raise TypeError("give http_client or http_get, not both")
        if http_get is None:
            require_httpx()
        self._http_get = http_get
        self._client = http_client
        self._own_client: httpx.AsyncClient | None = None
        self._inflight: asyncio.Task[KeySet] | None = None

    @classmethod
    def from_jwks(cls, document: Mapping[str, Any]) -> AsyncJwksProvider:
        """A provider that serves a fixed JWKS and never fetches (httpx is not needed)."""
        return cls(jwks=document, http_get=_never)

    async def __aenter__(self) -> AsyncJwksProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client the provider made (not one you passed in)."""
        client, self._own_client = self._own_client, None
        if client is not None:
            await client.aclose()

    async def find_keys(self, kid: str | None, alg: str) -> Sequence[Any]:
        """The keys for a token's ``kid`` and ``alg``; refetches once for an unknown ``kid``.

        Raises:
            OidcError: ``OIDC_JWKS_UNAVAILABLE`` or ``OIDC_JWKS_INVALID``.
        """
        key_set = self._fresh(self._clock())
        if key_set is None:
            key_set = await self._current()
        found = key_set.find(kid, alg)
        if found or self._static or (kid is not None and kid in key_set.kids):
            return found
        refreshed = await self._refetch_after_miss(key_set)
        return refreshed.find(kid, alg) if refreshed is not None else []

    async def refresh(self) -> None:
        """Fetch the keys now (ignores the cache, not the rate limit)."""
        if not self._static:
            await self._shared_fetch()

    async def _current(self) -> KeySet:
        keys = self._fresh(self._clock())
        if keys is not None:
            return keys
        try:
            return await self._shared_fetch()
        except OidcError as error:
            return self._stale_or_raise(self._clock(), error)

    async def _refetch_after_miss(self, seen: KeySet) -> KeySet | None:
        task = self._inflight
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            try:  # a fetch is under way: its keys are the newest there will be for a while
                return await asyncio.shield(task)
            except OidcError:
                return None
        if self._keys is not seen:
            return self._keys
        now = self._clock()
        if self._last_fetch is not None and now - self._last_fetch < self._min_refetch_interval:
            return None
        try:
            return await self._shared_fetch()
        except OidcError:
            return None

    async def _shared_fetch(self) -> KeySet:
        """One fetch for every coroutine of this loop that needs one now (single flight)."""
        loop = asyncio.get_running_loop()
        task = self._inflight
        if task is None or task.done() or task.get_loop() is not loop:
            now = self._clock()
            limited = self._rate_limited(now)
            if limited is not None:
                return limited
            self._start_fetch(now)
            task = loop.create_task(self._fetch(now))
            self._inflight = task
        return await asyncio.shield(task)

    async def _fetch(self, now: float) -> KeySet:
        try:
            if self._jwks_uri is None:
                assert self.discovery_url is not None
                self._discovered(self._bounded(await self._response(self.discovery_url)))
            assert self._jwks_uri is not None
            key_set, lifetime = self._key_set(await self._response(self._jwks_uri))
        except OidcError as error:
            self._failed(now, error)
            raise
        return self._fetched(now, key_set, lifetime)

    async def _response(self, url: str) -> HttpResponse:
        try:
            if self._http_get is not None:
                response = await self._http_get(url, self._timeout)
            else:
                response = await self._httpx_get(url)
        except Exception as error:  # any getter failure means: no keys from there now
            raise self._unreachable(url, error) from None
        return self._checked(url, response)

    async def _httpx_get(self, url: str) -> HttpResponse:
        """One GET with httpx, following https redirects only, reading at most one byte more
        than the document limit."""
        httpx = require_httpx()
        client = self._client or self._own_client
        if client is None:
            client = self._own_client = httpx.AsyncClient()
        for _ in range(_MAX_REDIRECTS + 1):
            async with client.stream(
                "GET",
                url,
                headers={"Accept": "application/json"},
                timeout=self._timeout,
                follow_redirects=False,
            ) as response:
                headers = dict(response.headers.items())
                if response.is_redirect:
                    target = urllib.parse.urljoin(url, response.headers.get("location", ""))
                    if not check_fetch_url(target):
                        return HttpResponse(response.status_code, b"", headers)
                    url = target
                    continue
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_DOCUMENT_BYTES:
                        break
                return HttpResponse(response.status_code, bytes(body), headers)
        raise RuntimeError("too many redirects")


async def _never(url: str, timeout: float) -> HttpResponse:  # pragma: no cover - static only
    raise RuntimeError("a static key set is never fetched")


async def _resolved(keys: Sequence[Any] | Awaitable[Sequence[Any]]) -> Sequence[Any]:
    return await keys if inspect.isawaitable(keys) else keys


async def verify_id_token_async(
    token: str,
    *,
    jwks: Mapping[str, Any] | Any,
    audience: str | Sequence[str],
    issuers: Iterable[str] = DEFAULT_ISSUERS,
    now: datetime | None = None,
    max_age_seconds: float = 60,
    clock_skew_seconds: float = 5,
    client_public_key: str | None = None,
    sandbox: bool | Environment | None = None,
    algorithms: Iterable[str] = DEFAULT_ALGORITHMS,
) -> OidcIdentity:
    """:func:`~embedded_wallet_crypto.oidc.verify_id_token` for asyncio: the same arguments,
    checks, result and errors, with the keys from an :class:`AsyncJwksProvider` (or a static
    JWKS dict, or a mapping from issuer to either) awaited instead of fetched with blocking
    I/O.

    Raises:
        OidcError: as ``verify_id_token``.
        TypeError: ``jwks`` is a fetching ``JwksProvider`` (its fetches would block the event
            loop: use an ``AsyncJwksProvider``), or another wrong type.
    """
    pending = prepare_id_token(
        token,
        jwks=jwks,
        audience=audience,
        issuers=issuers,
        now=now,
        max_age_seconds=max_age_seconds,
        clock_skew_seconds=clock_skew_seconds,
        client_public_key=client_public_key,
        sandbox=sandbox,
        algorithms=algorithms,
    )
    if isinstance(pending, OidcIdentity):
        return pending
    if isinstance(pending.source, JwksProvider) and not pending.source._static:
        raise TypeError(
            "a JwksProvider fetches with blocking I/O: use AsyncJwksProvider with "
            "verify_id_token_async"
        )
    keys = await _resolved(pending.source.find_keys(pending.kid, pending.alg))
    return finish_id_token(pending, keys)
