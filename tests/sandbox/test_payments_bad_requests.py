"""Malformed requests to the payment endpoints get an error in the error shape, never a 500:
every field (also nested ones) replaced by each hostile value or removed, hostile ids in paths,
hostile query parameters and headers. Runs in both environments."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ._client import SandboxClient
from ._payments import accounts, fund, usd_external
from ._server import SandboxServer

# Pure validation: SQLite only (see the conftest).
pytestmark = pytest.mark.sqlite_only

HOSTILE: list[Any] = [
    *(None, 0, -1, 1.5, True, "", "\x00", "\ud800", "x" * 30000, [], {}, [1]),
    *(2**63, -(2**63) - 1, 10**30, "Quote:\ud800", "InternalAccount:" + "x" * 300),
]


@pytest.fixture(scope="module")
def setup(server: SandboxServer) -> dict[str, Any]:
    client = SandboxClient(server.base_url, server.auth)
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    if server.environment == "sandbox":
        fund(client, found["EUR"]["id"], 10**9)
    external = usd_external(client, made["id"], "010")
    return {"client": client, "customer": made["id"], "external": external["id"], **found}


def _no_500(response: Any) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"status", "code", "reason"}, body
        assert body["status"] == response.status_code


def _variants(valid: dict[str, Any]) -> list[Any]:
    """Each field (and each field of a nested object) hostile or missing; non-object bodies."""
    found: list[Any] = [None, [], "text", 7, [valid]]
    for name, value in valid.items():
        found.append({k: v for k, v in valid.items() if k != name})
        found.extend({**valid, name: bad} for bad in HOSTILE)
        if isinstance(value, dict):
            for inner in value:
                found.append({**valid, name: {k: v for k, v in value.items() if k != inner}})
                found.extend({**valid, name: {**value, inner: bad}} for bad in HOSTILE)
    return found


def _send(client: SandboxClient, method: str, path: str, body: Any, **headers: str) -> Any:
    return client.request(
        method,
        path,
        content=json.dumps(body, ensure_ascii=True).encode(),
        headers={"content-type": "application/json", **headers},
    )


def _bodies(setup: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    eur, usd, external = setup["EUR"]["id"], setup["USD"]["id"], setup["external"]
    quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": eur},
        "destination": {"destinationType": "ACCOUNT", "accountId": usd},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1_000,
        "description": "memo",
    }
    return [
        ("POST", "/quotes", quote),
        (
            "POST",
            "/transfer-out",
            {"source": {"accountId": usd}, "destination": {"accountId": external}, "amount": 1},
        ),
        (
            "POST",
            "/transfer-in",
            {"source": {"accountId": external}, "destination": {"accountId": usd}, "amount": 1},
        ),
        (
            "POST",
            "/customers/external-accounts",
            {
                "customerId": setup["customer"],
                "currency": "USD",
                "accountInfo": {
                    "accountType": "USD_ACCOUNT",
                    "accountNumber": "12345678",
                    "routingNumber": "021000021",
                },
            },
        ),
        (
            "POST",
            "/platform/external-accounts",
            {
                "currency": "BRL",
                "accountInfo": {
                    "accountType": "BRL_ACCOUNT",
                    "pixKey": "k@example.com",
                    "pixKeyType": "EMAIL",
                    "taxId": "123.456.789-09",
                },
            },
        ),
        (
            "PATCH",
            "/config",
            {"umaDomain": "example.com", "webhookEndpoint": "http://127.0.0.1:9/x"},
        ),
        ("POST", f"/sandbox/internal-accounts/{usd}/fund", {"amount": 5}),
        ("POST", "/sandbox/send", {"quoteId": "Quote:none", "currencyCode": "USD"}),
        (
            "POST",
            "/sandbox/uma/receive",
            {
                "senderUmaAddress": "$a@b.example",
                "receivingCurrencyCode": "USD",
                "receivingCurrencyAmount": 5,
                "customerId": setup["customer"],
            },
        ),
        ("POST", "/transactions/Transaction:none/approve", {"receiverCustomerInfo": {}}),
    ]


def test_hostile_bodies(setup: dict[str, Any]) -> None:
    client: SandboxClient = setup["client"]
    for method, path, valid in _bodies(setup):
        for body in _variants(valid):
            _no_500(_send(client, method, path, body))
    client.request("PATCH", "/config", json={"webhookEndpoint": "http://127.0.0.1:9/x"})


@pytest.mark.parametrize("value", ["%00", "x" * 300, "Quote:%ED%A0%80", "%F0%9F%92%A9"])
def test_hostile_ids_queries_and_headers(setup: dict[str, Any], value: str) -> None:
    client: SandboxClient = setup["client"]
    for path in (
        f"/quotes/{value}",
        f"/transactions/{value}",
        f"/platform/external-accounts/{value}",
        f"/customers/external-accounts/{value}",
    ):
        _no_500(client.get(path))
    _no_500(client.post(f"/quotes/{value}/execute"))
    for path in ("/transactions", "/platform/external-accounts", "/customers/external-accounts"):
        for name in ("cursor", "currency", "customerId", "limit", "startDate", "status"):
            _no_500(client.get(path, params={name: value}))
    quote = {
        "source": {"accountId": setup["EUR"]["id"]},
        "destination": {"accountId": setup["USD"]["id"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1_000,
    }
    _no_500(client.post("/quotes", quote, headers={"Idempotency-Key": value}))
    _no_500(
        client.post(
            "/quotes/Quote:none/execute",
            headers={"Service-Wallet-Signature": value, "Idempotency-Key": "k"},
        )
    )


def test_an_id_too_long_for_any_resource_is_not_found(setup: dict[str, Any]) -> None:
    # As the published lookups document: 404, not 400, for an id no resource can have.
    client: SandboxClient = setup["client"]
    long_id = "Quote:" + "x" * 300
    for method, path in (
        ("GET", f"/quotes/{long_id}"),
        ("POST", f"/quotes/{long_id}/execute"),
        ("GET", f"/transactions/{long_id}"),
        ("GET", f"/platform/external-accounts/{long_id}"),
        ("GET", f"/customers/external-accounts/{long_id}"),
    ):
        response = client.request(method, path)
        assert response.status_code == 404, (path, response.text)
        assert response.json() == {
            "status": 404,
            "code": "NOT_FOUND",
            "reason": "No such resource.",
        }
