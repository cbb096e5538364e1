"""Stablecoins, the withdrawal fee estimate, the End User Terms and the verifications list over
real HTTP, in both environments, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from ._client import SandboxClient

SOLANA = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
PROVIDER = {"type": "PROVIDER_INTERNAL_BALANCE", "sourceTokenIdentifier": "x", "cryptoNetwork": "S"}


def _code(response: httpx.Response) -> str:
    return f"{response.status_code} {response.json()['code']}"


def _post(client: SandboxClient, path: str, body: Any) -> httpx.Response:
    return client.post(path, body, headers={"Idempotency-Key": str(uuid.uuid4())})


def _link(client: SandboxClient) -> dict[str, Any]:
    body = {"provider": "BRALE", "apiClientId": uuid.uuid4().hex, "apiClientSecret": "secret-1"}
    made = _post(client, "/stablecoin-provider-accounts", body)
    assert made.status_code == 201, made.text
    link: dict[str, Any] = made.json()
    return link


def _coin(client: SandboxClient, link: str | None) -> httpx.Response:
    body: dict[str, Any] = {
        "providerTokenIdentifier": "acme",
        "networkTokenIdentifier": f"btkn{uuid.uuid4().hex}",
        "network": "SPARK",
    }
    if link is not None:
        body["stablecoinProviderAccountId"] = link
    return _post(client, "/stablecoins", body)


def _bank(client: SandboxClient, customer_id: str) -> str:
    info = {
        "accountType": "USD_ACCOUNT",
        "accountNumber": "123456789",
        "routingNumber": "021000021",
        "beneficiary": {"fullName": "Jane Doe"},
    }
    made = client.post(
        "/customers/external-accounts",
        {"customerId": customer_id, "currency": "USD", "accountInfo": info},
    )
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def test_links_and_registration(client: SandboxClient, environment: str) -> None:
    link = _link(client)
    assert link["providerEnvironment"] == environment.upper() and link["status"] == "ACTIVE"
    assert "secret-1" not in str(link) and "apiClientSecret" not in link
    again = {
        "provider": "BRALE",
        "apiClientId": "x",
        "apiClientSecret": "s",
        "providerAccountId": link["providerAccountId"],
    }
    assert _code(_post(client, "/stablecoin-provider-accounts", again)) == "409 CONFLICT"
    unkeyed = client.post("/stablecoin-provider-accounts", again)
    assert _code(unkeyed) == "400 INVALID_INPUT"
    assert _code(_post(client, "/stablecoin-provider-accounts", {**again, "provider": "X"})) == (
        "400 INVALID_INPUT"
    )
    got = client.get(f"/stablecoin-provider-accounts/{link['id']}").json()
    assert got == link
    listed = client.get("/stablecoin-provider-accounts", params={"status": "ACTIVE"}).json()
    assert link["id"] in [item["id"] for item in listed["data"]]
    assert _code(client.get("/stablecoin-provider-accounts/Nope:1")) == "404 NOT_FOUND"
    _link(client)  # two links now: a registration must name one
    assert _code(_coin(client, None)) == "400 STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED"
    assert _code(_coin(client, "StablecoinProviderAccount:missing")) == "404 NOT_FOUND"
    made = _coin(client, link["id"])
    assert made.status_code == 201, made.text
    coin = made.json()
    assert (coin["decimals"], coin["issuanceStatus"], coin["stablecoinProviderAccountId"]) == (
        6,
        "PROVISIONED",
        link["id"],
    )
    duplicate = {
        "providerTokenIdentifier": "acme",
        "network": "SPARK",
        "networkTokenIdentifier": coin["networkTokenIdentifier"],
        "stablecoinProviderAccountId": link["id"],
    }
    assert _code(_post(client, "/stablecoins", duplicate)) == "409 CONFLICT"
    assert (
        _code(_post(client, "/stablecoins", {**duplicate, "network": "ETH"})) == "400 INVALID_INPUT"
    )
    assert client.get(f"/stablecoins/{coin['id']}").json() == coin
    assert client.get("/stablecoins", params={"issuanceStatus": "REJECTED"}).json()["data"] == []
    assert coin["id"] in [c["id"] for c in client.get("/stablecoins").json()["data"]]


def test_mints_and_burns_keep_the_supply(client: SandboxClient) -> None:
    coin = _coin(client, _link(client)["id"]).json()["id"]
    customer = client.create_customer(fullName="Jane Doe")
    bank = _bank(client, customer["id"])
    listed = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    usd = next(a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_FIAT")
    mints = f"/stablecoins/{coin}/mints"
    burns = f"/stablecoins/{coin}/burns"
    wire = _post(
        client,
        mints,
        {"amount": "2000000", "fundingSource": {"type": "WIRE"}, "destination": {"accountId": usd}},
    ).json()
    assert wire["status"] == "PENDING_FUNDING" and wire["fundingInstructions"]["rail"] == "WIRE"
    burn = {
        "amount": "10000",
        "source": {"type": "EXTERNAL_ACCOUNT"},
        "destination": {
            "type": "EXTERNAL_ACCOUNT",
            "externalAccountId": bank,
            "rail": "RTP_CREDIT",
        },
    }
    assert _code(_post(client, burns, burn)) == "400 INSUFFICIENT_SUPPLY"  # a wire adds nothing yet
    minted = _post(
        client,
        mints,
        {"amount": "1000000", "fundingSource": PROVIDER, "destination": {"accountId": usd}},
    )
    assert minted.status_code == 201 and minted.json()["status"] == "COMPLETED"
    assert (
        _code(
            _post(
                client,
                mints,
                {"amount": "1000001", "fundingSource": PROVIDER, "destination": {"accountId": usd}},
            )
        )
        == "400 INVALID_AMOUNT"
    )
    funded = {"type": "GRID_INTERNAL_ACCOUNT", "accountId": usd}
    short = _post(
        client,
        mints,
        {"amount": "1000000", "fundingSource": funded, "destination": {"accountId": usd}},
    )
    assert _code(short) == "400 INSUFFICIENT_FUNDS"  # 1.00 USD from an empty account
    done = _post(client, burns, {**burn, "amount": "1000000"})
    assert done.status_code == 201, done.text
    assert done.json()["estimatedDelivery"] == {
        "rail": "RTP_CREDIT",
        "amount": "100",
        "currency": "USD",
        "timing": "within minutes",
    }
    assert _code(_post(client, burns, burn)) == "400 INSUFFICIENT_SUPPLY"
    for bad in (
        {**burn, "amount": "0"},
        {**burn, "amount": "1e6"},
        {**burn, "amount": 10000},
        {**burn, "amount": "9" * 17},
        {**burn, "source": {"type": "NOPE"}},
        {**burn, "description": "x" * 1025},
    ):
        assert _code(_post(client, burns, bad)) == "400 INVALID_INPUT", bad
    missing = {
        **burn,
        "destination": {**burn["destination"], "externalAccountId": "ExternalAccount:x"},
    }
    assert _code(_post(client, burns, missing)) == "404 NOT_FOUND"
    ops = client.get(f"/stablecoins/{coin}/operations").json()
    assert [op["operationType"] for op in ops["data"]] == ["BURN", "MINT", "MINT"]  # newest first
    only = client.get(f"/stablecoins/{coin}/operations", params={"operationType": "MINT"})
    assert only.json()["totalCount"] == 2
    one = client.get(f"/stablecoin-operations/{ops['data'][0]['id']}").json()
    assert one == ops["data"][0]
    assert _code(client.get("/stablecoin-operations/StablecoinOperation:x")) == "404 NOT_FOUND"
    assert _code(_post(client, "/stablecoins/Stablecoin:x/burns", burn)) == "404 NOT_FOUND"


def test_fee_terms_and_verifications(client: SandboxClient) -> None:
    customer = client.create_customer(fullName="Jane Doe", currencies=["USD", "USDC"])
    listed = client.get("/customers/internal-accounts", params={"customerId": customer["id"]})
    usdc = next(a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_CRYPTO")
    body = {
        "internalAccountId": usdc,
        "currency": "USDC",
        "cryptoNetwork": "SOLANA",
        "amount": 1_000_000,
        "destinationAddress": SOLANA,
    }
    fee = client.post("/crypto/estimate-withdrawal-fee", body).json()
    assert fee == {
        "networkFee": 5000,
        "networkFeeAsset": "SOL",
        "applicationFee": 0,
        "totalFee": 1000,
        "netAmount": 999_000,
    }
    evm = {**body, "cryptoNetwork": "BASE", "destinationAddress": "0x" + "ab" * 20}
    assert client.post("/crypto/estimate-withdrawal-fee", evm).json()["totalFee"] == 10_000
    for bad, code in (
        ({**body, "destinationAddress": "0x12"}, "400 INVALID_INPUT"),
        ({**body, "cryptoNetwork": "BASE"}, "400 INVALID_INPUT"),
        ({**body, "cryptoNetwork": "DOGE"}, "400 INVALID_INPUT"),
        ({**body, "currency": "USD"}, "400 INVALID_CURRENCY"),
        ({**body, "amount": 1000}, "400 AMOUNT_OUT_OF_RANGE"),
        ({**body, "amount": -5}, "400 INVALID_INPUT"),
        ({**body, "destinationAddress": "x" * 201}, "400 INVALID_INPUT"),
        ({**body, "internalAccountId": "InternalAccount:missing"}, "404 NOT_FOUND"),
    ):
        assert _code(client.post("/crypto/estimate-withdrawal-fee", bad)) == code, bad
    terms = client.get("/customers/end-user-terms").json()
    assert terms["version"] == "V1" and terms["url"].startswith("https://")
    made = client.post("/verifications", {"customerId": customer["id"]}).json()
    found = client.get("/verifications", params={"customerId": customer["id"]}).json()
    assert [v["id"] for v in found["data"]] == [made["id"]] and found["totalCount"] == 1
    status = made["verificationStatus"]
    other = "REJECTED" if status != "REJECTED" else "APPROVED"
    params = {"customerId": customer["id"], "verificationStatus": other}
    assert client.get("/verifications", params=params).json()["data"] == []
    assert _code(client.get("/verifications", params={"limit": 0})) == "400 INVALID_INPUT"
    assert _code(client.get("/verifications", params={"cursor": "zz"})) == "400 INVALID_INPUT"
