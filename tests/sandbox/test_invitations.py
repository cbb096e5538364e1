"""UMA invitations over real HTTP: create, read, claim (once), cancel, expiry on the clock."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._server import SandboxServer


def inviter(client: SandboxClient, uma: str) -> dict[str, Any]:
    return client.create_customer(umaAddress=uma, currencies=["EUR"])


def create(client: SandboxClient, **fields: Any) -> dict[str, Any]:
    response = client.post("/invitations", fields)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_claim_once(client: SandboxClient) -> None:
    inviter(client, "$ann.claim@sandbox.test")
    invitation = create(
        client, inviterUma="$ann.claim@sandbox.test", firstName="Ann", amountToSend=1250
    )
    assert invitation["status"] == "PENDING"
    assert invitation["inviterUma"] == "$ann.claim@sandbox.test"
    assert invitation["firstName"] == "Ann"
    assert invitation["amountToSend"]["amount"] == 1250
    assert invitation["amountToSend"]["currency"]["code"] == "EUR"  # the inviter's currency
    assert invitation["url"].endswith(f"/invitations/{invitation['code']}")
    assert "claimedAt" not in invitation and "inviteeUma" not in invitation
    code = invitation["code"]
    assert client.get(f"/invitations/{code}").json() == invitation

    claimed = client.post(f"/invitations/{code}/claim", {"inviteeUma": "$bob@other.test"})
    assert claimed.status_code == 200, claimed.text
    body = claimed.json()
    assert body["status"] == "CLAIMED" and body["inviteeUma"] == "$bob@other.test"
    assert "claimedAt" in body
    assert client.get(f"/invitations/{code}").json()["status"] == "CLAIMED"

    again = client.post(f"/invitations/{code}/claim", {"inviteeUma": "$carol@other.test"})
    assert again.status_code == 400 and again.json()["code"] == "INVITATION_NOT_PENDING"
    cancel = client.post(f"/invitations/{code}/cancel")
    assert cancel.status_code == 400 and cancel.json()["code"] == "INVITATION_NOT_PENDING"


def test_cancel_then_claim_is_refused(client: SandboxClient) -> None:
    inviter(client, "$ann.cancel@sandbox.test")
    code = create(client, inviterUma="$ann.cancel@sandbox.test")["code"]
    cancelled = client.post(f"/invitations/{code}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "CANCELLED"
    late = client.post(f"/invitations/{code}/claim", {"inviteeUma": "$bob@other.test"})
    assert late.status_code == 400 and late.json()["code"] == "INVITATION_NOT_PENDING"


def test_expiry(client: SandboxClient) -> None:
    inviter(client, "$ann.expiry@sandbox.test")
    soon = datetime.now(timezone.utc) + timedelta(seconds=1)
    invitation = create(client, inviterUma="$ann.expiry@sandbox.test", expiresAt=soon.isoformat())
    assert invitation["status"] == "PENDING"
    while datetime.now(timezone.utc) <= soon + timedelta(milliseconds=50):
        time.sleep(0.05)
    code = invitation["code"]
    assert client.get(f"/invitations/{code}").json()["status"] == "EXPIRED"
    late = client.post(f"/invitations/{code}/claim", {"inviteeUma": "$bob@other.test"})
    assert late.status_code == 400 and late.json()["code"] == "INVITATION_NOT_PENDING"
    assert client.get(f"/invitations/{code}").json()["status"] == "EXPIRED"


def test_bad_requests(client: SandboxClient) -> None:
    inviter(client, "$ann.bad@sandbox.test")
    past = (datetime.now(timezone.utc) - timedelta(minutes=1)).isoformat()
    for body in (
        {},
        {"inviterUma": "ann@sandbox.test"},
        {"inviterUma": "$nobody@sandbox.test"},  # not a customer's address
        {"inviterUma": "$ann.bad@sandbox.test", "amountToSend": -1},
        {"inviterUma": "$ann.bad@sandbox.test", "expiresAt": past},
    ):
        response = client.post("/invitations", body)
        assert response.status_code == 400, (body, response.text)
    code = create(client, inviterUma="$ann.bad@sandbox.test")["code"]
    for invitee in ("bob@other.test", "$ann.bad@sandbox.test", "$b\x00@x.test", 5):
        response = client.post(f"/invitations/{code}/claim", {"inviteeUma": invitee})
        assert response.status_code == 400, invitee
    assert client.get(f"/invitations/{code}").json()["status"] == "PENDING"
    assert client.get("/invitations/nope").status_code == 404
    assert client.post("/invitations/nope/claim", {"inviteeUma": "$b@x.test"}).status_code == 404


class Receiver:
    """A webhook endpoint started by the test: it keeps every delivery (headers and raw body)."""

    def __init__(self) -> None:
        received: list[tuple[dict[str, str], bytes]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.received = received
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/hooks"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.http.shutdown()
    running.http.server_close()


def test_claiming_sends_invitation_claimed(
    server: SandboxServer, client: SandboxClient, receiver: Receiver
) -> None:
    patched = client.request("PATCH", "/config", json={"webhookEndpoint": receiver.url})
    assert patched.status_code == 200, patched.text
    inviter(client, "$ann.hook@sandbox.test")
    code = create(client, inviterUma="$ann.hook@sandbox.test")["code"]
    claimed = client.post(f"/invitations/{code}/claim", {"inviteeUma": "$bob@other.test"})
    assert claimed.status_code == 200
    deadline = time.monotonic() + 30
    while True:  # the TEST event of the new endpoint comes first
        events = [
            (headers, body)
            for headers, body in list(receiver.received)
            if json.loads(body)["type"] == "INVITATION.CLAIMED"
        ]
        if events or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    ((headers, body),) = events
    key = client.get("/sandbox/webhook-public-key")
    if server.environment == "sandbox":
        ewc.verify_webhook_signature(headers["x-grid-signature"], body, key.text)
    event = json.loads(body)
    assert event["data"] == claimed.json()
    assert event["id"]
