"""``PATCH /internal-accounts/{id}`` (wallet privacy, a signed retry binding the update fields)
over real HTTP against ``ewc serve``, in both environments, on SQLite and on PostgreSQL: the
challenge, the stamped retry and what the account answers afterwards, a retry with other
fields, bad input, and a stamped retry sent through two processes at once (one 200, the other
refused for its used request id).

``EWC_ACCOUNT_UPDATE_RACE_ROUNDS`` sets the race's rounds (10 by default)."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest

from ._client import REQUEST_ID_USED, SandboxClient, assert_request_id_used
from ._flows import Wallet
from ._pair import clients_of, race, running_pair
from ._server import SandboxServer
from .conftest import database_url

ROUNDS = int(os.environ.get("EWC_ACCOUNT_UPDATE_RACE_ROUNDS", "10"))
MISMATCH = "the request id was issued for a different request; repeat the identical request"


@pytest.fixture
def wallet(flow_client: SandboxClient, flow_server: SandboxServer) -> Wallet:
    return Wallet(flow_client, flow_server)


def _path(account_id: str) -> str:
    return f"/internal-accounts/{account_id}"


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body == {"status": status, "code": code, "reason": body["reason"]}
    assert body["reason"]
    return body


def _listed(client: SandboxClient, customer_id: str, kind: str) -> dict[str, Any]:
    response = client.get(
        "/customers/internal-accounts", params={"customerId": customer_id, "type": kind}
    )
    assert response.status_code == 200, response.text
    (account,) = response.json()["data"]
    return dict(account)


def test_privacy_is_set_by_a_stamped_retry(wallet: Wallet) -> None:
    _, key = wallet.first_login("OAUTH")
    path = _path(wallet.account_id)
    before = wallet.client.request("PATCH", path, json={"privateEnabled": True})
    assert before.status_code == 202, before.text
    challenge = before.json()
    assert set(challenge) >= {"payloadToSign", "requestId", "expiresAt"}
    payload = json.loads(challenge["payloadToSign"])
    assert payload["type"] == "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
    assert payload["parameters"] == {
        "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction": "HASH_FUNCTION_NO_OP",
        "payload": hashlib.sha256(b'{"privateEnabled":true}').hexdigest(),
        "signWith": wallet.account_id,
    }
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    updated = wallet.client.request(
        "PATCH",
        path,
        json={"privateEnabled": True},
        headers={"Grid-Wallet-Signature": stamp, "Request-Id": challenge["requestId"]},
    )
    assert updated.status_code == 200, updated.text
    account = updated.json()
    assert account["id"] == wallet.account_id and account["type"] == "EMBEDDED_WALLET"
    assert account["privateEnabled"] is True
    assert {"customerId", "status", "balance", "totalBalance", "createdAt", "updatedAt"} <= set(
        account
    )
    assert _listed(wallet.client, account["customerId"], "EMBEDDED_WALLET") == account
    assert_request_id_used(
        wallet.client.retry("PATCH", path, {"privateEnabled": True}, challenge, stamp)
    )
    # Off again, by a new challenge.
    _, off = wallet.client.signed_retry("PATCH", path, {"privateEnabled": False}, key=key)
    assert off.status_code == 200, off.text
    assert off.json()["privateEnabled"] is False
    fiat = _listed(wallet.client, account["customerId"], "INTERNAL_FIAT")
    assert "privateEnabled" not in fiat


def test_a_retry_with_other_fields_is_refused_and_the_id_stays_usable(wallet: Wallet) -> None:
    _, key = wallet.first_login("OAUTH")
    path = _path(wallet.account_id)
    challenge = wallet.client.request("PATCH", path, json={"privateEnabled": True}).json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    changed = wallet.client.retry("PATCH", path, {"privateEnabled": False}, challenge, stamp)
    assert _error(changed, 401, "UNAUTHORIZED")["reason"] == MISMATCH
    same = wallet.client.retry("PATCH", path, {"privateEnabled": True}, challenge, stamp)
    assert same.status_code == 200 and same.json()["privateEnabled"] is True, same.text


def test_only_an_active_session_of_the_account_signs(wallet: Wallet) -> None:
    session, key = wallet.first_login("OAUTH")
    other = Wallet(wallet.client, wallet.server)
    _, stranger = other.first_login("OAUTH")
    path = _path(wallet.account_id)
    body = {"privateEnabled": True}
    challenge = wallet.client.request("PATCH", path, json=body).json()
    foreign = ewc.create_stamp(challenge["payloadToSign"], stranger)
    refused = _error(
        wallet.client.retry("PATCH", path, body, challenge, foreign), 401, "UNAUTHORIZED"
    )
    assert refused["reason"] != REQUEST_ID_USED
    _, revoked = wallet.client.signed_retry("DELETE", f"/auth/sessions/{session['id']}", key=key)
    assert revoked.status_code == 204, revoked.text
    stale = ewc.create_stamp(challenge["payloadToSign"], key)
    _error(wallet.client.retry("PATCH", path, body, challenge, stale), 401, "UNAUTHORIZED")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"privateEnabled": None},
        {"privateEnabled": "true"},
        {"privateEnabled": 1},
        {"privateEnabled": True, "nickname": "x"},
        [],
        "privateEnabled",
    ],
    ids=["empty", "null", "string", "number", "unknown-field", "list", "text"],
)
def test_bad_bodies_are_400(wallet: Wallet, body: Any) -> None:
    response = wallet.client.request("PATCH", _path(wallet.account_id), json=body)
    _error(response, 400, "INVALID_INPUT")


def test_unknown_and_other_accounts(wallet: Wallet) -> None:
    body = {"privateEnabled": True}
    for unknown in ("InternalAccount:nope", "Customer:nope", "nope"):
        _error(wallet.client.request("PATCH", _path(unknown), json=body), 404, "NOT_FOUND")
    customer = wallet.client.create_customer()
    assert _listed(wallet.client, customer["id"], "EMBEDDED_WALLET")["privateEnabled"] is False
    fiat = _listed(wallet.client, customer["id"], "INTERNAL_FIAT")
    response = wallet.client.request("PATCH", _path(fiat["id"]), json=body)
    assert "EMBEDDED_WALLET" in _error(response, 400, "INVALID_INPUT")["reason"]
    _error(wallet.client.request("PATCH", _path(fiat["id"]), json={}), 400, "INVALID_INPUT")


# --- a stamped retry through two processes at once -------------------------------------------


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    with running_pair(
        tmp_path_factory.mktemp(f"account-update-{backend}"),
        database_url(request, backend, "acctupd"),
    ) as servers:
        yield servers


def test_a_stamped_retry_is_used_once_across_two_processes(
    pair: tuple[SandboxServer, SandboxServer],
) -> None:
    outcomes: Counter[str] = Counter()
    twice = 0
    with clients_of(pair) as clients:
        wallet = Wallet(clients[0], pair[0])
        _, key = wallet.first_login()
        path = _path(wallet.account_id)
        for round_number in range(ROUNDS):
            body = {"privateEnabled": round_number % 2 == 0}
            challenge = clients[0].request("PATCH", path, json=body).json()
            stamp = ewc.create_stamp(challenge["payloadToSign"], key)
            answers = race(
                [
                    lambda c=c, b=body, ch=challenge, s=stamp: c.retry("PATCH", path, b, ch, s)
                    for c in clients
                ]
            )
            outcomes.update(str(a.status_code) for a in answers)
            statuses = sorted(a.status_code for a in answers)
            if statuses == [200, 200]:
                twice += 1
                continue
            assert statuses == [200, 401], [a.text for a in answers]
            (refused,) = (a for a in answers if a.status_code == 401)
            assert_request_id_used(refused)
    assert twice == 0, f"{twice} of {ROUNDS} retries were accepted twice {dict(outcomes)}"
