"""Fetching an issuer's documents over HTTPS: the injectable getter, the default one on
``urllib`` (https redirects only), which URLs may be fetched, ``Cache-Control`` lifetimes, and
URLs as a log line may show them.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.client import HTTPMessage
from typing import IO

from .._contract import utf8
from ._common import config_error

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "HttpGet",
    "HttpResponse",
    "cache_seconds",
    "check_fetch_url",
    "redacted_url",
    "urllib_get",
]

#: A JWKS or discovery document larger than this is refused (Google's JWKS is about 1.5 KB).
MAX_DOCUMENT_BYTES = 256 * 1024
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
