"""The client's parts without a service: settings, the base URL, Retry-After and backoff,
path rendering, the response-model slot, the results' reprs and webhook headers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.client import (
    AgentCredentials,
    Client,
    ClientError,
    ExportedWallet,
    RetryPolicy,
    WalletSession,
    parse_retry_after,
)
from embedded_wallet_crypto.client._answers import read_answer
from embedded_wallet_crypto.client._operations import Operation, operation
from embedded_wallet_crypto.client._webhooks import verify_event
from embedded_wallet_crypto.sandbox.models.wallet import SignedRequestChallengeOut
from pydantic import BaseModel, Field

from ._support import BASE


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com",
        "https://api.example.com/v1",
        "https://api.example.com/2025-10-13?x=1",
        "https://api.example.com/2025-10-13#f",
        "ftp://api.example.com/2025-10-13",
        "/2025-10-13",
        "https://api.example.com/2025-10-13/customers",
    ],
)
def test_a_base_url_without_the_version_segment_is_refused(url: str) -> None:
    with pytest.raises(ClientError) as refused:
        Client(url)
    assert refused.value.code == "BASE_URL_INVALID"


def test_base_urls_that_end_with_the_version() -> None:
    assert Client(f"{BASE}/").base_url == BASE
    assert Client("http://127.0.0.1:8000/grid/2025-10-13").base_url.endswith("/grid/2025-10-13")
    with pytest.raises(TypeError):
        Client(b"https://api.example.com/2025-10-13")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"sandbox": "false"}, TypeError),
        ({"timeout": 0}, ClientError),
        ({"timeout": True}, TypeError),
        ({"max_retries": -1}, ClientError),
        ({"max_retries": 11}, ClientError),
        ({"max_retries": 1.5}, TypeError),
        ({"platform_credentials": ("id",)}, TypeError),
        ({"platform_credentials": ("a:b", "secret")}, ClientError),
        ({"platform_credentials": ("id", "")}, ClientError),
        ({"agent_token": "tök"}, ClientError),
        ({"agent_token": 5}, TypeError),
        ({"retry": {"max_retries": 1}}, TypeError),
        ({"event_hook": "print"}, TypeError),
    ],
)
def test_bad_settings_are_refused(options: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        Client(BASE, **options)


def test_retry_after_seconds_and_dates() -> None:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert parse_retry_after("7", now) == 7.0
    assert parse_retry_after(" 0 ", now) == 0.0
    assert parse_retry_after("1.5", now) == 1.5
    later = format_datetime(now + timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(later, now) == 90.0
    earlier = format_datetime(now - timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(earlier, now) == 0.0
    for unreadable in (None, "", "soon", "-3", "nan", "inf"):
        assert parse_retry_after(unreadable, now) is None
    assert parse_retry_after("9" * 40, now) == float("9" * 12)


def test_backoff_is_exponential_with_jitter_and_capped() -> None:
    policy = RetryPolicy(max_retries=5, backoff=1.0, max_backoff=4.0)
    for attempt, step in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 4.0), (5, 4.0)]:
        waits = {policy.backoff_seconds(attempt) for _ in range(50)}
        assert all(step / 2 <= wait <= step for wait in waits)
        assert len(waits) > 1  # jittered


def test_what_is_retried() -> None:
    policy = RetryPolicy(max_retries=2, max_retry_after=10)
    none: dict[str, str] = {}
    for status in (429, 502, 503, 504):
        assert policy.wait_after_answer(1, status, none, None, False) is not None
    for status in (400, 401, 404, 409, 422, 500):
        assert policy.wait_after_answer(1, status, none, None, True) is None
    in_progress = "IDEMPOTENCY_REQUEST_IN_PROGRESS"
    assert policy.wait_after_answer(1, 409, {"retry-after": "1"}, in_progress, True) == 1.0
    assert policy.wait_after_answer(1, 409, {"retry-after": "1"}, in_progress, False) is None
    assert policy.wait_after_answer(3, 503, none, None, False) is None  # the tries ran out
    assert policy.wait_after_answer(1, 429, {"retry-after": "11"}, None, False) is None
    assert policy.wait_after_answer(1, 429, {"retry-after": "10"}, None, False) == 10.0
    assert policy.wait_after_transport_error(2) is not None
    assert policy.wait_after_transport_error(3) is None


def test_paths_are_rendered_and_secrets_known() -> None:
    op = operation("agents.approve_action")
    assert op.render(("Agent:1", "Action:2")) == "/agents/Agent:1/actions/Action:2/approve"
    lookup = operation("quotes.lookup_uma")
    assert lookup.render(("$a.b@c.d",)) == "/receiver/uma/$a.b@c.d"
    assert operation("quotes.get").render(("a/b?c#d",)) == "/quotes/a%2Fb%3Fc%23d"
    with pytest.raises(TypeError, match="takes 2 path argument"):
        op.render(("Agent:1",))
    with pytest.raises(TypeError):
        operation("quotes.get").render((5,))
    with pytest.raises(ClientError) as empty:
        operation("quotes.get").render(("",))
    assert empty.value.code == "INVALID_ARGUMENT"
    redeem = operation("agents.redeem_device_code")
    assert redeem.secret_values(("AGENT-1234-ABCD",)) == ("AGENT-1234-ABCD",)
    assert operation("quotes.get").secret_values(("Quote:1",)) == ()


def test_an_answer_is_read_into_its_model() -> None:
    class Thing(BaseModel):
        id: str
        secret: str = Field(repr=False)

    plain = Operation("x", "get", "GET", "/x", "getX", True)
    typed = Operation("x", "get", "GET", "/x", "getX", True, response_model=Thing)
    signed = Operation(
        "x", "make", "POST", "/x", "makeX", False, signing="retry", response_model=Thing
    )
    assert read_answer(plain, 200, {"id": "1"}) == {"id": "1"}
    assert read_answer(typed, 200, {"id": "1", "secret": "s"}) == Thing(id="1", secret="s")
    assert read_answer(typed, 204, None) is None
    challenge = {"payloadToSign": "{}", "requestId": "r", "expiresAt": "2025-01-01T00:00:00Z"}
    assert isinstance(read_answer(signed, 202, challenge), SignedRequestChallengeOut)
    # Another operation's 202 (an accepted job) is its answer, read into its model.
    assert read_answer(typed, 202, {"id": "1", "secret": "s"}) == Thing(id="1", secret="s")
    with pytest.raises(ClientError):
        read_answer(typed, 202, {"requestId": "r"})
    paid = Operation(
        "x", "pay", "POST", "/x", "payX", False, signing="payload", response_model=Thing
    )
    assert read_answer(paid, 202, {"requestId": "r"}) == {"requestId": "r"}  # as it came
    accepted = read_answer(typed, 202, {"id": "1", "secret": "s"})  # an unsigned 202: its model
    assert accepted == Thing(id="1", secret="s")
    with pytest.raises(ClientError) as wrong:
        read_answer(typed, 200, {"id": 5, "secret": "hunter2-secret"})
    assert wrong.value.code == "RESPONSE_INVALID"
    assert "id: string_type" in str(wrong.value) and "secret: missing" not in str(wrong.value)
    assert "hunter2" not in str(wrong.value)  # where and what only, never a value
    with pytest.raises(ClientError, match="secret: missing"):
        read_answer(typed, 200, {"id": "1"})


def test_results_never_show_their_secrets() -> None:
    key = ewc.KeyPair.generate()
    session = WalletSession.from_body(
        {
            "id": "Session:1",
            "accountId": "InternalAccount:1",
            "type": "EMAIL_OTP",
            "expiresAt": "2030-01-01T00:00:00Z",
            "encryptedSessionSigningKey": "sealed-key",
        },
        key,
    )
    assert "sealed-key" not in repr(session) and "encryptedSessionSigningKey" not in session.data
    assert key.private_key_bytes().hex() not in repr(session)
    assert session.expires_at == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert not session.expired(datetime(2029, 12, 31, tzinfo=timezone.utc))
    mnemonic = ewc.generate_mnemonic()
    assert mnemonic not in repr(ExportedWallet("InternalAccount:1", mnemonic, None, True))
    agent = AgentCredentials.from_body({"agentId": "Agent:1", "accessToken": "gat_" + "a" * 40})
    assert "gat_" not in repr(agent)
    assert "secret" not in repr(Client(BASE, platform_credentials=("id", "secret")))
    with pytest.raises(ClientError) as bad:
        WalletSession.from_body({"id": "S", "accountId": "A", "type": "T", "expiresAt": "x"}, key)
    assert bad.value.code == "RESPONSE_INVALID"


def _webhook_signer() -> tuple[ewc.KeyPair, str]:
    """A webhook signing key and its verification key (SPKI PEM)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    signer = ewc.KeyPair.generate()
    point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), signer.public_key_bytes())
    pem = point.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    return signer, pem


def test_webhook_headers_are_checked() -> None:
    signer, pem = _webhook_signer()
    body = b'{"id":"Webhook:1","type":"OUTGOING_PAYMENT"}'
    header = ewc.sign_webhook(body, signer)
    assert verify_event({"x-grid-signature": header}, body, pem)["id"] == "Webhook:1"
    assert verify_event([("X-Grid-Signature", header)], bytearray(body), pem)["id"] == "Webhook:1"
    for headers in ({}, [("X-Grid-Signature", header), ("x-grid-signature", header)]):
        with pytest.raises(ewc.StampError) as malformed:
            verify_event(headers, body, pem)
        assert malformed.value.code == "WEBHOOK_SIGNATURE_MALFORMED"
    listed = b"[1, 2]"
    with pytest.raises(ewc.DecodeError) as not_an_object:
        verify_event({"X-Grid-Signature": ewc.sign_webhook(listed, signer)}, listed, pem)
    assert not_an_object.value.code == "WEBHOOK_BODY_INVALID"
    with pytest.raises(TypeError):
        verify_event({"X-Grid-Signature": header}, 5, pem)  # type: ignore[arg-type]


def test_a_signed_webhook_nested_past_the_parsers_depth_is_not_an_event() -> None:
    signer, pem = _webhook_signer()
    deep = b'{"id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(ewc.DecodeError) as too_deep:
        verify_event({"X-Grid-Signature": ewc.sign_webhook(deep, signer)}, deep, pem)
    assert too_deep.value.code == "WEBHOOK_BODY_INVALID"
