"""JwksProvider over a real HTTP server on loopback (http.server in a thread), plus its cache,
refetch and rate-limit rules with an injected clock."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _oidc_helpers import AUDIENCE, ES_KID, ES_LABEL, JWKS, NOW, OTHER_ES_LABEL, claims, es256
from embedded_wallet_crypto.oidc import HttpResponse, JwksProvider
from embedded_wallet_crypto.oidc._http import cache_seconds
from embedded_wallet_crypto.vectors.generate._jwt_mint import es256_jwk

ROTATED_KID = "es256-key-2"


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


class IdP:
    """A tiny identity provider: configurable routes, counted requests."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: dict[str, int] = {}
        self.lock = threading.Lock()
        idp = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with idp.lock:
                    idp.hits[self.path] = idp.hits.get(self.path, 0) + 1
                    route = idp.routes.get(self.path, Route(404, b"not found"))
                self.send_response(route.status)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def serve_jwks(self, document: Any, cache_control: str | None = "max-age=100") -> None:
        headers = {"Content-Type": "application/json"}
        if cache_control is not None:
            headers["Cache-Control"] = cache_control
        self.routes["/jwks.json"] = Route(200, json.dumps(document).encode(), headers)

    def serve_discovery(self, issuer: str | None = None, jwks_uri: str | None = None) -> None:
        document = {
            "issuer": issuer or self.base,
            "jwks_uri": jwks_uri or f"{self.base}/jwks.json",
        }
        self.routes["/.well-known/openid-configuration"] = Route(200, json.dumps(document).encode())


@pytest.fixture
def idp() -> Iterator[IdP]:
    server = IdP()
    server.thread.start()
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _token(iss: str, kid: str = ES_KID, label: str = ES_LABEL) -> str:
    return es256(claims(iss=iss), kid=kid, label=label)


def _verify(token: str, provider: Any, iss: str) -> ewc.oidc.OidcIdentity:
    return ewc.oidc.verify_id_token(token, jwks=provider, audience=AUDIENCE, issuers=[iss], now=NOW)


def _code(token: str, provider: Any, iss: str) -> str:
    with pytest.raises(ewc.OidcError) as raised:
        _verify(token, provider, iss)
    return raised.value.code


def test_discovery_then_jwks_over_loopback(idp: IdP) -> None:
    idp.serve_discovery()
    idp.serve_jwks(JWKS)
    provider = JwksProvider(issuer=idp.base)
    assert _verify(_token(idp.base), provider, idp.base).issuer == idp.base
    assert _verify(_token(idp.base), provider, idp.base).subject  # cached: no new request
    assert idp.hits == {"/.well-known/openid-configuration": 1, "/jwks.json": 1}
    assert provider.jwks_uri == f"{idp.base}/jwks.json"


def test_configured_jwks_uri(idp: IdP) -> None:
    idp.serve_jwks(JWKS)
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json")
    assert _verify(_token(idp.base), provider, idp.base).subject
    assert idp.hits == {"/jwks.json": 1}


def test_cache_honours_max_age(idp: IdP) -> None:
    idp.serve_jwks(JWKS, "public, max-age=100, must-revalidate")
    clock = Clock()
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock)
    token = _token(idp.base)
    _verify(token, provider, idp.base)
    clock.now += 99
    _verify(token, provider, idp.base)
    assert idp.hits["/jwks.json"] == 1
    clock.now += 2
    _verify(token, provider, idp.base)
    assert idp.hits["/jwks.json"] == 2


def test_no_store_refetches_at_most_once_per_interval(idp: IdP) -> None:
    idp.serve_jwks(JWKS, "no-store")
    clock = Clock()
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock, min_refetch_interval=30)
    token = _token(idp.base)
    for _ in range(5):
        _verify(token, provider, idp.base)
    assert idp.hits["/jwks.json"] == 1
    clock.now += 31
    _verify(token, provider, idp.base)
    assert idp.hits["/jwks.json"] == 2


def test_unknown_kid_refetches_once_then_rate_limits(idp: IdP) -> None:
    idp.serve_jwks(JWKS)
    clock = Clock()
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock)
    assert _verify(_token(idp.base), provider, idp.base)
    clock.now += 40
    # The issuer rotates: the new kid is unknown to the cache, one refetch finds it.
    idp.serve_jwks({"keys": [*JWKS["keys"], es256_jwk(OTHER_ES_LABEL, ROTATED_KID)]})
    rotated = _token(idp.base, ROTATED_KID, OTHER_ES_LABEL)
    assert _verify(rotated, provider, idp.base).subject
    assert idp.hits["/jwks.json"] == 2
    # Random kids right after: no new fetch inside the interval.
    for index in range(5):
        assert _code(_token(idp.base, f"random-{index}"), provider, idp.base) == (
            "OIDC_KEY_NOT_FOUND"
        )
    assert idp.hits["/jwks.json"] == 2
    clock.now += 31
    assert _code(_token(idp.base, "random-late"), provider, idp.base) == "OIDC_KEY_NOT_FOUND"
    assert idp.hits["/jwks.json"] == 3


def test_known_kid_with_another_alg_does_not_refetch(idp: IdP) -> None:
    idp.serve_jwks(JWKS)
    clock = Clock()
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock)
    clock.now += 100
    assert _code(_token(idp.base, kid="rs256-key-1"), provider, idp.base) == "OIDC_KEY_NOT_FOUND"
    assert idp.hits["/jwks.json"] == 1


@pytest.mark.parametrize(
    ("route", "code"),
    [
        (Route(500, b"oops"), "OIDC_JWKS_UNAVAILABLE"),
        (Route(404, b""), "OIDC_JWKS_UNAVAILABLE"),
        (Route(200, b"<html>"), "OIDC_JWKS_INVALID"),
        (Route(200, b'{"keys": {}}'), "OIDC_JWKS_INVALID"),
        (Route(200, b'{"keys": [{"kty": "oct", "k": "AAAA"}]}'), "OIDC_JWKS_INVALID"),
        (Route(200, b'{"keys": []}' + b" " * 300_000), "OIDC_JWKS_INVALID"),
        (Route(200, b"[" * 100_000), "OIDC_JWKS_INVALID"),
    ],
)
def test_bad_jwks_responses(idp: IdP, route: Route, code: str) -> None:
    idp.routes["/jwks.json"] = route
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json")
    assert _code(_token(idp.base), provider, idp.base) == code


def test_failed_fetch_is_retried_only_after_the_interval(idp: IdP) -> None:
    idp.routes["/jwks.json"] = Route(503, b"")
    clock = Clock()
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock)
    for _ in range(3):
        assert _code(_token(idp.base), provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"
    assert idp.hits["/jwks.json"] == 1
    idp.serve_jwks(JWKS)
    clock.now += 31
    assert _verify(_token(idp.base), provider, idp.base).subject


def test_unreachable_server() -> None:
    import socket

    # Bound and never listening for the whole test: refused, and no other process can take it.
    with socket.socket() as reserved:
        reserved.bind(("127.0.0.1", 0))
        port = reserved.getsockname()[1]
        provider = JwksProvider(jwks_uri=f"http://127.0.0.1:{port}/jwks.json", timeout=2)
        iss = "https://accounts.google.com"
        assert _code(_token(iss), provider, iss) == "OIDC_JWKS_UNAVAILABLE"


@pytest.mark.parametrize(
    ("issuer", "jwks_uri"),
    [("https://someone-else.example", None), (None, "http://keys.example/jwks.json")],
)
def test_bad_discovery_documents(idp: IdP, issuer: str | None, jwks_uri: str | None) -> None:
    idp.serve_discovery(issuer, jwks_uri)
    provider = JwksProvider(issuer=idp.base)
    assert _code(_token(idp.base), provider, idp.base) == "OIDC_JWKS_INVALID"


def test_redirect_to_plain_http_elsewhere_is_refused(idp: IdP) -> None:
    location = {"Location": "http://keys.example/jwks.json"}
    idp.routes["/jwks.json"] = Route(302, b"", location)
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json")
    assert _code(_token(idp.base), provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"
    idp.routes["/moved"] = Route(301, b"", {"Location": f"{idp.base}/jwks.json"})
    idp.serve_jwks(JWKS)
    assert _verify(_token(idp.base), JwksProvider(jwks_uri=f"{idp.base}/moved"), idp.base)


def test_concurrent_first_use_fetches_once(idp: IdP) -> None:
    idp.serve_discovery()
    idp.serve_jwks(JWKS)
    provider = JwksProvider(issuer=idp.base)
    token = _token(idp.base)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: _verify(token, provider, idp.base), range(32)))
    assert all(r.subject for r in results)
    assert idp.hits["/jwks.json"] == 1 and provider.fetch_count == 1


def test_static_jwks_works_offline() -> None:
    calls: list[str] = []

    def no_network(url: str, timeout: float) -> HttpResponse:
        calls.append(url)
        raise OSError("offline")

    provider = JwksProvider.from_jwks(JWKS)
    iss = "https://accounts.google.com"
    assert _verify(_token(iss), provider, iss).subject
    assert _code(_token(iss, kid="unknown"), provider, iss) == "OIDC_KEY_NOT_FOUND"
    assert provider.fetch_count == 0 and calls == []


def test_injected_getter() -> None:
    seen: list[tuple[str, float]] = []

    def http_get(url: str, timeout: float) -> HttpResponse:
        seen.append((url, timeout))
        return HttpResponse(200, json.dumps(JWKS).encode(), {"cache-control": "max-age=5"})

    provider = JwksProvider(jwks_uri="https://idp.example/keys", http_get=http_get, timeout=3)
    iss = "https://accounts.google.com"
    assert _verify(_token(iss), provider, iss).subject
    assert seen == [("https://idp.example/keys", 3)]
    raising = JwksProvider(jwks_uri="https://idp.example/keys", http_get=lambda u, t: 1 / 0)  # type: ignore[arg-type,return-value]
    assert _code(_token(iss), raising, iss) == "OIDC_JWKS_UNAVAILABLE"


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"jwks_uri": "https://a.example/k", "issuer": "https://a.example"},
        {"jwks_uri": "http://idp.example/keys"},
        {"issuer": "accounts.google.com"},
        {"discovery_url": "ftp://idp.example/x"},
    ],
)
def test_provider_configuration_errors(arguments: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        JwksProvider(**arguments)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, 300.0),
        ("max-age=100", 100.0),
        ("public, max-age=22731, must-revalidate, no-transform", 22731.0),
        ('max-age="60"', 60.0),
        ("no-store", 0.0),
        ("private, no-cache", 0.0),
        ("max-age=999999999", 86400.0),
        ("s-maxage=5", 300.0),
        ("max-age=abc", 300.0),
    ],
)
def test_cache_control(header: str | None, seconds: float) -> None:
    assert cache_seconds(header, 300.0, 86400.0) == seconds
