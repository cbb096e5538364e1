"""``AsyncJwksProvider`` and ``verify_id_token_async`` against a real JWKS server on loopback.

The event loop is never blocked: the server withholds its answer until a coroutine on the same
loop releases it, which a blocked loop could never do (the test would fail on its safety
timeout, not on a measured duration). Concurrent verifications share one fetch; the server
going down and coming back behaves as for the sync provider. Each test runs its own loop with
``asyncio.run``; the clock is injected."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest
from _jwks_server import Clock, JwksServer, Route
from _oidc_helpers import AUDIENCE, ES_KID, ES_LABEL, JWKS, NOW, OTHER_ES_LABEL, claims, es256
from conftest import VECTORS_DIR
from embedded_wallet_crypto.oidc import AsyncJwksProvider, HttpResponse, verify_id_token_async
from embedded_wallet_crypto.vectors.generate._jwt_mint import es256_jwk

#: A safety net so that a regression fails instead of hanging; never part of a verdict.
SAFETY_TIMEOUT = 60.0


@pytest.fixture
def idp() -> Iterator[JwksServer]:
    server = JwksServer()
    try:
        yield server
    finally:
        server.close()


def _token(iss: str, kid: str = ES_KID, label: str = ES_LABEL) -> str:
    return es256(claims(iss=iss), kid=kid, label=label)


async def _verify(provider: Any, iss: str, **token: Any) -> ewc.oidc.OidcIdentity:
    return await verify_id_token_async(
        _token(iss, **token), jwks=provider, audience=AUDIENCE, issuers=[iss], now=NOW
    )


async def _code(provider: Any, iss: str, **token: Any) -> str:
    with pytest.raises(ewc.OidcError) as raised:
        await _verify(provider, iss, **token)
    return raised.value.code


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, SAFETY_TIMEOUT))


async def _until(event: Any) -> None:
    """Yield to the loop until a threading.Event is set (by the server's thread)."""
    while not event.is_set():
        await asyncio.sleep(0.005)


def test_the_event_loop_is_not_blocked_during_a_fetch(idp: JwksServer) -> None:
    idp.serve_jwks(JWKS)
    idp.gated = True

    async def scenario() -> None:
        async with AsyncJwksProvider(jwks_uri=f"{idp.base}/jwks.json", timeout=30) as provider:
            verification = asyncio.ensure_future(_verify(provider, idp.base))
            # The server now holds the request. This coroutine runs on the same loop: it can only
            # get here, and release the answer, if the fetch left the loop free.
            await _until(idp.received)
            assert not verification.done()
            idp.release.set()
            identity = await verification
            assert identity.issuer == idp.base
            assert idp.hits["/jwks.json"] == 1

    run(scenario())


def test_concurrent_verifications_share_one_fetch(idp: JwksServer) -> None:
    idp.serve_discovery()
    idp.serve_jwks(JWKS)
    idp.gated = True

    async def scenario() -> None:
        async with AsyncJwksProvider(issuer=idp.base, timeout=30) as provider:
            verifications = [asyncio.ensure_future(_verify(provider, idp.base)) for _ in range(25)]
            await _until(idp.received)
            idp.release.set()
            results = await asyncio.gather(*verifications)
            assert all(r.subject for r in results)
            assert idp.hits == {"/.well-known/openid-configuration": 1, "/jwks.json": 1}
            assert provider.fetch_count == 1
            assert provider.jwks_uri == f"{idp.base}/jwks.json"

    run(scenario())


def test_server_down_and_back_with_stale_keys(
    idp: JwksServer, caplog: pytest.LogCaptureFixture
) -> None:
    idp.serve_jwks(JWKS, "max-age=100")
    clock = Clock()

    async def scenario() -> None:
        async with AsyncJwksProvider(
            jwks_uri=f"{idp.base}/jwks.json", clock=clock, stale_if_error_seconds=300
        ) as provider:
            assert (await _verify(provider, idp.base)).subject
            idp.failing = True
            clock.now = 1100.0
            assert (await _verify(provider, idp.base)).subject  # 500: stale keys
            assert "OIDC_JWKS_UNAVAILABLE" in caplog.text and "HTTP 500" in caplog.text
            idp.stop()
            clock.now = 1131.0
            assert (await _verify(provider, idp.base)).subject  # refused connection: stale
            assert provider.fetch_count == 3
            clock.now = 1400.0  # the window is over
            assert await _code(provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"
            idp.restart()
            idp.failing = False
            idp.serve_jwks({"keys": [*JWKS["keys"], es256_jwk(OTHER_ES_LABEL, "rotated")]})
            clock.now = 1431.0
            rotated = await _verify(provider, idp.base, kid="rotated", label=OTHER_ES_LABEL)
            assert rotated.subject and provider.fetch_count == 5
            clock.now = 1500.0
            assert (await _verify(provider, idp.base)).subject
            assert provider.fetch_count == 5

    with caplog.at_level("WARNING", logger="embedded_wallet_crypto.oidc"):
        run(scenario())


def test_cache_unknown_kid_and_rate_limit(idp: JwksServer) -> None:
    idp.serve_jwks(JWKS, "max-age=100")
    clock = Clock()

    async def scenario() -> None:
        provider = AsyncJwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock)
        assert (await _verify(provider, idp.base)).subject
        clock.now += 99
        assert (await _verify(provider, idp.base)).subject
        assert idp.hits["/jwks.json"] == 1
        clock.now += 40  # expired: refetched
        idp.serve_jwks({"keys": [*JWKS["keys"], es256_jwk(OTHER_ES_LABEL, "rotated")]})
        assert (await _verify(provider, idp.base, kid="rotated", label=OTHER_ES_LABEL)).subject
        assert idp.hits["/jwks.json"] == 2
        for index in range(5):
            assert await _code(provider, idp.base, kid=f"random-{index}") == "OIDC_KEY_NOT_FOUND"
        assert idp.hits["/jwks.json"] == 2
        clock.now += 31
        assert await _code(provider, idp.base, kid="random-late") == "OIDC_KEY_NOT_FOUND"
        assert idp.hits["/jwks.json"] == 3
        await provider.refresh()  # inside the interval: the cached keys, no request
        assert idp.hits["/jwks.json"] == 3
        await provider.aclose()

    run(scenario())


@pytest.mark.parametrize(
    ("route", "code"),
    [
        (Route(500, b"oops"), "OIDC_JWKS_UNAVAILABLE"),
        (Route(404, b""), "OIDC_JWKS_UNAVAILABLE"),
        (Route(200, b"<html>"), "OIDC_JWKS_INVALID"),
        (Route(200, b'{"keys": []}' + b" " * 300_000), "OIDC_JWKS_INVALID"),
        (Route(302, b"", {"Location": "http://keys.example/jwks.json"}), "OIDC_JWKS_UNAVAILABLE"),
    ],
)
def test_bad_responses(idp: JwksServer, route: Route, code: str) -> None:
    idp.routes["/jwks.json"] = route

    async def scenario() -> str:
        async with AsyncJwksProvider(jwks_uri=f"{idp.base}/jwks.json") as provider:
            return await _code(provider, idp.base)

    assert run(scenario()) == code


def test_loopback_redirect_is_followed(idp: JwksServer) -> None:
    idp.routes["/moved"] = Route(301, b"", {"Location": "/jwks.json"})
    idp.serve_jwks(JWKS)

    async def scenario() -> None:
        async with httpx.AsyncClient() as client:
            provider = AsyncJwksProvider(jwks_uri=f"{idp.base}/moved", http_client=client)
            assert (await _verify(provider, idp.base)).subject
            await provider.aclose()  # not its client: still usable
            assert not client.is_closed

    run(scenario())
    assert idp.hits == {"/moved": 1, "/jwks.json": 1}


def test_injected_getter_and_static_keys() -> None:
    seen: list[tuple[str, float]] = []

    async def http_get(url: str, timeout: float) -> HttpResponse:
        seen.append((url, timeout))
        await asyncio.sleep(0)
        return HttpResponse(200, json.dumps(JWKS).encode(), {"cache-control": "max-age=5"})

    async def failing(url: str, timeout: float) -> HttpResponse:
        raise OSError("offline")

    iss = "https://accounts.google.com"

    async def scenario() -> None:
        provider = AsyncJwksProvider(jwks_uri="https://idp.example/k", http_get=http_get, timeout=3)
        assert (await _verify(provider, iss)).subject
        assert seen == [("https://idp.example/k", 3)]
        broken = AsyncJwksProvider(jwks_uri="https://idp.example/k", http_get=failing)
        assert await _code(broken, iss) == "OIDC_JWKS_UNAVAILABLE"
        static = AsyncJwksProvider.from_jwks(JWKS)
        assert (await _verify(static, iss)).subject and static.fetch_count == 0
        assert (await _verify(JWKS, iss)).subject  # a JWKS dict
        assert (await _verify({iss: static}, iss)).subject  # keys per issuer
        assert (await _verify(ewc.oidc.JwksProvider.from_jwks(JWKS), iss)).subject
        with pytest.raises(TypeError, match="AsyncJwksProvider"):
            await _verify(ewc.oidc.JwksProvider(jwks_uri="https://idp.example/k"), iss)

    run(scenario())


def test_the_same_verdicts_as_the_sync_verifier() -> None:
    """Every oidc_verify case of the committed vectors gives the sync verifier's outcome."""
    from datetime import datetime, timezone

    document = json.loads((VECTORS_DIR / "oidc.json").read_text())
    cases = [c for c in document["cases"] if c["operation"] == "oidc_verify"]

    def outcome(call: Any) -> Any:
        try:
            return call()
        except ewc.OidcError as error:
            return error.code

    async def scenario() -> int:
        for case in cases:
            inputs = case["inputs"]
            arguments = {
                "jwks": inputs["jwks"],
                "audience": inputs["audience"],
                "issuers": inputs["issuers"],
                "now": datetime.fromtimestamp(inputs["now"], timezone.utc),
                "max_age_seconds": inputs["max_age_seconds"],
                "clock_skew_seconds": inputs["clock_skew_seconds"],
                "client_public_key": inputs["client_public_key"],
                "sandbox": inputs["sandbox"],
            }
            sync = outcome(lambda i=inputs, a=arguments: ewc.oidc.verify_id_token(i["token"], **a))
            try:
                asynchronous: Any = await verify_id_token_async(inputs["token"], **arguments)
            except ewc.OidcError as error:
                asynchronous = error.code
            assert asynchronous == sync, case["id"]
            assert sync == (case["error"] if not case["valid"] else sync)
        return len(cases)

    assert run(scenario()) >= 20


def test_stale_if_error_seconds_is_validated() -> None:
    for value in (float("nan"), -1, 86401, True):
        with pytest.raises(ewc.OidcError) as raised:
            AsyncJwksProvider(jwks_uri="https://idp.example/k", stale_if_error_seconds=value)
        assert raised.value.code == "OIDC_CONFIG_INVALID"
    with pytest.raises(ValueError):
        AsyncJwksProvider(jwks_uri="http://idp.example/k")
    with pytest.raises(TypeError):
        AsyncJwksProvider(
            jwks_uri="https://idp.example/k",
            http_client=httpx.AsyncClient(),
            http_get=lambda url, timeout: None,  # type: ignore[arg-type,return-value]
        )


def test_without_httpx_the_import_error_names_the_extra() -> None:
    probe = (
        "import sys; sys.modules['httpx'] = None\n"
        "import embedded_wallet_crypto as ewc\n"
        "ewc.oidc.verify_id_token  # the sync OIDC stays usable\n"
        "try:\n"
        "    from embedded_wallet_crypto.oidc import AsyncJwksProvider\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert "embedded-wallet-crypto[async]" in result.stdout


def test_httpx_is_not_loaded_by_the_sync_oidc() -> None:
    probe = (
        "import sys, embedded_wallet_crypto as ewc\n"
        "ewc.oidc.JwksProvider\n"
        "print('httpx' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_unknown_kids_during_one_refetch_share_it(idp: JwksServer) -> None:
    idp.serve_jwks(JWKS, "max-age=100")
    clock = Clock()

    async def scenario() -> None:
        async with AsyncJwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock) as provider:
            assert (await _verify(provider, idp.base)).subject
            idp.serve_jwks({"keys": [*JWKS["keys"], es256_jwk(OTHER_ES_LABEL, "rotated")]})
            idp.gated = True
            clock.now += 50  # still fresh, and past the refetch interval
            rotated = [
                asyncio.ensure_future(
                    _verify(provider, idp.base, kid="rotated", label=OTHER_ES_LABEL)
                )
                for _ in range(5)
            ]
            await _until(idp.received)
            idp.release.set()
            assert all(r.subject for r in await asyncio.gather(*rotated))
            assert idp.hits["/jwks.json"] == 2 and provider.fetch_count == 2

    run(scenario())
