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

from ._client import SandboxClient, assert_request_id_used
from ._flows import Wallet
from ._identity import oidc_arguments
from ._pair import race
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
    _, revoked = client.signed_retry("DELETE", f"/auth/sessions/{other['id']}", key=key)
    assert revoked.status_code == 204
    export_path = f"/internal-accounts/{wallet.account_id}/export"
    used_body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    used, exported = client.signed_retry("POST", export_path, used_body, key=key)
    assert exported.status_code == 200, exported.text
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
    # No replay after the restart: the same export, stamped afresh, is refused for its id.
    fresh = ewc.create_stamp(used["payloadToSign"], key)
    assert_request_id_used(client.retry("POST", export_path, used_body, used, fresh))
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
    # A request id issued by one and claimed on two is refused on one: the same export again,
    # stamped afresh.
    path = f"/internal-accounts/{wallet.account_id}/export"
    body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    challenge = a.post(path, body).json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], signing_key)
    assert b.retry("POST", path, body, challenge, stamp).status_code == 200
    fresh = ewc.create_stamp(challenge["payloadToSign"], signing_key)
    assert_request_id_used(a.retry("POST", path, body, challenge, fresh))
    # The same retry on both at the same moment: one is accepted, the other refused for its id.
    for _ in range(5):
        issued = a.post(path, body).json()
        stamps = [ewc.create_stamp(issued["payloadToSign"], signing_key) for _ in (a, b)]
        answers = race(
            [
                lambda c=c, s=s, i=issued: c.retry("POST", path, body, i, s)
                for c, s in zip((a, b), stamps, strict=True)
            ]
        )
        assert sorted(r.status_code for r in answers) == [200, 401], [r.text for r in answers]
        assert_request_id_used(next(r for r in answers if r.status_code == 401))
    a.close()
    b.close()
