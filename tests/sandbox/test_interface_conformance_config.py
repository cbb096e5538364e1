"""The interface's rules on the platform configuration that no other module proves, over real
HTTP against ``ewc serve`` on both backends and in both environments (sandbox and production):
``GET`` and ``PATCH /config`` (its fields, what a patch changes, ignores or refuses), and the
per-currency configuration (``supportedCurrencies``) on transfers: a transaction type it does not
enable, an amount under its minimum or over its maximum."""

from __future__ import annotations

from ._client import SandboxClient
from ._conformance import conformance_fixtures, funded_customer

env_server, api, bearer = conformance_fixtures()


# --- the platform configuration ------------------------------------------------------------------


def test_the_platform_configuration(api: SandboxClient) -> None:
    config = api.get("/config").json()
    assert config["id"].startswith("PlatformConfig:")
    assert isinstance(config["isRegulatedFinancialInstitution"], bool)
    assert config["umaDomain"] and config["proxyUmaSubdomain"]
    for entry in config["supportedCurrencies"]:
        assert set(entry) == {
            "currencyCode",
            "minAmount",
            "maxAmount",
            "enabledTransactionTypes",
            "requiredCounterpartyFields",
            "providerRequiredCustomerFields",
            "providerRequiredCounterpartyCustomerFields",
        }
    patched = api.request(
        "PATCH",
        "/config",
        json={
            "umaDomain": "pay.example.com",
            "id": "PlatformConfig:mine",  # read-only fields are ignored
            "isRegulatedFinancialInstitution": not config["isRegulatedFinancialInstitution"],
        },
    )
    assert patched.status_code == 200, patched.text
    after = patched.json()
    assert after["umaDomain"] == "pay.example.com"
    assert after["id"] == config["id"] and after["createdAt"] == config["createdAt"]
    assert after["isRegulatedFinancialInstitution"] == config["isRegulatedFinancialInstitution"]
    assert api.get("/config").json() == after
    bad = api.request(
        "PATCH",
        "/config",
        json={"supportedCurrencies": [{"currencyCode": "USD", "minAmount": 5, "maxAmount": 4}]},
    )
    assert bad.status_code == 400
    api.request("PATCH", "/config", json={"umaDomain": config["umaDomain"]})


# --- the per-currency configuration on transfers -----------------------------------------------


def test_supported_currencies_limit_transfers(api: SandboxClient) -> None:
    customer = funded_customer(api, 0, ["USD"])
    original = api.get("/config").json()["supportedCurrencies"]
    usd = next(entry for entry in original if entry["currencyCode"] == "USD")
    narrowed = [
        entry
        if entry is not usd
        else {
            **usd,
            "minAmount": 1_00,
            "maxAmount": 500_00,
            "enabledTransactionTypes": ["OUTGOING"],
        }
        for entry in original
    ]
    patched = api.request("PATCH", "/config", json={"supportedCurrencies": narrowed})
    assert patched.status_code == 200, patched.text
    try:
        assert api.get("/config").json()["supportedCurrencies"] == narrowed
        pull = {
            "source": {"accountId": customer["external"]},
            "destination": {"accountId": customer["USD"]},
            "amount": 10_00,
        }
        refused = api.post("/transfer-in", pull)  # INCOMING is not enabled for USD
        assert (refused.status_code, refused.json()["code"]) == (400, "UNSUPPORTED_CURRENCY")
        push = {
            "source": {"accountId": customer["USD"]},
            "destination": {"accountId": customer["external"]},
        }
        for amount, code in [(99, "AMOUNT_TOO_SMALL"), (500_01, "AMOUNT_TOO_LARGE")]:
            response = api.post("/transfer-out", {**push, "amount": amount})
            assert (response.status_code, response.json()["code"]) == (400, code)
    finally:
        restored = api.request("PATCH", "/config", json={"supportedCurrencies": original})
        assert restored.status_code == 200, restored.text
