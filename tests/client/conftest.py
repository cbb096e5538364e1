"""Fixtures of the client tests: ``ewc serve`` as a real process (module scope), in the
``sandbox`` and ``production`` environments, and a client of it in each ``mode``: ``sync``
(``Client``) and ``async`` (``AsyncClient``, driven on its own event loop)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sandbox._identity import jwks_server, oidc_arguments
from sandbox._server import SandboxServer

from ._answers import AnswerLog, AsyncRecorder, SyncRecorder
from ._hostile import Hostile, close_client, hostile_server, open_client
from ._support import SyncView, make_client

#: Lifetimes and delays at 1/20: a code can be re-sent after 1.5 s, a payment settles in
#: 0.1 s, a signed-retry challenge lives 15 s, a session 45 s.
TIME_SCALE = 0.05


@pytest.fixture(scope="session")
def jwks_url() -> Iterator[str]:
    with jwks_server() as url:
        yield url


@pytest.fixture(scope="module", params=["sandbox", "production"])
def environment(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(scope="module")
def server(
    environment: str, jwks_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path_factory.mktemp(f"client-{environment}"),
        environment=environment,
        extra=oidc_arguments(jwks_url),
        time_scale=TIME_SCALE,
    )
    running.start()
    yield running
    assert running.stop() == 0


@pytest.fixture(scope="module")
def signer_key(server: SandboxServer) -> str | None:
    """The key the production service signs export envelopes and OTP target bundles with.

    ``ewc serve`` makes it at its first start and publishes it only inside what it signs, so
    it is pinned here from the first signed bundle (trust on first use, as docs/sandbox.md
    says); the sandbox environment signs nothing."""
    if server.environment == "sandbox":
        return None
    with httpx.Client(base_url=server.base_url, auth=server.auth, timeout=30) as http:
        customer = http.post(
            "/customers", json={"customerType": "INDIVIDUAL", "email": "pin@example.com"}
        ).json()
        wallet = http.get(
            "/customers/internal-accounts",
            params={"customerId": customer["id"], "type": "EMBEDDED_WALLET"},
        ).json()["data"][0]
        created = http.post(
            "/auth/credentials", json={"type": "EMAIL_OTP", "accountId": wallet["id"]}
        ).json()
    key: str = json.loads(created["otpEncryptionTargetBundle"])["enclaveQuorumPublic"]
    return key


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def client_options(server: SandboxServer, signer_key: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "platform_credentials": server.auth,
        "sandbox": server.environment == "sandbox",
        "signer_public_key": signer_key,
        **extra,
    }


@pytest.fixture
def answers(server: SandboxServer) -> AnswerLog:
    """The answers the ``api`` client gets (and the agents' clients made from it)."""
    return AnswerLog(httpx.URL(server.base_url).path)


@pytest.fixture
def api(
    mode: str, server: SandboxServer, signer_key: str | None, answers: AnswerLog
) -> Iterator[Any]:
    """The platform's client of the server, sync or async. Every answer it gets is held to
    its operation's model at the end of the test (``_answers``): both environments, both
    clients, every test that uses it."""
    recorder = SyncRecorder(answers) if mode == "sync" else AsyncRecorder(answers)
    options = client_options(server, signer_key, transport=recorder)
    client = make_client(mode, server.base_url, **options)
    yield client
    client.close()
    if isinstance(client, SyncView):
        client._loop.close()
    assert answers.problems() == [], "answers that are not exactly their operation's model"


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    yield running
    running.close()


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    """A hostile stand-in for the service (``_hostile``), its answers scripted by the test."""
    with hostile_server() as running:
        yield running


@pytest.fixture
def hostile_client(mode: str, hostile: Hostile) -> Iterator[Any]:
    """A client (sync or async) of the ``hostile`` stand-in."""
    opened = open_client(mode, hostile)
    yield opened
    close_client(opened)
