"""The sandbox's webhook tools over real HTTP: ``POST /sandbox/webhooks/test`` (published),
``GET /sandbox/events``, ``POST /sandbox/events/{id}/resend`` and ``POST
/sandbox/events/trigger``; 403 in production after the credentials; every triggered sample
validates against the published webhook schema of its type; an event that never gets a 2xx
fails once the retry horizon (7 days, scaled) has passed. SQLite: nothing here is about
storage (the delivery's races are ``test_webhooks_race``)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from embedded_wallet_crypto.sandbox.domain.webhooks import WEBHOOK_TYPES

from ._client import SandboxClient
from ._server import SandboxServer
from ._webhooks import Hooks, event, hooks_server, poll, published_errors, settled_event, trigger

ROUTES = (
    ("POST", "/sandbox/webhooks/test"),
    ("GET", "/sandbox/events"),
    ("POST", "/sandbox/events/Webhook:x/resend"),
    ("POST", "/sandbox/events/trigger"),
)


def started(root: Path, **options: object) -> SandboxServer:
    running = SandboxServer(root, **options)  # type: ignore[arg-type]
    running.start()
    return running


@pytest.fixture(scope="module")
def hooks() -> Iterator[Hooks]:
    with hooks_server() as running:
        yield running


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxClient]:
    running = started(tmp_path_factory.mktemp("events-sandbox"), time_scale=0.01)
    api = SandboxClient(running.base_url, running.auth)
    yield api
    api.close()
    assert running.stop() == 0


def code_of(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["code"]


def test_production_refuses_them_after_the_credentials(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    running = started(tmp_path_factory.mktemp("events-production"), environment="production")
    try:
        api = SandboxClient(running.base_url, running.auth)
        for method, path in ROUTES:
            body = {"type": "TEST"} if method == "POST" else None
            assert code_of(api.request(method, path, json=body)) == (403, "FORBIDDEN"), path
            anonymous = httpx.request(method, running.base_url + path, json=body)
            assert code_of(anonymous) == (401, "UNAUTHORIZED"), path
        api.close()
    finally:
        assert running.stop() == 0


def test_without_an_endpoint_events_are_recorded(sandbox: SandboxClient) -> None:
    event_id = trigger(sandbox, "CUSTOMER.KYC_APPROVED", {"platformCustomerId": "mine"})
    found = event(sandbox, event_id)
    assert (found["status"], found["attempts"], found["deliveries"]) == ("NO_ENDPOINT", 0, [])
    assert found["payload"]["data"]["platformCustomerId"] == "mine"
    assert code_of(sandbox.post(f"/sandbox/events/{event_id}/resend")) == (
        400,
        "WEBHOOK_ENDPOINT_NOT_SET",
    )
    assert code_of(sandbox.post("/sandbox/webhooks/test")) == (400, "WEBHOOK_ENDPOINT_NOT_SET")


def test_every_sample_is_published(sandbox: SandboxClient) -> None:
    for event_type in WEBHOOK_TYPES:
        made = sandbox.post("/sandbox/events/trigger", {"type": event_type})
        if event_type.startswith("CARD"):
            assert code_of(made) == (400, "EVENT_TYPE_NOT_SUPPORTED"), event_type
            continue
        assert made.status_code == 201, made.text
        payload = made.json()["payload"]
        assert payload["type"] == event_type
        errors = published_errors(payload)
        if event_type == "VERIFICATION.READY_FOR_VERIFICATION":
            # WebhookType lists it; the published VerificationWebhook's own enum does not.
            assert errors and all("READY_FOR_VERIFICATION" in e for e in errors), errors
        else:
            assert errors == [], (event_type, errors)
    assert code_of(sandbox.post("/sandbox/events/trigger", {"type": "NOPE.NOPE"})) == (
        400,
        "INVALID_EVENT_TYPE",
    )
    bad = sandbox.post("/sandbox/events/trigger", {"type": "TEST", "data": [1]})
    assert code_of(bad) == (400, "INVALID_INPUT")


def test_the_list_is_newest_first_and_paged(sandbox: SandboxClient) -> None:
    kind = {"type": "BULK_UPLOAD.COMPLETED"}
    before = sandbox.get("/sandbox/events", params=kind).json()["totalCount"]
    made = [trigger(sandbox, "BULK_UPLOAD.COMPLETED") for _ in range(3)]
    first = sandbox.get("/sandbox/events", params={"limit": 2, "type": "BULK_UPLOAD.COMPLETED"})
    assert first.status_code == 200, first.text
    page = first.json()
    assert [e["id"] for e in page["data"]] == made[::-1][:2]
    assert page["hasMore"] and page["totalCount"] == before + 3
    rest = sandbox.get(
        "/sandbox/events",
        params={"limit": 2, "type": "BULK_UPLOAD.COMPLETED", "cursor": page["nextCursor"]},
    ).json()
    assert rest["data"][0]["id"] == made[0]
    oldest = sandbox.get(
        "/sandbox/events",
        params={"limit": before + 1, "type": "BULK_UPLOAD.COMPLETED", "sortOrder": "asc"},
    ).json()
    assert oldest["data"][-1]["id"] == made[0]
    assert code_of(sandbox.get("/sandbox/events", params={"status": "NOPE"}))[0] == 400
    assert code_of(sandbox.post("/sandbox/events/Webhook:nope/resend")) == (
        404,
        "EVENT_NOT_FOUND",
    )


def test_the_test_webhook_and_resend(sandbox: SandboxClient, hooks: Hooks) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{closed.getsockname()[1]}/hooks"
    assert sandbox.request("PATCH", "/config", json={"webhookEndpoint": nowhere}).is_success
    assert code_of(sandbox.post("/sandbox/webhooks/test")) == (400, "WEBHOOK_DELIVERY_FAILED")
    failed = sandbox.get("/sandbox/events", params={"type": "TEST", "limit": 1}).json()["data"][0]
    assert (failed["status"], failed["outcome"]) == ("FAILED", "NOT_RETRIED")
    assert [d["error"] for d in failed["deliveries"]] == ["CONNECTION_FAILED"]

    assert sandbox.request("PATCH", "/config", json={"webhookEndpoint": hooks.url}).is_success
    hooks.script["TEST"] = [(299, {"ok": True})]
    answered = sandbox.post("/sandbox/webhooks/test")
    hooks.script.pop("TEST")
    assert answered.status_code == 200, answered.text
    assert answered.json() == {
        "url": hooks.url,
        "response_status": 299,
        "response_body": '{"ok": true}',
    }
    event_id = trigger(sandbox, "EXTERNAL_ACCOUNT.STATUS_UPDATED")
    assert settled_event(sandbox, event_id)["status"] == "DELIVERED"
    resent = sandbox.post(f"/sandbox/events/{event_id}/resend")
    assert resent.status_code == 200, resent.text
    assert (resent.json()["status"], resent.json()["outcome"]) == ("PENDING", "RESENT")
    again = poll(lambda: event(sandbox, event_id), lambda e: len(e["deliveries"]) == 2)
    assert again["status"] == "DELIVERED" and [d["attempt"] for d in again["deliveries"]] == [1, 2]
    assert [e["id"] for e in hooks.events("EXTERNAL_ACCOUNT.STATUS_UPDATED")].count(event_id) == 2


def test_an_event_fails_after_the_retry_horizon(
    tmp_path_factory: pytest.TempPathFactory, hooks: Hooks
) -> None:
    # 7 days at 1/100000 are 6 seconds; every attempt is answered 500.
    running = started(tmp_path_factory.mktemp("events-horizon"), time_scale=0.00001)
    api = SandboxClient(running.base_url, running.auth)
    hooks.script["AGENT_ACTION.PENDING_APPROVAL"] = [(500, None)]
    try:
        assert api.request("PATCH", "/config", json={"webhookEndpoint": hooks.url}).is_success
        done = settled_event(api, trigger(api, "AGENT_ACTION.PENDING_APPROVAL"))
    finally:
        hooks.script.pop("AGENT_ACTION.PENDING_APPROVAL")
        api.close()
        assert running.stop() == 0
    assert (done["status"], done["outcome"], done["nextAttemptAt"]) == (
        "FAILED",
        "RETRY_HORIZON_PASSED",
        None,
    )
    outcomes = [d["outcome"] for d in done["deliveries"]]
    assert outcomes[-1] == "RETRY_HORIZON_PASSED" and len(outcomes) >= 2
    assert set(outcomes[:-1]) == {"RETRY_SCHEDULED"}
    assert {d["responseStatus"] for d in done["deliveries"]} == {500}
