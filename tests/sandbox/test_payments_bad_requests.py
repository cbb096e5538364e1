"""Malformed requests to the payment endpoints get the answer the test knows they must get:
every field (also nested ones) replaced by each hostile value or removed is refused with 400
``INVALID_INPUT`` (in production the sandbox-only endpoints' 403 ``FORBIDDEN``), unless the
variant stays valid (an optional field left out or null, free text), which gets the valid
request's own answer; hostile ids in paths are 404 ``NOT_FOUND``; hostile query parameters and
headers are refused or, where they are only values to match, answered. Runs in both
environments."""

from __future__ import annotations

from typing import Any

import pytest

from ._client import SandboxClient
from ._hostile import FORBIDDEN, INVALID, NOT_FOUND, Answers, Outcome, refused, send, variants
from ._payments import accounts, fund, usd_external
from ._server import SandboxServer

# Pure validation: SQLite only (see the conftest).
pytestmark = pytest.mark.sqlite_only


@pytest.fixture(scope="module")
def setup(server: SandboxServer) -> dict[str, Any]:
    client = SandboxClient(server.base_url, server.auth)
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    if server.environment == "sandbox":
        fund(client, found["EUR"]["id"], 10**9)
    external = usd_external(client, made["id"], "010")
    return {"client": client, "customer": made["id"], "external": external["id"], **found}


#: An endpoint's valid body, what it answers, the fields that may be left out, those that may
#: be null, and the free-text fields with their longest length (see ``_hostile.variants``).
Spec = tuple[str, str, dict[str, Any], Outcome, frozenset[str], frozenset[str], dict[str, int]]


def _bodies(setup: dict[str, Any]) -> list[Spec]:
    eur, usd, external = setup["EUR"]["id"], setup["USD"]["id"], setup["external"]
    quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": eur},
        "destination": {"destinationType": "ACCOUNT", "accountId": usd},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1_000,
        "description": "memo",
    }
    none: frozenset[str] = frozenset()
    transfer = Outcome(201)
    return [
        (
            "POST",
            "/quotes",
            quote,
            Outcome(201),
            frozenset({"description", "source.sourceType", "destination.destinationType"}),
            frozenset({"description"}),
            {"description": 500},
        ),
        (
            "POST",
            "/transfer-out",
            {"source": {"accountId": usd}, "destination": {"accountId": external}, "amount": 1},
            transfer,
            none,
            none,
            {},
        ),
        (
            "POST",
            "/transfer-in",
            {"source": {"accountId": external}, "destination": {"accountId": usd}, "amount": 1},
            transfer,
            none,
            none,
            {},
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
            Outcome(201),
            none,
            none,
            {},
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
            Outcome(201),
            none,
            none,
            {},
        ),
        (
            "PATCH",
            "/config",
            {"umaDomain": "example.com", "webhookEndpoint": "http://127.0.0.1:9/x"},
            Outcome(200),
            frozenset({"umaDomain", "webhookEndpoint"}),
            frozenset({"umaDomain", "webhookEndpoint"}),
            {},
        ),
        (
            "POST",
            f"/sandbox/internal-accounts/{usd}/fund",
            {"amount": 5},
            Outcome(200),
            none,
            none,
            {},
        ),
        (
            "POST",
            "/sandbox/send",
            {"quoteId": "Quote:none", "currencyCode": "USD"},
            NOT_FOUND,
            none,
            none,
            {},
        ),
        (
            "POST",
            "/sandbox/uma/receive",
            {
                "senderUmaAddress": "$a@b.example",
                "receivingCurrencyCode": "USD",
                "receivingCurrencyAmount": 5,
                "customerId": setup["customer"],
            },
            Outcome(200),
            none,
            none,
            {},
        ),
        (
            "POST",
            "/transactions/Transaction:none/approve",
            {"receiverCustomerInfo": {}},
            NOT_FOUND,
            frozenset({"receiverCustomerInfo"}),
            none,
            {},
        ),
    ]


def test_hostile_bodies(server: SandboxServer, setup: dict[str, Any]) -> None:
    client: SandboxClient = setup["client"]
    answers = Answers()
    for method, path, valid, outcome, omittable, nullable, text in _bodies(setup):
        if server.environment == "production" and path.startswith("/sandbox/"):
            outcome = FORBIDDEN  # before the body is looked at, once authenticated
        found = variants(valid, omittable=omittable, nullable=nullable, text=text)
        for label, body, still_valid in found:
            wanted = outcome if still_valid or outcome is FORBIDDEN else INVALID
            answers.expect(send(client.http, method, path, body), wanted, label)
    client.request("PATCH", "/config", json={"webhookEndpoint": "http://127.0.0.1:9/x"})
    answers.done()


#: The query parameters of each list: name -> the longest value it matches against (None: the
#: value must parse, as a cursor, a number, a date or a status).
LIST_PARAMETERS: dict[str, dict[str, int | None]] = {
    "/transactions": {
        "cursor": None,
        "limit": None,
        "startDate": None,
        "status": None,
        "customerId": 300,
    },
    "/platform/external-accounts": {"cursor": None, "limit": None, "currency": 10},
    "/customers/external-accounts": {
        "cursor": None,
        "limit": None,
        "currency": 10,
        "customerId": 200,
    },
}


@pytest.mark.parametrize("value", ["%00", "x" * 300, "Quote:%ED%A0%80", "%F0%9F%92%A9"])
def test_hostile_ids_queries_and_headers(setup: dict[str, Any], value: str) -> None:
    client: SandboxClient = setup["client"]
    answers = Answers()
    # A NUL is text no id can hold (400); any other id that names nothing is 404.
    lookup = INVALID if value == "%00" else NOT_FOUND
    for path in (
        f"/quotes/{value}",
        f"/transactions/{value}",
        f"/platform/external-accounts/{value}",
        f"/customers/external-accounts/{value}",
    ):
        answers.expect(client.get(path), lookup)
    answers.expect(client.post(f"/quotes/{value}/execute"), lookup)
    for path, parameters in LIST_PARAMETERS.items():
        for name in ("cursor", "currency", "customerId", "limit", "startDate", "status"):
            response = client.get(path, params={name: value})
            if name not in parameters:  # not a parameter of this list: ignored
                answers.expect(response, Outcome(200), name)
                continue
            longest = parameters[name]
            if longest is None or len(value) > longest:
                answers.expect(response, INVALID, name)
                continue
            answers.expect(response, Outcome(200), name)  # a value to match: none does
            if response.status_code == 200:
                assert response.json()["data"] == [], (path, name)
    quote = {
        "source": {"accountId": setup["EUR"]["id"]},
        "destination": {"accountId": setup["USD"]["id"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 1_000,
    }
    keyed = client.post("/quotes", quote, headers={"Idempotency-Key": value})
    answers.expect(keyed, Outcome(201) if len(value) <= 255 else INVALID)  # 1 to 255 characters
    execute = client.post(
        "/quotes/Quote:none/execute",
        headers={"Service-Wallet-Signature": value, "Idempotency-Key": "k"},
    )
    answers.expect(execute, NOT_FOUND)
    answers.done()


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


def test_a_date_is_iso_8601_text_not_a_number(setup: dict[str, Any]) -> None:
    # Found by the API fuzz's negative mode: "2888" was read as Unix time (1970-01-01T00:48:08).
    client: SandboxClient = setup["client"]
    for value in ("2888", "-1", "1.5e3"):
        for name in ("startDate", "endDate"):
            refused(client.get("/transactions", params={name: value}))
    assert client.get("/transactions", params={"startDate": "2025-10-13T00:00:00Z"}).is_success
