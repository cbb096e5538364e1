"""Strong customer authentication over real HTTP, in both environments, on SQLite and
PostgreSQL: a TOTP factor enrolled and used for an SCA login, each code computed here from the
enrollment secret by an RFC 6238 implementation of this test's own (HMAC-SHA1 from the
standard library, checked on RFC 6238 appendix B's vectors); a code of the wrong step and a
replayed code refused with their codes; SMS codes through the outbox; the lockout; and a
customer outside the EEA refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import struct
import time
from pathlib import Path
from typing import Any

import pytest

from ._client import SandboxClient
from ._server import SandboxServer

IP = "203.0.113.42"


def rfc6238(key: bytes, moment: float, *, digits: int = 6, period: int = 30) -> str:
    """RFC 6238 (TOTP) on RFC 4226 (HOTP) with HMAC-SHA1, written from the RFCs."""
    counter = struct.pack(">Q", int(moment // period))
    digest = hmac.new(key, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 10**digits:0{digits}d}"


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (59, "94287082"),
        (1111111109, "07081804"),
        (1234567890, "89005924"),
        (20000000000, "65353130"),
    ],
)
def test_the_tests_rfc6238_on_appendix_b(moment: int, expected: str) -> None:
    assert rfc6238(b"12345678901234567890", moment, digits=8) == expected


def eu_customer(client: SandboxClient, **fields: Any) -> str:
    body = {"region": "DE", "email": "erika@example.com", "phoneNumber": "+4915112345678"}
    customer_id: str = client.create_customer(**{**body, **fields})["id"]
    return customer_id


def enroll_totp(client: SandboxClient, customer_id: str) -> bytes:
    """Enroll a TOTP factor; returns its secret (read from the base32 the app would take)."""
    params = {"customerId": customer_id}
    started = client.post("/sca/factors", {"type": "TOTP"}, params=params)
    assert started.status_code == 200, started.text
    body = started.json()
    assert body["totpUri"].startswith("otpauth://totp/")
    assert f"secret={body['secretBase32Encoded']}" in body["totpUri"]
    padded = body["secretBase32Encoded"] + "=" * (-len(body["secretBase32Encoded"]) % 8)
    key = base64.b32decode(padded)
    assert key.hex() == body["secret"]
    # The first code confirms it; then wait for the next step, the first one being used.
    confirmed = client.post(
        "/sca/factors/confirm",
        {"type": "TOTP", "secret": body["secret"], "code": rfc6238(key, time.time())},
        params=params,
    )
    assert confirmed.status_code == 200, confirmed.text
    codes = confirmed.json()["recoveryCodes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    return key


def next_step(period: int = 30) -> float:
    """Sleep to the start of the next time step (plus a margin); returns the time."""
    now = time.time()
    time.sleep(period - now % period + 0.2)
    return time.time()


def login(client: SandboxClient, customer_id: str, code: str) -> Any:
    params = {"customerId": customer_id}
    started = client.post("/sca/login/start", {"factor": "TOTP"}, params=params)
    assert started.status_code == 200, started.text
    assert started.json() == {"factor": "TOTP"}
    return client.post(
        "/sca/login/complete",
        {"factor": "TOTP", "code": code, "endUserIpAddress": IP},
        params=params,
    )


def test_a_totp_login_once_per_code(client: SandboxClient) -> None:
    customer_id = eu_customer(client)
    key = enroll_totp(client, customer_id)
    listed = client.get("/sca/factors", params={"customerId": customer_id}).json()
    assert [f["factor"] for f in listed["factors"]] == ["SMS_OTP", "TOTP"]
    now = next_step()
    wrong_step = login(client, customer_id, rfc6238(key, now - 90))
    assert wrong_step.status_code == 400, wrong_step.text
    assert wrong_step.json()["code"] == "TOTP_INVALID"
    code = rfc6238(key, now)
    done = login(client, customer_id, code)
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "SUCCESS" and done.json()["sessionExpiresAt"]
    replayed = login(client, customer_id, code)
    assert replayed.status_code == 400, replayed.text
    assert replayed.json()["code"] == "TOTP_REPLAYED"
    earlier = login(client, customer_id, rfc6238(key, now - 30))  # in the window, but earlier
    assert earlier.json()["code"] in ("TOTP_REPLAYED", "TOTP_INVALID"), earlier.text


def test_the_sandbox_code(client: SandboxClient, server: SandboxServer) -> None:
    """The published sandbox code 123456 logs in in the sandbox only (TOTP and SMS)."""
    customer_id = eu_customer(client)
    enroll_totp(client, customer_id)
    answer = login(client, customer_id, "123456")
    if server.environment == "sandbox":
        assert answer.status_code == 200, answer.text
    else:
        assert (answer.status_code, answer.json()["code"]) == (400, "TOTP_INVALID")


def _sms(mail_dir: Path, before: set[Path]) -> str:
    new = sorted(set(mail_dir.glob("*.eml")) - before)
    assert new, "no SMS in the outbox"
    text = new[-1].read_text()
    assert "sms.sandbox.invalid" in text
    return text.rsplit("code is: ", 1)[1].split()[0]


def test_an_sms_login_through_the_outbox(client: SandboxClient, server: SandboxServer) -> None:
    customer_id = eu_customer(client)
    params = {"customerId": customer_id}
    before = set(server.mail_dir.glob("*.eml"))
    started = client.post("/sca/login/start", {"factor": "SMS_OTP"}, params=params)
    assert started.status_code == 200, started.text
    challenge = started.json()["challengeId"]
    code = _sms(server.mail_dir, before)
    body = {"factor": "SMS_OTP", "challengeId": challenge, "endUserIpAddress": IP}
    wrong = client.post(
        "/sca/login/complete",
        {**body, "code": "999999" if code != "999999" else "111111"},
        params=params,
    )
    assert (wrong.status_code, wrong.json()["code"]) == (400, "OTP_INVALID"), wrong.text
    done = client.post("/sca/login/complete", {**body, "code": code}, params=params)
    assert done.status_code == 200, done.text
    again = client.post("/sca/login/complete", {**body, "code": code}, params=params)
    assert (again.status_code, again.json()["code"]) == (400, "CHALLENGE_NOT_FOUND"), again.text


def test_the_lockout(client: SandboxClient) -> None:
    customer_id = eu_customer(client)
    enroll_totp(client, customer_id)
    for attempt in range(1, 5):
        bad = login(client, customer_id, "000001")
        assert bad.json()["code"] == "TOTP_INVALID", (attempt, bad.text)
    fifth = login(client, customer_id, "000001")
    assert fifth.json()["code"] == "TOTP_INVALID"
    locked = login(client, customer_id, "000001")
    assert (locked.status_code, locked.json()["code"]) == (423, "ACCOUNT_LOCKED"), locked.text
    params = {"customerId": customer_id}
    reset = client.post(
        "/sca/record-event", {"eventType": "RESET_PASSWORD_COMPLETED"}, params=params
    )
    assert reset.json() == {
        "eventType": "RESET_PASSWORD_COMPLETED",
        "suspended": False,
        "lockedUntil": None,
        "failedAttempts": 0,
    }
    for _ in range(9):
        event = client.post(
            "/sca/record-event", {"eventType": "FAILED_LOGIN_ATTEMPT"}, params=params
        )
    assert event.json()["suspended"] is True and event.json()["failedAttempts"] == 9


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/sca/factors", None),
        ("POST", "/sca/factors", {"type": "TOTP"}),
        ("POST", "/sca/login/start", {"factor": "TOTP"}),
        ("POST", "/sca/record-event", {"eventType": "FAILED_LOGIN_ATTEMPT"}),
    ],
)
def test_outside_the_eea(client: SandboxClient, method: str, path: str, body: Any) -> None:
    customer_id = client.create_customer(region="US")["id"]
    answer = client.request(method, path, json=body, params={"customerId": customer_id})
    assert (answer.status_code, answer.json()["code"]) == (409, "SCA_NOT_REQUIRED"), answer.text
    missing = client.request(method, path, json=body, params={"customerId": "Customer:nobody"})
    assert (missing.status_code, missing.json()["code"]) == (404, "USER_NOT_FOUND")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/sca/factors", {"type": "SMS_OTP"}),
        ("/sca/factors", {}),
        ("/sca/factors/confirm", {"type": "TOTP", "secret": "zz", "code": "1"}),
        ("/sca/factors/confirm", {"type": "TOTP", "secret": "00" * 20, "code": "123456"}),
        ("/sca/login/start", {"factor": "TOTP"}),
        ("/sca/login/start", {"factor": "EMAIL"}),
        ("/sca/login/complete", {"factor": "TOTP", "code": "1"}),
        ("/sca/login/complete", {"factor": "SMS_OTP", "code": "1", "endUserIpAddress": IP}),
        ("/sca/record-event", {"eventType": "LOGIN"}),
    ],
)
def test_bad_requests(client: SandboxClient, path: str, body: Any) -> None:
    customer_id = eu_customer(client)
    answer = client.post(path, body, params={"customerId": customer_id})
    assert answer.status_code == 400, answer.text
    assert set(answer.json()) == {"status", "code", "reason"}


def test_a_label_with_a_colon(client: SandboxClient) -> None:
    """The otpauth label reserves the colon for the issuer: an email with one still enrolls,
    as does a customer without an email."""
    for email in ("odd:name@example.com", None):
        fields = {"email": email} if email else {}
        customer_id = client.create_customer(region="AT", phoneNumber="+43664123456", **fields)[
            "id"
        ]
        started = client.post("/sca/factors", {"type": "TOTP"}, params={"customerId": customer_id})
        assert started.status_code == 200, started.text
        label = started.json()["totpUri"].split("?")[0].rsplit("/", 1)[1]
        assert label.count(":") + label.count("%3A") == 1, label


def test_text_no_database_takes(client: SandboxClient) -> None:
    """A NUL or a lone surrogate in an id, a secret or a code: 4xx with a code, never 500."""
    customer_id = eu_customer(client)
    for params, body in (
        ({"customerId": "Customer:\x00"}, {"type": "TOTP"}),
        ({"customerId": customer_id}, {"type": "TOTP", "secret": "\x00" * 40, "code": "1"}),
        ({"customerId": customer_id}, {"type": "TOTP", "secret": "ab" * 20, "code": "\ud800"}),
    ):
        path = "/sca/factors/confirm" if "secret" in body else "/sca/factors"
        answer = client.request(
            "POST",
            path,
            content=json.dumps(body),  # ASCII: a lone surrogate as its escape
            headers={"Content-Type": "application/json"},
            params=params,
        )
        assert 400 <= answer.status_code < 500, answer.text
        assert set(answer.json()) == {"status", "code", "reason"}
    keys = client.post(
        "/auth/delegated-keys",
        {"cardId": "Card:x", "internalAccountId": "InternalAccount:\x00", "nickname": "k\x00"},
    )
    assert 400 <= keys.status_code < 500, keys.text
