"""``ewc serve --seed N``: the same requests from a fresh database give the same ids (resource
ids, request ids) and the same generated keys (the session key, the wallet's mnemonic), on
both backends; another seed gives other ones; without a seed they differ run to run."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._identity import oidc_arguments
from ._pair import clients_of, running_pair
from ._server import _EWC, SandboxServer
from .conftest import database_url


def _run(server: SandboxServer) -> dict[str, Any]:
    """One fixed sequence of requests; every id and generated key it saw."""
    server.start()
    api = SandboxClient(server.base_url, server.auth)
    try:
        wallet = Wallet(api, server)  # a customer and its accounts
        customer = api.get(
            "/customers/internal-accounts", params={"accountId": wallet.account_id}
        ).json()
        credential = wallet.add("OAUTH")
        session, session_key = wallet.login(credential)
        path = f"/internal-accounts/{wallet.account_id}/export"
        client_key = ewc.KeyPair.generate()
        body = {"clientPublicKey": client_key.public_key_hex()}
        challenge, exported = api.signed_retry("POST", path, body, key=session_key)
        assert exported.status_code == 200, exported.text
        envelope = exported.json()["encryptedWalletCredentials"]
        mnemonic = ewc.open_export_mnemonic(envelope, client_key, sandbox=True)
        assert api.post("/sandbox/reset").status_code == 204
        after_reset = api.create_customer()
        return {
            "accounts": sorted(a["id"] for a in customer["data"]),
            "customer": customer["data"][0]["customerId"],
            "credential": credential["id"],
            "session": session["id"],
            "session key": session_key.private_key_bytes().hex(),
            "request id": challenge["requestId"],
            "mnemonic": mnemonic,
            "after reset": after_reset["id"],
            "platform customer id": after_reset["platformCustomerId"],
        }
    finally:
        api.close()
        assert server.stop() == 0


def _server(
    root: Path, seed: int | None, request: pytest.FixtureRequest, backend: str, jwks: str
) -> SandboxServer:
    extra = [*oidc_arguments(jwks), *([] if seed is None else ["--seed", str(seed)])]
    return SandboxServer(root, database=database_url(request, backend, root.name), extra=extra)


def test_the_same_seed_gives_the_same_ids_and_keys(
    backend: str, jwks_url: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    first = _run(_server(tmp_path / "first", 7, request, backend, jwks_url))
    again = _run(_server(tmp_path / "again", 7, request, backend, jwks_url))
    other = _run(_server(tmp_path / "other", 8, request, backend, jwks_url))
    assert first == again
    for name, value in first.items():
        assert other[name] != value, name
    assert len(first["mnemonic"].split()) == 12
    assert first["after reset"] != first["customer"]  # a reset never repeats an id


def test_without_a_seed_ids_and_keys_differ(
    backend: str, jwks_url: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if backend != "sqlite":
        return  # the random source is the same on every backend
    first = _run(_server(tmp_path / "first", None, request, backend, jwks_url))
    again = _run(_server(tmp_path / "again", None, request, backend, jwks_url))
    for name, value in first.items():
        assert again[name] != value, name


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--seed", "1", "--environment", "production"], "sandbox environment only"),
        (["--seed", "-1"], "seed must be a whole number"),
        (["--seed", "x"], "invalid int value"),
    ],
)
def test_a_bad_seed_is_refused(tmp_path: Path, arguments: list[str], message: str) -> None:
    done = subprocess.run(
        [_EWC, "serve", "--port", "0", "--database", f"sqlite:///{tmp_path / 'db'}", *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr


def test_two_processes_number_requests_as_one_does(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The requests are numbered in the database: the same requests, alternating between two
    processes on one fresh database, give the ids one process gives."""
    seeded = ["--seed", "5"]
    single = SandboxServer(
        tmp_path / "single", database=database_url(request, backend, "single"), extra=seeded
    )
    single.start()
    api = SandboxClient(single.base_url, single.auth)
    try:
        alone = [api.create_customer()["id"] for _ in range(6)]
    finally:
        api.close()
        assert single.stop() == 0
    with (
        running_pair(tmp_path / "pair", database_url(request, backend, "pair"), extra=seeded) as (
            one,
            two,
        ),
        clients_of((one, two)) as clients,
    ):
        together = [clients[n % 2].create_customer()["id"] for n in range(6)]
    assert together == alone
