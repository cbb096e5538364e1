"""UMA invitations over real HTTP: create, read, claim (once), cancel, expiry on the clock."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Any

from ._client import SandboxClient


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
