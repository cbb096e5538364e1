"""The interface's sandbox magic values: accepted in the sandbox environment, refused in
production exactly like any other wrong value (401 with the interface's reason)."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._identity import AUDIENCE, ISSUER
from ._server import SandboxServer


@pytest.fixture
def wallet(client: SandboxClient, server: SandboxServer) -> Wallet:
    return Wallet(client, server)


def _expect(response: Any, server: SandboxServer, reason: str, ok: int = 200) -> None:
    if server.environment == "sandbox":
        assert response.status_code == ok, response.text
    else:
        assert response.status_code == 401, response.text
        assert response.json() == {"status": 401, "code": "UNAUTHORIZED", "reason": reason}


def test_otp_000000(wallet: Wallet, server: SandboxServer) -> None:
    credential = wallet.add("EMAIL_OTP")
    response = wallet.client.post(
        f"/auth/credentials/{credential['id']}/verify",
        {"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": _key()},
    )
    _expect(response, server, "Invalid OTP code")


def test_the_sandbox_oidc_token_on_verify(wallet: Wallet, server: SandboxServer) -> None:
    credential = wallet.add("OAUTH")
    response = wallet.client.post(
        f"/auth/credentials/{credential['id']}/verify",
        {"type": "OAUTH", "oidcToken": "sandbox-valid-oidc-token", "clientPublicKey": _key()},
    )
    _expect(response, server, "Invalid OIDC token")


def test_an_unsigned_token_on_create(wallet: Wallet, server: SandboxServer) -> None:
    def segment(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "s", "iat": now, "exp": now + 600}
    token = f"{segment({'alg': 'RS256'})}.{segment(claims)}.c2lnbmF0dXJl"
    body = {"type": "OAUTH", "accountId": wallet.account_id, "oidcToken": token}
    _expect(wallet.client.post("/auth/credentials", body), server, "Invalid OIDC token", 201)
    # The magic string itself is not a JWT: refused on create in both environments.
    other = Wallet(wallet.client, server)
    body = {"type": "OAUTH", "accountId": other.account_id, "oidcToken": "sandbox-valid-oidc-token"}
    response = wallet.client.post("/auth/credentials", body)
    assert response.status_code == 401 and response.json()["reason"] == "Invalid OIDC token"


def test_the_sandbox_passkey_signature(wallet: Wallet, server: SandboxServer) -> None:
    credential = wallet.add("PASSKEY")
    body, headers = wallet.verify_body(credential, ewc.KeyPair.generate(), compressed=False)
    body["assertion"]["signature"] = "sandbox-valid-passkey-signature"
    response = wallet.client.post(
        f"/auth/credentials/{credential['id']}/verify", body, headers=headers
    )
    _expect(response, server, "Invalid passkey signature")


def test_the_sandbox_stamp(wallet: Wallet, server: SandboxServer) -> None:
    session, _ = wallet.first_login("OAUTH")
    _, response = wallet.client.signed_retry(
        "DELETE", f"/auth/sessions/{session['id']}", stamp="sandbox-valid-signature"
    )
    _expect(response, server, "Invalid Service-Wallet-Signature", 204)


def _key() -> str:
    return ewc.KeyPair.generate().public_key_hex()
