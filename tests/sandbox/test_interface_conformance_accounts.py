"""The interface's rules on accounts that no other module proves, over real HTTP against ``ewc
serve`` on both backends and in both environments (sandbox and production) where the interface
allows both: the holding-account types of a customer and their funding instructions, an
internal crypto account as the source of an immediately executed quote, an embedded wallet as a
source that signs its execution (the sandbox's magic value, a real stamp in production), and a
wallet named by either prefix."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import embedded_wallet_crypto as ewc

from ._client import SandboxClient
from ._conformance import conformance_fixtures, funded_customer, transfer_in
from ._flows import Wallet
from ._payments import accounts, settled, usd_external
from ._server import SandboxServer

env_server, api, bearer = conformance_fixtures()


# --- holding accounts --------------------------------------------------------------------------


def test_holding_accounts_and_their_funding_instructions(api: SandboxClient) -> None:
    customer = api.create_customer(currencies=["USD", "EUR", "USDC"])

    def listed(**params: str) -> list[dict[str, Any]]:
        response = api.get(
            "/customers/internal-accounts", params={"customerId": customer["id"], **params}
        )
        assert response.status_code == 200, response.text
        data: list[dict[str, Any]] = response.json()["data"]
        return data

    every = listed()
    kinds = sorted((a["type"], a["balance"]["currency"]["code"]) for a in every)
    assert kinds == [
        ("EMBEDDED_WALLET", "USDC"),
        ("INTERNAL_CRYPTO", "USDC"),
        ("INTERNAL_FIAT", "EUR"),
        ("INTERNAL_FIAT", "USD"),
    ]
    assert [a["type"] for a in listed(type="INTERNAL_CRYPTO")] == ["INTERNAL_CRYPTO"]
    assert len(listed(currency="USDC")) == 2
    assert [a["type"] for a in listed(currency="USD", type="INTERNAL_FIAT")] == ["INTERNAL_FIAT"]
    assert listed(currency="GBP") == []
    for account in every:
        assert account["id"].startswith("InternalAccount:")
        assert account["customerId"] == customer["id"]
        assert account["balance"]["amount"] == 0
        assert set(account["balance"]["currency"]) == {"code", "name", "symbol", "decimals"}
        datetime.fromisoformat(account["createdAt"].replace("Z", "+00:00"))
        datetime.fromisoformat(account["updatedAt"].replace("Z", "+00:00"))
        (instruction,) = account["fundingPaymentInstructions"]
        assert isinstance(instruction["isPlatformAccount"], bool)
        info = instruction["accountOrWalletInfo"]
        if account["balance"]["currency"]["code"] == "USD":
            assert info["accountType"] == "USD_ACCOUNT"
            assert info["paymentRails"] and info["routingNumber"] and info["reference"]
            assert info["accountNumber"] and info["bankName"]
        if account["type"] != "INTERNAL_FIAT":
            assert info["accountType"] == "SPARK_WALLET"
            assert info["assetType"] == "USDC" and info["address"]
    # The same account always shows the same instructions.
    assert listed() == every


def test_an_internal_crypto_source_may_execute_immediately(api: SandboxClient) -> None:
    customer = funded_customer(api, 50_00, ["USD", "USDC"])
    quote = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["USDC"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 20_00,
        "immediatelyExecute": True,
    }
    executed = api.post("/quotes", quote)
    assert executed.status_code == 201, executed.text
    assert settled(api, executed.json()["transactionId"])["status"] == "COMPLETED"
    back = {
        **quote,
        "source": {"sourceType": "ACCOUNT", "accountId": customer["USDC"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["USD"]},
        "lockedCurrencyAmount": executed.json()["totalReceivingAmount"],
    }
    returned = api.post("/quotes", back)  # from INTERNAL_CRYPTO: allowed too
    assert returned.status_code == 201, returned.text
    assert settled(api, returned.json()["transactionId"])["status"] == "COMPLETED"


# --- an embedded wallet pays, in both environments ----------------------------------------------


def test_an_embedded_wallet_source_signs_its_execution(
    env_server: SandboxServer, api: SandboxClient, environment: str
) -> None:
    wallet = Wallet(api, env_server)
    _, key = wallet.first_login("EMAIL_OTP")
    owner = next(
        a["customerId"]
        for a in api.get(
            "/customers/internal-accounts", params={"type": "EMBEDDED_WALLET", "limit": 100}
        ).json()["data"]
        if a["id"] == wallet.account_id
    )
    usd = accounts(api, owner)["USD"]["id"]
    external = usd_external(api, owner, "010")
    settled(api, transfer_in(api, external["id"], usd, 100_00)["id"])
    # Fill the wallet (USDC) from the USD account: no signature, the source is INTERNAL_FIAT.
    filled = api.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": usd},
            "destination": {"destinationType": "ACCOUNT", "accountId": wallet.account_id},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 80_00,
            "immediatelyExecute": True,
        },
    )
    assert filled.status_code == 201, filled.text
    assert settled(api, filled.json()["transactionId"])["status"] == "COMPLETED"
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": wallet.account_id},
        "destination": {"destinationType": "ACCOUNT", "accountId": external["id"]},
        "lockedCurrencySide": "RECEIVING",
        "lockedCurrencyAmount": 10_00,
    }
    refused = api.post("/quotes", {**body, "immediatelyExecute": True})
    assert refused.json()["code"] == "IMMEDIATE_EXECUTION_NOT_SUPPORTED"
    quote = api.post("/quotes", body).json()
    (instruction,) = quote["paymentInstructions"]
    payload = instruction["payloadToSign"]
    execute = f"/quotes/{quote['id']}/execute"
    assert api.post(execute).status_code == 401
    magic = api.post(execute, headers={"Service-Wallet-Signature": "sandbox-valid-signature"})
    if environment == "production":  # the magic value is refused like any wrong value
        assert magic.status_code == 401
        assert magic.json()["reason"] == "Invalid Service-Wallet-Signature"
        executed = api.post(
            execute, headers={"Service-Wallet-Signature": ewc.create_stamp(payload, key)}
        )
    else:
        executed = magic
    assert executed.status_code == 200, executed.text
    assert settled(api, quote["transactionId"])["status"] == "COMPLETED"


def test_a_wallet_is_named_by_either_prefix(api: SandboxClient) -> None:
    account_id = api.new_wallet()
    alias = "EmbeddedWallet:" + account_id.split(":", 1)[1]
    created = api.post("/auth/credentials", {"type": "EMAIL_OTP", "accountId": alias})
    assert created.status_code == 201, created.text
    for name in (alias, account_id):
        listed = api.get("/auth/credentials", params={"accountId": name})
        assert listed.status_code == 200, listed.text
        assert list(listed.json()) == ["data"]  # unpaginated: data only
        assert [c["id"] for c in listed.json()["data"]] == [created.json()["id"]]
    fiat = api.get(
        "/customers/internal-accounts", params={"type": "INTERNAL_FIAT", "limit": 1}
    ).json()["data"][0]["id"]
    not_a_wallet = "EmbeddedWallet:" + fiat.split(":", 1)[1]
    refused = api.post("/auth/credentials", {"type": "EMAIL_OTP", "accountId": not_a_wallet})
    assert refused.status_code == 404
