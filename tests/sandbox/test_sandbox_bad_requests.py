"""Malformed requests get a 400 (or the status their check names) in the error shape, never a
500: wrong types, missing fields, bad keys, hostile strings, unknown ids, wrong headers."""

from __future__ import annotations

import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._server import SandboxServer

# Pure validation: SQLite only (see the conftest).
pytestmark = pytest.mark.sqlite_only

HOSTILE: list[Any] = [
    *(None, 0, -1, 1.5, True, "", "\x00", "\ud800", "x" * 30000, [], {}, [1]),
    *("InternalAccount:\ud800", "AuthMethod:\x00", "InternalAccount:" + "x" * 190),
]
NOT_ON_CURVE = "04" + "00" * 64
COMPRESSED_BAD = "02" + "ff" * 32


@pytest.fixture(scope="module")
def setup(server: SandboxServer) -> dict[str, Any]:
    client = SandboxClient(server.base_url, server.auth)
    wallet = Wallet(client, server)
    email = wallet.add("EMAIL_OTP")
    _, key = wallet.login(email)
    passkey = wallet.add("PASSKEY", signer=key)
    oauth = wallet.add("OAUTH", signer=key)
    return {"wallet": wallet, "email": email, "passkey": passkey, "oauth": oauth, "key": key}


def _no_500(response: Any, *allowed: int) -> None:
    assert response.status_code < 500, response.text
    body = response.json()
    assert set(body) == {"status", "code", "reason"}, body
    assert body["status"] == response.status_code
    if allowed:
        assert response.status_code in allowed, response.text


def _bodies(valid: dict[str, Any]) -> list[Any]:
    """The valid body with each field replaced by each hostile value, or removed; and
    non-object bodies."""
    variants: list[Any] = [None, [], "text", 7, [valid]]
    for name in valid:
        variants.append({k: v for k, v in valid.items() if k != name})
        for value in HOSTILE:
            variants.append({**valid, name: value})
    variants.append({**valid, "unexpected": 1})
    return variants


def _post(
    client: SandboxClient, path: str, body: Any, headers: dict[str, str] | None = None
) -> Any:
    """JSON as bytes: a lone surrogate goes out as its JSON escape, as a hostile client sends."""
    return client.request(
        "POST",
        path,
        content=json.dumps(body, ensure_ascii=True).encode(),
        headers={"content-type": "application/json", **(headers or {})},
    )


def test_create_credential_bodies(setup: dict[str, Any]) -> None:
    wallet: Wallet = setup["wallet"]
    fresh = Wallet(wallet.client, wallet.server)
    for kind in ("EMAIL_OTP", "OAUTH", "PASSKEY"):
        valid = fresh.body(kind)
        for body in _bodies(valid):
            if body == valid:
                continue
            response = _post(wallet.client, "/auth/credentials", body)
            _no_500(response, 400, 401, 404)


def test_verify_and_challenge_bodies(setup: dict[str, Any]) -> None:
    wallet: Wallet = setup["wallet"]
    key = ewc.KeyPair.generate().public_key_hex()
    for credential, valid in (
        (setup["email"], {"type": "EMAIL_OTP", "otp": "999999", "clientPublicKey": key}),
        (setup["oauth"], {"type": "OAUTH", "oidcToken": "a.b.c", "clientPublicKey": key}),
        (
            setup["passkey"],
            {"type": "PASSKEY", "assertion": {"credentialId": "AA", "clientDataJson": "AA",
                                              "authenticatorData": "AA", "signature": "AA"}},
        ),
    ):  # fmt: skip
        path = f"/auth/credentials/{credential['id']}/verify"
        for body in [*_bodies(valid), {**valid, "clientPublicKey": NOT_ON_CURVE}]:
            _no_500(_post(wallet.client, path, body, headers={"Request-Id": "Request:x"}), 400, 401)
    path = f"/auth/credentials/{setup['passkey']['id']}/challenge"
    for body in [*_bodies({"clientPublicKey": key}), {"clientPublicKey": NOT_ON_CURVE}]:
        _no_500(_post(wallet.client, path, body), 400)
    bad_key = {"type": "OAUTH", "oidcToken": "a.b.c", "clientPublicKey": COMPRESSED_BAD}
    _no_500(_post(wallet.client, f"/auth/credentials/{setup['oauth']['id']}/verify", bad_key))


def test_export_bodies_and_headers(setup: dict[str, Any]) -> None:
    wallet: Wallet = setup["wallet"]
    path = f"/internal-accounts/{wallet.account_id}/export"
    key = ewc.KeyPair.generate().public_key_hex()
    for body in [*_bodies({"clientPublicKey": key}), {"clientPublicKey": NOT_ON_CURVE}]:
        _no_500(_post(wallet.client, path, body), 400)
    for headers in (
        {"Service-Wallet-Signature": "x"},
        {"Request-Id": "Request:x"},
        {"Service-Wallet-Signature": "x", "Request-Id": "y" * 5000},
        {"Grid-Wallet-Signature": "%%%", "Request-Id": "Request:x"},
    ):
        _no_500(_post(wallet.client, path, {"clientPublicKey": key}, headers=headers), 401)


def test_unknown_ids_and_paths(setup: dict[str, Any]) -> None:
    client: SandboxClient = setup["wallet"].client
    for method, path in (
        ("POST", "/auth/credentials/AuthMethod:nope/challenge"),
        ("POST", "/internal-accounts/InternalAccount:nope/export"),
        ("DELETE", "/auth/credentials/AuthMethod:nope"),
        ("DELETE", "/auth/sessions/Session:nope"),
        ("GET", "/auth/nothing"),
    ):
        body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
        _no_500(client.request(method, path, json=body), 404)
    for params in ({}, {"accountId": ""}, {"accountId": "x" * 500}):
        _no_500(client.get("/auth/credentials", params=params), 400)
        _no_500(client.get("/auth/sessions", params=params), 400)
    _no_500(client.request("PUT", "/auth/credentials"), 405)
    for query in (
        "customerId=InternalAccount:%ED%A0%80",
        "currency=%00",
        "customerId=%FF%FE",
        "cursor=%ED%A0%80",
    ):
        # A cursor not issued here, and text no backend can store (NUL), are refused.
        _no_500(
            client.get(f"/customers/internal-accounts?{query}"), 400
        ) if "cursor" in query or "%00" in query else (
            client.get(f"/customers/internal-accounts?{query}").raise_for_status()
        )
    for path in ("/auth/credentials/AuthMethod:%ED%A0%80/challenge", "/auth/sessions/%00"):
        expected = 400 if "%00" in path else 404  # NUL: text no backend stores
        _no_500(client.request("POST" if "challenge" in path else "DELETE", path), expected)
