"""In production the sandbox-only payment endpoints are 403 and the account suffixes select
nothing (every transfer succeeds)."""

from __future__ import annotations

from ._client import SandboxClient
from ._payments import accounts, settled, usd_external
from .conftest import server_fixture

server = server_fixture("production", "production", environment="production", time_scale=0.05)


def test_sandbox_endpoints_are_forbidden(client: SandboxClient) -> None:
    customer = client.create_customer(currencies=["USD"])
    usd = accounts(client, customer["id"])["USD"]["id"]
    for path, body in [
        (f"/sandbox/internal-accounts/{usd}/fund", {"amount": 100}),
        ("/sandbox/send", {"quoteId": "Quote:x", "currencyCode": "USD"}),
        (
            "/sandbox/uma/receive",
            {
                "senderUmaAddress": "$a@b.c",
                "receivingCurrencyCode": "USD",
                "receivingCurrencyAmount": 1,
                "customerId": customer["id"],
            },
        ),
    ]:
        response = client.post(path, body)
        assert response.status_code == 403, path
        assert response.json()["code"] == "FORBIDDEN"
    assert client.get("/sandbox/webhook-public-key").text.startswith("-----BEGIN PUBLIC KEY-----")


def test_suffixes_select_nothing(client: SandboxClient) -> None:
    customer = client.create_customer(currencies=["USD"])
    usd = accounts(client, customer["id"])["USD"]["id"]
    external = usd_external(client, customer["id"], "105")  # not an invalid account here
    assert external["beneficiaryVerificationStatus"] == "UNSUPPORTED"
    body = {
        "source": {"accountId": external["id"]},
        "destination": {"accountId": usd},
        "amount": 500,
    }
    created = client.post("/transfer-in", body)
    assert created.status_code == 201, created.text
    assert settled(client, created.json()["id"])["status"] == "COMPLETED"
