"""POST /customers and GET /customers/internal-accounts over real HTTP."""

from __future__ import annotations

import httpx

from ._client import SandboxClient
from ._server import SandboxServer


def test_a_customer_gets_a_fiat_account_per_currency_and_one_wallet(client: SandboxClient) -> None:
    customer = client.create_customer(currencies=["USD", "EUR"], platformCustomerId="c-1")
    assert customer["id"].startswith("Customer:")
    assert customer["platformCustomerId"] == "c-1"
    listed = client.get(
        "/customers/internal-accounts", params={"customerId": customer["id"]}
    ).json()
    assert listed["totalCount"] == 3 and listed["hasMore"] is False
    assert "nextCursor" not in listed
    kinds = sorted((a["type"], a["balance"]["currency"]["code"]) for a in listed["data"])
    assert kinds == [
        ("EMBEDDED_WALLET", "USDC"),
        ("INTERNAL_FIAT", "EUR"),
        ("INTERNAL_FIAT", "USD"),
    ]
    for account in listed["data"]:
        assert account["id"].startswith("InternalAccount:")
        assert account["customerId"] == customer["id"]
        assert account["balance"]["amount"] == 0


#: The account details each fiat currency's funding instructions give (the published variants).
FUNDING_FIELDS = {
    "USD": {"accountNumber", "routingNumber", "paymentRails", "reference"},
    "EUR": {"iban", "paymentRails", "reference"},
    "GBP": {"sortCode", "accountNumber", "paymentRails", "reference"},
    "MXN": {"clabeNumber", "paymentRails", "reference"},
    "BRL": {"qrCode"},
    "CAD": {"bankCode", "branchCode", "accountNumber", "paymentRails", "reference"},
    "INR": {"paymentRails"},
    "NGN": {"accountNumber", "bankName", "paymentRails", "reference"},
    "PHP": {"accountNumber", "bankName", "paymentRails", "reference"},
}


def test_funding_instructions_have_each_currencys_details(client: SandboxClient) -> None:
    customer = client.create_customer(currencies=list(FUNDING_FIELDS))
    listed = client.get(
        "/customers/internal-accounts", params={"customerId": customer["id"], "limit": 100}
    ).json()["data"]
    for account in listed:
        code = account["balance"]["currency"]["code"]
        (instruction,) = account["fundingPaymentInstructions"]
        info = instruction["accountOrWalletInfo"]
        if account["type"] == "EMBEDDED_WALLET":
            assert info["accountType"] == "SPARK_WALLET"
            continue
        assert info["accountType"] == f"{code}_ACCOUNT"
        assert FUNDING_FIELDS[code] <= set(info), (code, info)
    eur = next(a for a in listed if a["balance"]["currency"]["code"] == "EUR")
    iban = eur["fundingPaymentInstructions"][0]["accountOrWalletInfo"]["iban"]
    rearranged = iban[4:] + iban[:4]
    assert int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1  # ISO 13616


def test_the_list_pages_with_a_cursor_and_filters(client: SandboxClient) -> None:
    customer = client.create_customer(currencies=["USD", "EUR", "MXN", "BRL"])
    seen: list[str] = []
    params = {"customerId": customer["id"], "limit": 2}
    while True:
        page = client.get("/customers/internal-accounts", params=params).json()
        assert page["totalCount"] == 5
        seen += [a["id"] for a in page["data"]]
        if not page["hasMore"]:
            break
        params["cursor"] = page["nextCursor"]
    assert len(seen) == len(set(seen)) == 5
    only_mxn = client.get(
        "/customers/internal-accounts",
        params={"customerId": customer["id"], "currency": "MXN", "type": "INTERNAL_FIAT"},
    ).json()
    assert [a["balance"]["currency"]["code"] for a in only_mxn["data"]] == ["MXN"]


def test_platform_credentials_are_required(server: SandboxServer) -> None:
    for auth in (None, ("platform-test", "wrong"), ("nobody", "x")):
        response = httpx.get(f"{server.base_url}/customers/internal-accounts", auth=auth)
        assert response.status_code == 401
        assert response.json()["code"] == "UNAUTHORIZED"
        assert response.headers["www-authenticate"].startswith("Basic")


def test_bad_requests_get_400_and_unknown_routes_404(client: SandboxClient) -> None:
    bad = [
        client.post("/customers", {"customerType": "ROBOT"}),
        client.post("/customers", {}),
        client.post("/customers", [1, 2]),
        client.request(
            "POST", "/customers", content=b"{not json", headers={"content-type": "application/json"}
        ),
        client.post("/customers", {"customerType": "INDIVIDUAL", "currencies": ["usd"]}),
        client.get("/customers/internal-accounts", params={"limit": 0}),
        client.get("/customers/internal-accounts", params={"limit": 101}),
        client.get("/customers/internal-accounts", params={"cursor": "bm9wZQ"}),
        client.get("/customers/internal-accounts", params={"type": "SAVINGS"}),
    ]
    for response in bad:
        assert response.status_code == 400, response.text
        body = response.json()
        assert set(body) == {"status", "code", "reason"} and body["status"] == 400
    missing = client.get("/no/such/route")
    assert missing.status_code == 404
    assert missing.json() == {
        "status": 404,
        "code": "NOT_FOUND",
        "reason": missing.json()["reason"],
    }


def test_the_openapi_document_is_served(server: SandboxServer) -> None:
    document = httpx.get(f"{server.base_url}/openapi.json").json()
    assert "/2025-10-13/customers" in document["paths"]
