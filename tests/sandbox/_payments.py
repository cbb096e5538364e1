"""Helpers of the payment tests: customers with funded accounts, external accounts by suffix,
polling a transaction until it settles, and a webhook receiver (a real HTTP server)."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ._client import SandboxClient

#: The statuses a transaction ends in.
FINAL = ("COMPLETED", "FAILED", "REJECTED", "REFUNDED", "EXPIRED")


def accounts(client: SandboxClient, customer_id: str) -> dict[str, dict[str, Any]]:
    """The customer's internal accounts by currency (the wallet as ``WALLET``)."""
    response = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert response.status_code == 200, response.text
    found = {}
    for account in response.json()["data"]:
        name = (
            "WALLET"
            if account["type"] == "EMBEDDED_WALLET"
            else account["balance"]["currency"]["code"]
        )
        found[name] = account
    return found


def balance(client: SandboxClient, customer_id: str, name: str) -> int:
    amount: int = accounts(client, customer_id)[name]["balance"]["amount"]
    return amount


def fund(client: SandboxClient, account_id: str, amount: int) -> None:
    response = client.post(f"/sandbox/internal-accounts/{account_id}/fund", {"amount": amount})
    assert response.status_code == 200, response.text


def usd_external(
    client: SandboxClient, customer_id: str | None, suffix: str, **extra: Any
) -> dict[str, Any]:
    """A USD external account whose account number ends in ``suffix``."""
    body: dict[str, Any] = {
        "currency": "USD",
        "accountInfo": {
            "accountType": "USD_ACCOUNT",
            "accountNumber": "1234567" + suffix,
            "routingNumber": "021000021",
            "bankAccountType": "CHECKING",
            "bankName": "Test Bank",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
        },
        **extra,
    }
    path = "/platform/external-accounts"
    if customer_id is not None:
        body["customerId"] = customer_id
        path = "/customers/external-accounts"
    response = client.post(path, body)
    assert response.status_code == 201, response.text
    account: dict[str, Any] = response.json()
    return account


def owner_of(client: SandboxClient, account_id: str) -> str:
    """The customer of an internal account (paging through the wallets)."""
    cursor = None
    while True:
        params: dict[str, Any] = {"type": "EMBEDDED_WALLET", "limit": 100}
        if cursor:
            params["cursor"] = cursor
        listed = client.get("/customers/internal-accounts", params=params).json()
        for account in listed["data"]:
            if account["id"] == account_id:
                owner: str = account["customerId"]
                return owner
        cursor = listed.get("nextCursor")
        assert cursor, "no such wallet"


def wait_for(
    fetch: Callable[[], dict[str, Any]],
    done: Callable[[dict[str, Any]], bool],
    timeout: float = 120,
) -> dict[str, Any]:
    """Poll ``fetch`` until ``done`` holds (the timeout only guards against a hang)."""
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def settled(client: SandboxClient, transaction_id: str, timeout: float = 120) -> dict[str, Any]:
    """The transaction once it reached a final status."""

    def fetch() -> dict[str, Any]:
        response = client.get(f"/transactions/{transaction_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    return wait_for(fetch, lambda t: t["status"] in FINAL, timeout)


class Receiver:
    """A webhook receiver: records every request; answers ``answers`` in turn (then 200)."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.answers: dict[str, list[int]] = {}  # event type -> statuses to answer first
        self.lock = threading.Lock()
        self.url = ""

    def events(self, event_type: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            bodies = [json.loads(body) for _, body in self.requests]
        return [b for b in bodies if event_type is None or b["type"] == event_type]

    def answer_for(self, event: dict[str, Any]) -> int:
        with self.lock:
            queue = self.answers.get(event["type"], [])
            return queue.pop(0) if len(queue) > 1 else (queue[0] if queue else 200)


@contextmanager
def webhook_receiver() -> Iterator[Receiver]:
    receiver = Receiver()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with receiver.lock:
                receiver.requests.append((dict(self.headers.items()), body))
            status = receiver.answer_for(json.loads(body))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def card_transaction(client: SandboxClient) -> None:
    """A card and one authorization on it: ``GET /transactions`` lists a CARD transaction."""
    holder = client.create_customer(fullName="Card Holder")["id"]
    verified = client.post("/verifications", {"customerId": holder})
    assert verified.json()["verificationStatus"] == "APPROVED", verified.text
    usd = client.get(
        "/customers/internal-accounts", params={"customerId": holder, "type": "INTERNAL_FIAT"}
    ).json()["data"][0]["id"]
    fund(client, usd, 100_00)
    card = client.post(
        "/cards", {"cardholderId": holder, "form": "VIRTUAL", "fundingSources": [usd]}
    )
    assert card.status_code == 201, card.text
    spend = {"amount": 1_00, "currency": {"code": "USD"}, "merchant": {"descriptor": "FUZZ"}}
    made = client.post(f"/sandbox/cards/{card.json()['id']}/simulate/authorization", spend)
    assert made.status_code == 202, made.text
    listed = client.get("/transactions", params={"customerId": holder}).json()["data"]
    assert [t["type"] for t in listed] == ["CARD"], listed
