"""The control plane over real HTTP, on both backends: the test clock (what falls due when it
moves), the reset, the request log and the faults' answers. The races (two processes) are in
``test_control_races``; ``--seed`` in ``test_seed``; 401 before 403 for every control route in
``test_auth_order``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._payments import accounts, fund, usd_external, wait_for, webhook_receiver
from ._server import SandboxServer
from .conftest import server_fixture

control_server = server_fixture("control", oidc=True)


@pytest.fixture
def api(control_server: SandboxServer) -> Iterator[SandboxClient]:
    client = SandboxClient(control_server.base_url, control_server.auth)
    yield client
    client.request("DELETE", "/sandbox/faults")
    client.close()


def _now(api: SandboxClient) -> datetime:
    response = api.get("/sandbox/clock")
    assert response.status_code == 200, response.text
    return datetime.fromisoformat(response.json()["now"].replace("Z", "+00:00"))


def _advance(api: SandboxClient, seconds: float) -> datetime:
    response = api.post("/sandbox/clock/advance", {"seconds": seconds})
    assert response.status_code == 200, response.text
    return datetime.fromisoformat(response.json()["now"].replace("Z", "+00:00"))


# --- the test clock --------------------------------------------------------------------------


def test_the_clock_moves_forward(api: SandboxClient) -> None:
    before = _now(api)
    after = _advance(api, 7200)
    assert (after - before).total_seconds() >= 7200
    assert _now(api) >= after
    created = api.create_customer()
    assert datetime.fromisoformat(created["createdAt"].replace("Z", "+00:00")) >= after


@pytest.mark.parametrize(
    "content",
    [
        b'{"seconds": -1}',
        b'{"seconds": "60"}',
        b'{"seconds": true}',
        b'{"seconds": null}',
        b'{"seconds": 1e300}',
        b'{"seconds": Infinity}',
        b'{"seconds": NaN}',
        b"{}",
        b'{"seconds": 5, "other": 1}',
        b"[5]",
        b"five",
    ],
)
def test_a_bad_advance_is_refused(api: SandboxClient, content: bytes) -> None:
    before = _now(api)
    response = api.request(
        "POST",
        "/sandbox/clock/advance",
        content=content,
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "INVALID_INPUT"
    assert (_now(api) - before).total_seconds() < 3600  # not moved


def test_the_clock_stops_a_hundred_years_ahead(tmp_path_factory: pytest.TempPathFactory) -> None:
    own = SandboxServer(tmp_path_factory.mktemp("hundred-years"))  # the others' clock stays
    own.start()
    try:
        api = SandboxClient(own.base_url, own.auth)
        try:
            ten_years = 10 * 365 * 24 * 3600
            statuses = [
                api.post("/sandbox/clock/advance", {"seconds": ten_years}).status_code
                for _ in range(10)
            ]
            assert statuses == [200] * 10
            response = api.post("/sandbox/clock/advance", {"seconds": ten_years})
            assert response.status_code == 400
            assert response.json()["code"] == "CLOCK_LIMIT_REACHED"
            assert api.post("/sandbox/clock/advance", {"seconds": 0}).status_code == 200
        finally:
            api.close()
    finally:
        assert own.stop() == 0


def test_an_advance_expires_signed_retry_challenges_and_sessions(
    control_server: SandboxServer, api: SandboxClient
) -> None:
    wallet = Wallet(api, control_server)
    session, key = wallet.first_login("OAUTH")
    path = f"/internal-accounts/{wallet.account_id}/export"
    body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    challenge = api.post(path, body).json()
    _advance(api, 301)  # the challenge lives 300 s
    response = api.retry(
        "POST", path, body, challenge, ewc.create_stamp(challenge["payloadToSign"], key)
    )
    assert response.status_code == 401
    assert "expired" in response.json()["reason"]
    listed = api.get("/auth/sessions", params={"accountId": wallet.account_id}).json()
    assert [s["id"] for s in listed["data"]] == [session["id"]]
    _advance(api, 15 * 60)  # the session lives 15 minutes
    assert api.get("/auth/sessions", params={"accountId": wallet.account_id}).json() == {"data": []}


def test_an_advance_expires_a_one_time_code(
    control_server: SandboxServer, api: SandboxClient
) -> None:
    wallet = Wallet(api, control_server)
    credential = wallet.add("EMAIL_OTP")  # its first code is emailed
    code = wallet.otp()
    _advance(api, 601)  # a code lives 10 minutes
    public = ewc.KeyPair.generate().public_key_hex()
    response = api.post(
        f"/auth/credentials/{credential['id']}/verify",
        {"type": "EMAIL_OTP", "otp": code, "clientPublicKey": public},
    )
    assert response.status_code == 401
    assert response.json()["code"] == "UNAUTHORIZED"
    assert "expired" in response.json()["reason"].lower()


def test_an_advance_expires_a_quote(api: SandboxClient) -> None:
    made = api.create_customer(currencies=["USD", "EUR"])
    found = accounts(api, made["id"])
    fund(api, found["EUR"]["id"], 50_000)
    quote = api.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": found["EUR"]["id"]},
            "destination": {"destinationType": "ACCOUNT", "accountId": found["USD"]["id"]},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 10_000,
        },
    ).json()
    _advance(api, 301)  # a quote lives 5 minutes
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "EXPIRED"
    executed = api.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 409
    assert executed.json()["code"] == "QUOTE_EXPIRED"


def test_an_advance_runs_the_delayed_outcomes_before_answering(api: SandboxClient) -> None:
    made = api.create_customer(currencies=["USD"])
    usd = accounts(api, made["id"])["USD"]
    fund(api, usd["id"], 10_000)
    external = usd_external(api, made["id"], "005")  # pending about 30 s, then fails
    created = api.post(
        "/transfer-out",
        {
            "source": {"accountId": usd["id"]},
            "destination": {"accountId": external["id"]},
            "amount": 100,
        },
    ).json()
    assert created["status"] == "PENDING"
    _advance(api, 31)
    done = api.get(f"/transactions/{created['id']}").json()  # no waiting: already due and run
    assert done["status"] == "FAILED"
    assert done["failureReason"] == "COUNTERPARTY_POST_TX_FAILED"


def test_an_advance_runs_the_webhook_retries_before_answering(
    control_server: SandboxServer, api: SandboxClient
) -> None:
    with webhook_receiver() as receiver:
        # The first two deliveries of the transfer's events fail (the endpoint's TEST event,
        # which is never retried, is taken).
        failures = [500, 500]

        def answer(event: dict[str, Any]) -> int:
            if event.get("type") == "TEST":
                return 200
            with receiver.lock:
                return failures.pop(0) if failures else 200

        receiver.answer_for = answer  # type: ignore[method-assign]
        patched = api.request("PATCH", "/config", json={"webhookEndpoint": receiver.url})
        assert patched.status_code == 200, patched.text
        try:
            made = api.create_customer(currencies=["USD"])
            usd = accounts(api, made["id"])["USD"]
            fund(api, usd["id"], 10_000)
            external = usd_external(api, made["id"], "001")
            api.post(
                "/transfer-out",
                {
                    "source": {"accountId": usd["id"]},
                    "destination": {"accountId": external["id"]},
                    "amount": 100,
                },
            )
            wait_for(lambda: {"n": len(receiver.events())}, lambda got: got["n"] >= 1)
            # The transfer's later step and every retry a failure schedules (5 s, then 10 s
            # after the next failure) fall due inside the hour: all of them have run when the
            # advance answers, each failure followed by one more delivery of its event.
            _advance(api, 3600)
            ids = [event["id"] for event in receiver.events() if event.get("type") != "TEST"]
            assert len(set(ids)) >= 2, ids  # the transfer's events
            assert len(ids) == len(set(ids)) + 2, ids
        finally:
            api.request("PATCH", "/config", json={"webhookEndpoint": None})


# --- the reset -------------------------------------------------------------------------------


def test_a_reset_removes_everything_but_the_platform(api: SandboxClient) -> None:
    made = api.create_customer()
    config = api.get("/config").json()
    assert api.get("/customers/internal-accounts").json()["data"]
    clock = _now(api)
    response = api.post("/sandbox/reset")
    assert response.status_code == 204 and response.content == b""
    assert api.get("/customers/internal-accounts").json()["data"] == []
    assert api.get("/transactions").json()["data"] == []
    listed = api.get("/customers/internal-accounts", params={"customerId": made["id"]})
    assert listed.status_code == 404 or listed.json()["data"] == []
    assert api.get("/config").json() == config  # the configuration stays
    assert _now(api) >= clock  # time never runs backwards
    assert api.create_customer()["id"] != made["id"]


# --- the request log -------------------------------------------------------------------------


def test_the_request_log_lists_recent_requests_newest_first(api: SandboxClient) -> None:
    secret_query = "sk_live_should_not_be_logged"
    api.get("/config", params={"token": secret_query})
    api.get("/transactions/Transaction:unknown")
    api.request(
        "POST", "/customers", content=b"{not json", headers={"content-type": "application/json"}
    )
    response = api.get("/sandbox/requests", params={"limit": 3})
    assert response.status_code == 200, response.text
    entries = response.json()["data"]
    assert [
        (e["method"], e["path"].rsplit("/", 1)[-1], e["status"], e["code"]) for e in entries
    ] == [
        ("POST", "customers", 400, "INVALID_INPUT"),
        ("GET", "Transaction:unknown", 404, "NOT_FOUND"),
        ("GET", "config", 200, None),
    ]
    for entry in entries:
        assert set(entry) == {"at", "method", "path", "status", "durationMs", "code"}
        assert entry["durationMs"] >= 0
    assert secret_query not in response.text and "Authorization" not in response.text
    assert "not json" not in response.text


@pytest.mark.parametrize("limit", ["0", "1001", "-1", "x"])
def test_the_request_log_refuses_a_bad_limit(api: SandboxClient, limit: str) -> None:
    response = api.get("/sandbox/requests", params={"limit": limit})
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_INPUT"


# --- the faults ------------------------------------------------------------------------------


def _arm(api: SandboxClient, **fault: Any) -> dict[str, Any]:
    response = api.post("/sandbox/faults", fault)
    assert response.status_code == 201, response.text
    armed: dict[str, Any] = response.json()
    return armed


def test_a_fault_answers_the_next_calls_then_stops(api: SandboxClient) -> None:
    armed = _arm(api, operation="POST /customers", status=429, retryAfter=7, count=2)
    assert armed["count"] == 2
    assert api.get("/sandbox/faults").json()["data"] == [armed]
    for _ in range(2):
        response = api.post("/customers", {"customerType": "INDIVIDUAL"})
        assert response.status_code == 429
        assert response.headers["retry-after"] == "7"
        assert response.json() == {
            "status": 429,
            "code": "RATE_LIMITED",
            "reason": response.json()["reason"],
        }
    assert api.post("/customers", {"customerType": "INDIVIDUAL"}).status_code == 201
    assert api.get("/sandbox/faults").json()["data"] == []


def test_a_fault_matches_the_published_template(api: SandboxClient) -> None:
    _arm(api, operation="GET /transactions/{id}", status=500)  # served as {transactionId}
    response = api.get("/transactions/Transaction:unknown")
    assert response.status_code == 500
    assert response.json()["code"] == "INTERNAL_ERROR"
    assert "retry-after" not in response.headers
    assert api.get("/transactions/Transaction:unknown").status_code == 404


def test_an_after_commit_fault_does_the_work(api: SandboxClient) -> None:
    api.post("/sandbox/reset")
    _arm(api, operation="POST /customers", status=503, afterCommit=True)
    response = api.post("/customers", {"customerType": "INDIVIDUAL", "currencies": ["EUR"]})
    assert response.status_code == 503
    assert response.json()["code"] == "SERVICE_UNAVAILABLE"
    made = api.get("/customers/internal-accounts").json()["data"]  # the work was done
    assert sorted(a["type"] for a in made) == ["EMBEDDED_WALLET", "INTERNAL_FIAT"]


def test_a_latency_fault_slows_a_successful_answer(api: SandboxClient) -> None:
    _arm(api, operation="GET /config", latencyMs=400)
    began = time.monotonic()
    response = api.get("/config")
    assert response.status_code == 200
    assert time.monotonic() - began >= 0.4  # a lower bound: the fault's wait happened


def test_delete_clears_the_faults(api: SandboxClient) -> None:
    _arm(api, operation="GET /config", status=503, count=5)
    assert api.request("DELETE", "/sandbox/faults").status_code == 204
    assert api.get("/config").status_code == 200


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        ({"operation": "POST /nowhere", "status": 500}, "UNKNOWN_OPERATION"),
        ({"operation": "PATCH /customers", "status": 500}, "UNKNOWN_OPERATION"),
        ({"operation": "customers", "status": 500}, "UNKNOWN_OPERATION"),
        ({"operation": "POST /sandbox/reset", "status": 500}, "OPERATION_NOT_FAULTABLE"),
        ({"operation": "DELETE /sandbox/faults", "status": 500}, "OPERATION_NOT_FAULTABLE"),
        ({"operation": "POST /quotes", "status": 418}, "UNSUPPORTED_FAULT_STATUS"),
        ({"operation": "POST /quotes", "status": 200}, "UNSUPPORTED_FAULT_STATUS"),
        ({"operation": "POST /quotes", "status": "500"}, "INVALID_INPUT"),
        ({"operation": "POST /quotes"}, "INVALID_INPUT"),
        ({"operation": "POST /quotes", "latencyMs": 10, "afterCommit": True}, "INVALID_INPUT"),
        ({"operation": "POST /quotes", "status": 500, "count": 0}, "INVALID_INPUT"),
        ({"operation": "POST /quotes", "status": 500, "count": 10**9}, "INVALID_INPUT"),
        ({"operation": "POST /quotes", "latencyMs": 3_600_000}, "INVALID_INPUT"),
        ({"operation": "POST /quotes", "status": 429, "retryAfter": -1}, "INVALID_INPUT"),
        ({"operation": "POST /quotes", "status": 500, "extra": 1}, "INVALID_INPUT"),
        ({"status": 500}, "INVALID_INPUT"),
    ],
)
def test_a_bad_fault_is_refused(api: SandboxClient, fault: dict[str, Any], code: str) -> None:
    response = api.post("/sandbox/faults", fault)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == code
    assert api.get("/sandbox/faults").json()["data"] == []


def test_the_control_plane_needs_credentials(control_server: SandboxServer) -> None:
    response = httpx.get(control_server.base_url + "/sandbox/clock", timeout=30)
    assert response.status_code == 401
    assert response.json()["code"] == "UNAUTHORIZED"
