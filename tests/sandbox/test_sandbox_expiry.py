"""Lifetimes, on a server whose ``--time-scale`` makes them seconds: an expired signed-retry
challenge, passkey challenge or session is refused. The waits read the server's own
``expiresAt``; nothing depends on how fast a request is."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._identity import oidc_arguments
from ._server import SandboxServer
from .conftest import database_url

SCALE = 0.01  # challenges 3 s, sessions 9 s


@pytest.fixture(scope="module")
def fast_server(
    backend: str,
    environment: str,
    jwks_url: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path_factory.mktemp(f"fast-{backend}-{environment}"),
        database=database_url(request, backend, environment),
        environment=environment,
        extra=oidc_arguments(jwks_url),
        time_scale=SCALE,
    )
    running.start()
    yield running
    assert running.stop() == 0


@pytest.fixture
def wallet(fast_server: SandboxServer) -> Iterator[Wallet]:
    client = SandboxClient(fast_server.base_url, fast_server.auth)
    yield Wallet(client, fast_server)
    client.close()


def _wait_past(expires_at: str) -> None:
    moment = datetime.fromisoformat(expires_at.replace("Z", "+00:00")).timestamp()
    while time.time() <= moment + 0.05:
        time.sleep(max(0.01, moment + 0.05 - time.time()))


def test_an_expired_signed_retry_challenge_is_refused(wallet: Wallet) -> None:
    _, key = wallet.first_login("OAUTH")
    path = f"/internal-accounts/{wallet.account_id}/export"
    body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    challenge = wallet.client.post(path, body).json()
    _wait_past(challenge["expiresAt"])
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    response = wallet.client.retry("POST", path, body, challenge, stamp)
    assert response.status_code == 401
    assert "expired" in response.json()["reason"]


def test_an_expired_passkey_challenge_is_refused(wallet: Wallet) -> None:
    passkey = wallet.add("PASSKEY")
    client_key = ewc.KeyPair.generate().public_key_hex()
    issued = wallet.client.post(
        f"/auth/credentials/{passkey['id']}/challenge", {"clientPublicKey": client_key}
    ).json()
    _wait_past(issued["expiresAt"])
    from ._identity import assertion

    response = wallet.client.post(
        f"/auth/credentials/{passkey['id']}/verify",
        {"type": "PASSKEY", "assertion": assertion(wallet.authenticator, issued["challenge"])},
        headers={"Request-Id": issued["requestId"]},
    )
    assert response.status_code == 401
    assert "expired" in response.json()["reason"]


def test_an_expired_session_no_longer_signs_and_is_not_listed(wallet: Wallet) -> None:
    session, key = wallet.first_login("OAUTH")
    _wait_past(session["expiresAt"])
    listed = wallet.client.get("/auth/sessions", params={"accountId": wallet.account_id})
    assert listed.json() == {"data": []}
    fresh, _ = wallet.login(
        wallet.client.get("/auth/credentials", params={"accountId": wallet.account_id}).json()[
            "data"
        ][0]
    )
    path = f"/auth/sessions/{fresh['id']}"
    challenge = wallet.client.request("DELETE", path).json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)  # the expired session's key
    response = wallet.client.retry("DELETE", path, None, challenge, stamp)
    assert response.status_code == 401
    assert response.json()["reason"] == "Invalid Service-Wallet-Signature"
