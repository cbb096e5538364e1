"""``JwksProvider(stale_if_error_seconds=...)`` against a real JWKS server on loopback that goes
down (answers 500, serves garbage, or stops listening) and comes back. The clock is injected:
the verdicts depend on its value only, never on how long anything took."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _jwks_server import Clock, JwksServer, Route
from _oidc_helpers import AUDIENCE, ES_KID, ES_LABEL, JWKS, NOW, OTHER_ES_LABEL, claims, es256
from embedded_wallet_crypto.oidc import JwksProvider
from embedded_wallet_crypto.vectors.generate._jwt_mint import es256_jwk
from hypothesis import given
from hypothesis import strategies as st

SECRET = "s3cr3t-query-token"
ROTATED_KID = "es256-key-rotated"
WINDOW = 600.0


@pytest.fixture
def idp() -> Iterator[JwksServer]:
    server = JwksServer()
    try:
        yield server
    finally:
        server.close()


def _token(iss: str, kid: str = ES_KID, label: str = ES_LABEL) -> str:
    return es256(claims(iss=iss), kid=kid, label=label)


def _verify(provider: Any, iss: str, **token: Any) -> ewc.oidc.OidcIdentity:
    return ewc.oidc.verify_id_token(
        _token(iss, **token), jwks=provider, audience=AUDIENCE, issuers=[iss], now=NOW
    )


def _code(provider: Any, iss: str, **token: Any) -> str:
    with pytest.raises(ewc.OidcError) as raised:
        _verify(provider, iss, **token)
    return raised.value.code


def _provider(
    idp: JwksServer, clock: Clock, stale: float = WINDOW, path: str = "/jwks.json"
) -> JwksProvider:
    return JwksProvider(
        jwks_uri=idp.base + path, clock=clock, stale_if_error_seconds=stale, min_refetch_interval=30
    )


def test_stale_keys_within_the_window_then_refused_then_fresh(
    idp: JwksServer, caplog: pytest.LogCaptureFixture
) -> None:
    path = f"/jwks.json?access_token={SECRET}"
    idp.serve_jwks(JWKS, "max-age=100", path=path)
    clock = Clock()
    provider = _provider(idp, clock, path=path)
    assert _verify(provider, idp.base).subject  # t=1000: fetched, fresh until 1100
    assert idp.hits[path] == 1

    idp.failing = True
    clock.now = 1100.0  # expired: the refresh fails, the last good keys are served
    with caplog.at_level(logging.WARNING, logger="embedded_wallet_crypto"):
        assert _verify(provider, idp.base).subject
    assert idp.hits[path] == 2
    (record,) = [r for r in caplog.records if r.name.startswith("embedded_wallet_crypto")]
    assert record.levelno == logging.WARNING and record.name == "embedded_wallet_crypto.oidc"
    assert "OIDC_JWKS_UNAVAILABLE" in record.getMessage()
    assert "HTTP 500" in record.getMessage() and "at most 600 s more" in record.getMessage()
    assert f"{idp.base}/jwks.json" in record.getMessage()
    assert SECRET not in caplog.text and "access_token" not in caplog.text

    caplog.clear()
    clock.now = 1110.0  # inside the refetch interval: no new request, still stale
    assert _verify(provider, idp.base).subject
    assert idp.hits[path] == 2 and not caplog.records

    clock.now = 1100.0 + WINDOW - 0.001  # the last instant of the window (a retry, failed)
    assert _verify(provider, idp.base).subject
    assert idp.hits[path] == 3

    clock.now = 1100.0 + WINDOW  # the window is over: refused, however often it is asked
    for _ in range(3):
        assert _code(provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"
    assert idp.hits[path] == 3  # the failure was fetched at 1699.999: rate-limited since

    clock.now += 31
    assert _code(provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"
    assert idp.hits[path] == 4

    # The issuer comes back, with a rotated key: the next fetch brings the new set.
    idp.failing = False
    idp.serve_jwks({"keys": [*JWKS["keys"], es256_jwk(OTHER_ES_LABEL, ROTATED_KID)]}, path=path)
    clock.now += 31
    assert _verify(provider, idp.base, kid=ROTATED_KID, label=OTHER_ES_LABEL).subject
    assert idp.hits[path] == 5
    clock.now += 99  # fresh again: cached for max-age, no request
    assert _verify(provider, idp.base).subject
    assert idp.hits[path] == 5


def test_stale_after_the_server_stops_listening(idp: JwksServer) -> None:
    idp.serve_jwks(JWKS, "max-age=100")
    clock = Clock()
    provider = _provider(idp, clock, stale=300)
    assert _verify(provider, idp.base).subject
    idp.stop()
    clock.now = 1200.0
    assert _verify(provider, idp.base).subject  # connection refused: stale keys
    assert provider.fetch_count == 2
    clock.now = 1400.0
    assert _code(provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"
    idp.restart()
    clock.now = 1431.0
    assert _verify(provider, idp.base).subject
    assert provider.fetch_count == 4


def test_stale_after_garbage_and_discovery_failures(idp: JwksServer) -> None:
    idp.serve_discovery()
    idp.serve_jwks(JWKS, "max-age=100")
    clock = Clock()
    provider = JwksProvider(issuer=idp.base, clock=clock, stale_if_error_seconds=60)
    assert _verify(provider, idp.base).subject
    idp.routes["/jwks.json"] = Route(200, b"<html>maintenance</html>")
    clock.now = 1100.0
    assert _verify(provider, idp.base).subject  # JWKS_INVALID is a failed refresh too
    clock.now = 1160.0
    assert _code(provider, idp.base) == "OIDC_JWKS_INVALID"


def test_default_is_no_stale_keys(idp: JwksServer) -> None:
    idp.serve_jwks(JWKS, "max-age=100")
    clock = Clock()
    provider = JwksProvider(jwks_uri=f"{idp.base}/jwks.json", clock=clock)
    assert provider.stale_if_error_seconds == 0
    assert _verify(provider, idp.base).subject
    idp.failing = True
    clock.now = 1100.0
    assert _code(provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"


def test_first_fetch_failing_has_nothing_stale(idp: JwksServer) -> None:
    idp.failing = True
    provider = _provider(idp, Clock())
    assert _code(provider, idp.base) == "OIDC_JWKS_UNAVAILABLE"


def test_unknown_kid_during_an_outage(idp: JwksServer, caplog: pytest.LogCaptureFixture) -> None:
    idp.serve_jwks(JWKS, "max-age=100")
    clock = Clock()
    provider = _provider(idp, clock)
    assert _verify(provider, idp.base).subject
    idp.failing = True
    clock.now = 1050.0  # still fresh: an unknown kid refetches once; the failure keeps the keys
    with caplog.at_level(logging.WARNING, logger="embedded_wallet_crypto"):
        assert _code(provider, idp.base, kid="unknown") == "OIDC_KEY_NOT_FOUND"
    assert "still fresh" in caplog.text
    assert _verify(provider, idp.base).subject


@pytest.mark.parametrize(
    "value", [math.nan, math.inf, -math.inf, -1, -0.001, 86400.5, 10**400, True]
)
def test_stale_if_error_seconds_is_validated(value: Any) -> None:
    with pytest.raises(ewc.OidcError) as raised:
        JwksProvider(jwks_uri="https://idp.example/keys", stale_if_error_seconds=value)
    assert raised.value.code == "OIDC_CONFIG_INVALID" and isinstance(raised.value, ValueError)


@pytest.mark.parametrize("value", ["60", None, [60]])
def test_stale_if_error_seconds_type(value: Any) -> None:
    with pytest.raises(TypeError):
        JwksProvider(jwks_uri="https://idp.example/keys", stale_if_error_seconds=value)


def test_stale_if_error_seconds_bounds_accepted() -> None:
    for value in (0, 0.5, 86400, 86400.0):
        provider = JwksProvider(jwks_uri="https://idp.example/keys", stale_if_error_seconds=value)
        assert provider.stale_if_error_seconds == float(value)
    assert ewc.oidc.MAX_STALE_IF_ERROR_SECONDS == 86400


@given(
    window=st.floats(0, 86400, allow_nan=False),
    later=st.lists(st.floats(0, 200_000, allow_nan=False), min_size=1, max_size=6),
)
def test_property_stale_exactly_inside_the_window(window: float, later: list[float]) -> None:
    """With the issuer failing after the first fetch, a verification at any later time succeeds
    exactly while the time is before expiry + window (an injected getter: the rule, not I/O)."""
    up = [True]

    def http_get(url: str, timeout: float) -> ewc.oidc.HttpResponse:
        if not up[0]:
            raise OSError("down")
        return ewc.oidc.HttpResponse(
            200, json.dumps(JWKS).encode(), {"cache-control": "max-age=100"}
        )

    clock = Clock()
    provider = JwksProvider(
        jwks_uri="https://idp.example/keys",
        http_get=http_get,
        clock=clock,
        stale_if_error_seconds=window,
    )
    iss = "https://accounts.google.com"
    assert _verify(provider, iss).subject
    up[0] = False
    for offset in sorted(later):
        clock.now = 1100.0 + offset
        if clock.now < 1100.0 + window:  # expiry + window, summed in floats as the provider does
            assert _verify(provider, iss).subject
        else:
            assert _code(provider, iss) == "OIDC_JWKS_UNAVAILABLE"
