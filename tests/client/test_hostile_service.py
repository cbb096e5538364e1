"""The client against a hostile service, over real HTTP (``_hostile``): redirects (never
followed, never a result), error bodies that are malformed or carry the request's secrets
back, Retry-After values that are huge, negative, past or garbage, and storms of 429 and
503 (the tries are bounded), in both clients."""

from __future__ import annotations

import base64
import time
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.client import ApiError, ClientError, RetryPolicy

from ._hostile import Hostile, close_client, json_answer, open_client, response


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308, 300, 304])
@pytest.mark.parametrize("body", [b"", b'{"supportedCurrencies": ["USD"]}'])
def test_a_redirect_is_an_error_and_not_followed(
    hostile_client: Any, hostile: Hostile, status: int, body: bytes
) -> None:
    elsewhere = {"Location": "http://attacker.invalid/steal", "Content-Type": "application/json"}
    hostile.script(response(status, body, elsewhere))
    with pytest.raises(ApiError) as redirected:
        hostile_client.config.get()
    assert (redirected.value.status, redirected.value.code) == (status, f"HTTP_{status}")
    assert "redirect" in redirected.value.reason
    assert len(hostile.seen) == 1  # one request, to the service only


@pytest.mark.parametrize(
    "body",
    [
        b"<html>Bad Gateway</html>",
        b'{"code": 5, "reason": ["x"]}',
        b'{"code": "", "reason": ""}',
        b"[1, 2]",
        b"null",
        b'{"code": "NOT_FOUND"',
    ],
)
def test_a_malformed_error_body_is_http_status(
    hostile_client: Any, hostile: Hostile, body: bytes
) -> None:
    hostile.script(response(404, body, {"Content-Type": "application/json"}))
    with pytest.raises(ApiError) as failed:
        hostile_client.config.get()
    assert (failed.value.status, failed.value.code) == (404, "HTTP_404")
    assert failed.value.reason == "the service answered HTTP 404"


@pytest.mark.parametrize(
    ("retry_after", "tries"),
    [
        ("99999999999999999999", 1),  # beyond the cap: raised at once
        ("Fri, 31 Dec 9999 23:59:59 GMT", 1),
        ("1e300", 1),
        ("-5", 2),  # unreadable: the backoff instead
        ("Mon, 01 Jan 1990 00:00:00 GMT", 2),  # past: at once
        ("Mon, 99 Foo 99999 99:99:99 XYZ", 2),
        ("nan", 2),
        ("0x10", 2),
        ("", 2),
    ],
)
def test_retry_after_of_any_value_never_hangs(
    hostile_client: Any, hostile: Hostile, retry_after: str, tries: int
) -> None:
    limited = {"code": "RATE_LIMITED", "reason": "slow down"}
    hostile.script(*[json_answer(429, limited, {"Retry-After": retry_after})] * 5)
    started = time.monotonic()
    with pytest.raises(ApiError) as failed:
        hostile_client.config.get()
    assert (failed.value.status, failed.value.code) == (429, "RATE_LIMITED")
    assert len(hostile.seen) == tries
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_a_storm_of_errors_is_tried_a_bounded_number_of_times(
    mode: str, hostile: Hostile, status: int
) -> None:
    hostile.script(*[json_answer(status, {"code": "BUSY", "reason": "busy"})] * 50)
    client = open_client(mode, hostile, retry=RetryPolicy(max_retries=10, backoff=0.001))
    try:
        with pytest.raises(ApiError) as failed:
            client.config.get()
    finally:
        close_client(client)
    assert (failed.value.status, failed.value.code) == (status, "BUSY")
    assert len(hostile.seen) == 11


def test_a_hostile_webhook_key_is_refused(hostile_client: Any, hostile: Hostile) -> None:
    garbage = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"
    hostile.script(json_answer(200, "not a key"), json_answer(200, 5), json_answer(200, garbage))
    signed = {"X-Grid-Signature": "t=1,v1=abc"}
    for _ in range(2):  # neither is kept: the next call fetches the key again
        with pytest.raises(ClientError) as not_pem:
            hostile_client.verify_webhook(signed, b"{}")
        assert not_pem.value.code == "RESPONSE_INVALID"
    with pytest.raises(ewc.InvalidKey) as not_a_key:
        hostile_client.verify_webhook(signed, b"{}")
    assert not_a_key.value.code == "INVALID_KEY_ENCODING"
    assert len(hostile.seen) == 3


def _secrets_shown(error: ApiError, secrets: list[str]) -> list[str]:
    shown = " ".join([str(error), repr(error), error.reason, error.code, repr(error.body)])
    return [secret for secret in secrets if secret in shown]


def test_an_error_body_that_echoes_the_requests_secrets_shows_none(
    mode: str, hostile: Hostile
) -> None:
    """A service (or a proxy in front of it) that puts the request's credentials, its OTP
    code or its token back in the error body: none of them shows in the ApiError."""
    secret, token = "platform-secret-1", "gat_" + "t" * 40
    basic = base64.b64encode(f"platform-id:{secret}".encode()).decode()
    platform = [secret, basic, f"platform-id:{secret}"]

    def echo(*values: str, code: str = "UNAUTHORIZED") -> bytes:
        reason = "you sent " + ", ".join(values)
        return json_answer(401, {"code": code, "reason": reason, "echo": {"sent": list(values)}})

    hostile.script(
        echo(f"Authorization: Basic {basic}", f"platform-id:{secret}", secret),
        echo(secret, code=f"BAD_SECRET_{secret}"),
        echo(f"Authorization: Bearer {token}"),
        json_answer(400, {"code": "OTP_INVALID", "reason": "the code 864213 is not the one sent"}),
    )
    client = open_client(mode, hostile, agent_token=token)
    try:
        with pytest.raises(ApiError) as basic_echo:
            client.config.get()
        with pytest.raises(ApiError) as in_code:
            client.config.get()
        with pytest.raises(ApiError) as bearer_echo:
            client.agent.me()
        body = {"type": "EMAIL_OTP", "otp": "864213", "clientPublicKey": "02" + "ab" * 32}
        with pytest.raises(ApiError) as otp_echo:
            client.auth.verify("AuthMethod:1", body=body)
    finally:
        close_client(client)
    assert basic_echo.value.code == "UNAUTHORIZED"
    assert _secrets_shown(basic_echo.value, platform) == []
    assert "[REDACTED]" in basic_echo.value.reason
    assert (in_code.value.code, _secrets_shown(in_code.value, platform)) == ("HTTP_401", [])
    assert _secrets_shown(bearer_echo.value, [token]) == []
    assert otp_echo.value.code == "OTP_INVALID"
    assert _secrets_shown(otp_echo.value, ["864213"]) == []
