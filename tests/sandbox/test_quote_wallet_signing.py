"""Quotes from an embedded wallet over real HTTP against ``ewc serve`` (the quote tests' server):
the execution needs the session key's stamp of the quote's payloadToSign (none, a stranger's
and one over other bytes are refused; the wallet's own pays), and the sandbox's magic signature
value is accepted. The other quote tests are ``test_quotes``."""

from __future__ import annotations

import json
from typing import Any

import embedded_wallet_crypto as ewc

from ._client import SandboxClient
from ._flows import Wallet
from ._payments import balance, fund, owner_of, settled, usd_external
from ._quotes import customer, quote_body, server
from ._server import SandboxServer

__all__ = ["customer", "server"]  # the fixtures, used here


# --- an embedded wallet pays: the session key signs the quote's payloadToSign -----------------


def test_embedded_wallet_execution_needs_the_session_signature(
    client: SandboxClient, server: SandboxServer
) -> None:
    wallet = Wallet(client, server)
    _, key = wallet.first_login("EMAIL_OTP")
    fund(client, wallet.account_id, 50_000_000)  # 50 USDC
    owner = owner_of(client, wallet.account_id)
    external = usd_external(client, owner, "999")
    quote = client.post(
        "/quotes",
        {
            "source": {"sourceType": "ACCOUNT", "accountId": wallet.account_id},
            "destination": {"destinationType": "ACCOUNT", "accountId": external["id"]},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": 1_000,
        },
    ).json()
    (instruction,) = quote["paymentInstructions"]
    payload = instruction["payloadToSign"]
    assert json.loads(payload)["type"] == "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
    missing = client.post(f"/quotes/{quote['id']}/execute")
    assert missing.status_code == 401
    stranger = ewc.create_stamp(payload, ewc.KeyPair.generate())
    wrong = client.post(
        f"/quotes/{quote['id']}/execute", headers={"Service-Wallet-Signature": stranger}
    )
    assert wrong.status_code == 401
    assert wrong.json()["reason"] == "Invalid Service-Wallet-Signature"
    other_payload = client.post(
        f"/quotes/{quote['id']}/execute",
        headers={"Service-Wallet-Signature": ewc.create_stamp(payload + " ", key)},
    )
    assert other_payload.status_code == 401
    stamp = ewc.create_stamp(payload, key)
    executed = client.post(
        f"/quotes/{quote['id']}/execute", headers={"Service-Wallet-Signature": stamp}
    )
    assert executed.status_code == 200, executed.text
    assert settled(client, quote["transactionId"])["status"] == "COMPLETED"
    assert balance(client, owner, "WALLET") == 50_000_000 - quote["totalSendingAmount"]


def test_sandbox_signature_magic(client: SandboxClient, customer: dict[str, Any]) -> None:
    fund(client, customer["WALLET"], 10_000_000)
    body = quote_body(customer["WALLET"], customer["EUR"], lockedCurrencyAmount=1_000_000)
    quote = client.post("/quotes", body).json()
    executed = client.post(
        f"/quotes/{quote['id']}/execute",
        headers={"Service-Wallet-Signature": "sandbox-valid-signature"},
    )
    assert executed.status_code == 200, executed.text
