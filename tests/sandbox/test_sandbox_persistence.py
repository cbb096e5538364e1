"""State survives a restart (accounts, credentials, sessions, outstanding challenges and used
request ids), and several processes on one database (or one Redis) share single use and
rate limits."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._identity import oidc_arguments
from ._server import SandboxServer
from .conftest import postgres_database


@pytest.fixture
def database(backend: str, request: pytest.FixtureRequest) -> str | None:
    if backend == "postgres":
        return postgres_database(request, f"persist_{uuid.uuid4().hex[:12]}")
    return None


@pytest.fixture
def first(database: str | None, jwks_url: str, tmp_path: Path) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path / "first",
        database=database,
        environment="production",
        extra=oidc_arguments(jwks_url),
    )
    running.start()
    yield running
    assert running.stop() == 0


def _client(server: SandboxServer) -> SandboxClient:
    return SandboxClient(server.base_url, server.auth)


def test_a_restart_keeps_state_and_used_request_ids(first: SandboxServer) -> None:
    client = _client(first)
    wallet = Wallet(client, first)
    oauth = wallet.add("OAUTH")
    session, key = wallet.login(oauth)
    passkey = wallet.add("PASSKEY", signer=key)
    other, _ = wallet.login(oauth, compressed=True)
    used, revoked = client.signed_retry("DELETE", f"/auth/sessions/{other['id']}", key=key)
    assert revoked.status_code == 204
    used_stamp = ewc.create_stamp(used["payloadToSign"], key)
    export_path = f"/internal-accounts/{wallet.account_id}/export"
    export_key = ewc.KeyPair.generate()
    export_body = {"clientPublicKey": export_key.public_key_hex()}
    outstanding = client.post(export_path, export_body).json()
    credentials = client.get("/auth/credentials", params={"accountId": wallet.account_id}).json()
    client.close()

    first.restart()
    client = _client(first)
    wallet.client = client
    assert (
        client.get("/customers/internal-accounts", params={"type": "EMBEDDED_WALLET"}).json()[
            "totalCount"
        ]
        >= 1
    )
    assert (
        client.get("/auth/credentials", params={"accountId": wallet.account_id}).json()
        == credentials
    )
    assert [c["id"] for c in credentials["data"]] == [oauth["id"], passkey["id"]]
    sessions = client.get("/auth/sessions", params={"accountId": wallet.account_id}).json()
    assert [s["id"] for s in sessions["data"]] == [session["id"]]
    # No replay after the restart.
    third, _ = wallet.login(passkey)
    replay = client.retry("DELETE", f"/auth/sessions/{third['id']}", None, used, used_stamp)
    assert replay.status_code == 401
    # The session made before the restart still signs; the outstanding challenge still stands.
    stamp = ewc.create_stamp(outstanding["payloadToSign"], key)
    exported = client.retry("POST", export_path, export_body, outstanding, stamp)
    assert exported.status_code == 200, exported.text
    signer = json.loads(exported.json()["encryptedWalletCredentials"])["enclaveQuorumPublic"]
    ewc.open_export_mnemonic(
        exported.json()["encryptedWalletCredentials"], export_key, signer_public_key=signer
    )
    client.close()


@pytest.fixture(params=["database", "redis"])
def pair(
    request: pytest.FixtureRequest, database: str | None, jwks_url: str, tmp_path: Path
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    extra = oidc_arguments(jwks_url)
    if request.param == "redis":
        extra += ["--redis", request.getfixturevalue("redis_server").url]
    one = SandboxServer(tmp_path / "one", database=database, environment="production", extra=extra)
    one.start()
    two = one.start_another()
    yield one, two
    assert two.stop() == 0
    assert one.stop() == 0


def test_two_processes_share_single_use_and_rate_limits(
    pair: tuple[SandboxServer, SandboxServer],
) -> None:
    one, two = pair
    a, b = _client(one), _client(two)
    wallet = Wallet(a, one)
    email = wallet.add("EMAIL_OTP")
    # The code sent by process one is verified by process two; a resend there is rate limited.
    code = wallet.otp()
    resend = b.post(f"/auth/credentials/{email['id']}/challenge")
    assert resend.status_code == 429 and int(resend.headers["Retry-After"]) >= 1
    key = ewc.KeyPair.generate()
    session = b.post(
        f"/auth/credentials/{email['id']}/verify",
        {"type": "EMAIL_OTP", "otp": code, "clientPublicKey": key.public_key_hex()},
    )
    assert session.status_code == 200, session.text
    signing_key = ewc.open_session_key(session.json()["encryptedSessionSigningKey"], key)
    # A request id issued by one, claimed on two, is refused on one.
    path = f"/auth/sessions/{session.json()['id']}"
    challenge = a.request("DELETE", path).json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], signing_key)
    assert b.retry("DELETE", path, None, challenge, stamp).status_code == 204
    replay = a.retry("DELETE", path, None, challenge, stamp)
    assert replay.status_code in (401, 404)  # the session is gone too; the id is used
    wallet2 = Wallet(a, one)
    oauth = wallet2.add("OAUTH")
    s1, k1 = wallet2.login(oauth)
    s2, _ = wallet2.login(oauth)
    challenge = a.request("DELETE", f"/auth/sessions/{s2['id']}").json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], k1)
    assert (
        b.retry("DELETE", f"/auth/sessions/{s2['id']}", None, challenge, stamp).status_code == 204
    )
    again = a.retry("DELETE", f"/auth/sessions/{s1['id']}", None, challenge, stamp)
    assert again.status_code == 401
    a.close()
    b.close()
