"""The platform's directories over real HTTP, in both environments, on SQLite and PostgreSQL:
exchange rates, UMA providers, VASPs, discoveries and the platform's internal accounts, as the
published document writes them, with the sandbox's fixed data; bad input is 400 with a stable
code."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ._client import SandboxClient


def _ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["code"]


def test_exchange_rates(client: SandboxClient) -> None:
    rates = _ok(client.get("/exchange-rates"))["data"]
    pairs = {(r["sourceCurrency"]["code"], r["destinationCurrency"]["code"]) for r in rates}
    assert ("USD", "INR") in pairs and ("EUR", "USD") in pairs
    assert all(source != destination for source, destination in pairs)
    picked = _ok(
        client.get(
            "/exchange-rates",
            params={"sourceCurrency": "USD", "destinationCurrency": ["INR", "EUR"]},
        )
    )["data"]
    assert [(r["destinationCurrency"]["code"], r["destinationPaymentRail"]) for r in picked] == [
        ("INR", "UPI"),
        ("EUR", "SEPA_INSTANT"),
    ]
    inr = picked[0]
    assert inr["sendingAmount"] == 10000  # the published default
    assert inr["exchangeRate"] == pytest.approx(1 / 83)
    assert inr["receivingAmount"] == pytest.approx((10000 - inr["fees"]["total"]) * 83, rel=1e-3)
    bigger = _ok(
        client.get(
            "/exchange-rates",
            params={"sourceCurrency": "USD", "destinationCurrency": "INR", "sendingAmount": 20000},
        )
    )["data"][0]
    assert bigger["sendingAmount"] == 20000 and bigger["receivingAmount"] > inr["receivingAmount"]
    assert _ok(client.get("/exchange-rates", params={"sourceCurrency": "XYZ"}))["data"] == []


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"sourceCurrency": "usd"}, (400, "INVALID_CURRENCY")),
        ({"destinationCurrency": "1"}, (400, "INVALID_CURRENCY")),
        ({"sourceCurrency": "A" * 11}, (400, "INVALID_INPUT")),
        ({"sendingAmount": "-1"}, (400, "INVALID_INPUT")),
        ({"sendingAmount": "1.5"}, (400, "INVALID_INPUT")),
        ({"sendingAmount": str(10**20)}, (400, "INVALID_INPUT")),
    ],
)
def test_bad_exchange_rate_queries(
    client: SandboxClient, params: dict[str, str], expected: tuple[int, str]
) -> None:
    assert _code(client.get("/exchange-rates", params=params)) == expected


def test_uma_providers(client: SandboxClient) -> None:
    everyone = _ok(client.get("/uma-providers"))
    assert everyone["totalCount"] == len(everyone["data"]) >= 3
    names = [provider["name"] for provider in everyone["data"]]
    assert names == sorted(names, reverse=True)  # sortOrder desc by default
    allowed = _ok(client.get("/uma-providers", params={"hasBlockedProviders": "false"}))["data"]
    assert all(provider["allowListStatus"] for provider in allowed)
    assert len(allowed) < len(everyone["data"])
    mexico = _ok(client.get("/uma-providers", params={"countryCode": "MX", "currencyCode": "MXN"}))
    assert [p["supportedRegions"] for p in mexico["data"]] == [["MX"]]
    for unknown in ({"countryCode": "usa"}, {"currencyCode": ""}):
        assert _ok(client.get("/uma-providers", params=unknown))["data"] == []
    seen: list[str] = []
    params: dict[str, Any] = {"limit": 2, "sortOrder": "asc"}
    while True:
        page = _ok(client.get("/uma-providers", params=params))
        seen += [provider["name"] for provider in page["data"]]
        if not page["hasMore"]:
            break
        params["cursor"] = page["nextCursor"]
    assert seen == sorted(names)


def test_vasps_and_discoveries(client: SandboxClient) -> None:
    vasps = _ok(client.get("/vasps"))
    assert {"vaspName": "Kraken", "url": "https://www.kraken.com"} in vasps["data"]
    first = _ok(client.get("/vasps", params={"limit": 1}))
    second = _ok(client.get("/vasps", params={"limit": 1, "cursor": first["nextCursor"]}))
    assert first["data"] + second["data"] == vasps["data"][:2]
    banks = _ok(client.get("/discoveries", params={"country": "PH", "currency": "PHP"}))["data"]
    assert {bank["bankName"] for bank in banks} == {"BDO Unibank", "BPI"}
    assert _ok(client.get("/discoveries", params={"country": "PH", "currency": "USD"})) == {
        "data": []
    }
    assert len(_ok(client.get("/discoveries"))["data"]) >= 10


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("path", "params", "expected"),
    [
        ("/uma-providers", {"hasBlockedProviders": "maybe"}, (400, "INVALID_INPUT")),
        ("/uma-providers", {"sortOrder": "up"}, (400, "INVALID_INPUT")),
        ("/uma-providers", {"cursor": "x"}, (400, "INVALID_INPUT")),
        ("/vasps", {"limit": "0"}, (400, "INVALID_INPUT")),
        ("/vasps", {"cursor": "!!"}, (400, "INVALID_INPUT")),
        ("/discoveries", {"country": "P"}, (400, "INVALID_INPUT")),
        ("/discoveries", {"currency": "php"}, (400, "INVALID_CURRENCY")),
        ("/platform/internal-accounts", {"type": "CHECKING"}, (400, "INVALID_INPUT")),
    ],
)
def test_bad_directory_queries(
    client: SandboxClient, path: str, params: dict[str, str], expected: tuple[int, str]
) -> None:
    assert _code(client.get(path, params=params)) == expected


def test_platform_internal_accounts(client: SandboxClient) -> None:
    config = _ok(client.get("/config"))
    supported = [entry["currencyCode"] for entry in config["supportedCurrencies"]]
    listed = _ok(client.get("/platform/internal-accounts"))["data"]
    assert sorted(account["balance"]["currency"]["code"] for account in listed) == sorted(supported)
    again = _ok(client.get("/platform/internal-accounts"))["data"]
    assert [account["id"] for account in again] == [account["id"] for account in listed]
    for account in listed:
        assert "customerId" not in account and account["status"] == "ACTIVE"
        assert account["balance"]["amount"] == 0
        assert all(entry["isPlatformAccount"] for entry in account["fundingPaymentInstructions"])
    code = supported[0]
    only = _ok(client.get("/platform/internal-accounts", params={"currency": code}))["data"]
    assert [account["balance"]["currency"]["code"] for account in only] == [code]
    fiat = _ok(client.get("/platform/internal-accounts", params={"type": "INTERNAL_FIAT"}))["data"]
    assert all(account["type"] == "INTERNAL_FIAT" for account in fiat)


def test_the_directories_need_credentials(client: SandboxClient) -> None:
    for path in ("/exchange-rates", "/uma-providers", "/vasps", "/discoveries"):
        assert _code(httpx.get(client.http.base_url.join(path.lstrip("/")))) == (
            401,
            "UNAUTHORIZED",
        )


def test_a_currency_without_sandbox_bank_details_is_funded_by_swift(client: SandboxClient) -> None:
    """AED has a published account variant the sandbox has no details for: its funding
    instruction is the published SWIFT_ACCOUNT."""
    customer = client.create_customer(currencies=["AED"])
    (account,) = _ok(
        client.get(
            "/customers/internal-accounts",
            params={"customerId": customer["id"], "type": "INTERNAL_FIAT"},
        )
    )["data"]
    info = account["fundingPaymentInstructions"][0]["accountOrWalletInfo"]
    assert info["accountType"] == "SWIFT_ACCOUNT" and info["paymentRails"] == ["SWIFT"]
    assert {"swiftCode", "bankName", "country", "accountNumber", "accountHolderName"} <= set(info)
