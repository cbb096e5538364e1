"""An embedded wallet's mnemonic at rest, on SQLite and PostgreSQL: stored sealed (HPKE to the
service's sealing key, the account's id as associated data, ``hpke1:<hex>``) and opened by the
export alone, so that neither the tables nor the database's files ever hold it; a sealed value
copied to another account's row does not open there (500 that says so, never the secret); a
plain mnemonic an earlier release stored still exports, and the next start seals it (two
processes sealing at once seal each row once); the bulk import seals its wallets too."""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
from embedded_wallet_crypto import hpke
from embedded_wallet_crypto.sandbox.db.engine import Database
from embedded_wallet_crypto.sandbox.domain.at_rest import MNEMONIC_INFO, seal_plain_mnemonics

from ._client import SandboxClient
from ._flows import Wallet
from ._payments import wait_for
from ._server import SandboxServer
from ._stored import everything_stored, store, stored_rows
from .conftest import server_fixture

server = server_fixture("wallet-secret", "wallet_secret")

_ACCOUNT_SECRET = "SELECT wallet_secret FROM sandbox_internal_accounts WHERE id = :a"
_SET_SECRET = "UPDATE sandbox_internal_accounts SET wallet_secret = :s WHERE id = :a"


def _stored(server: SandboxServer, account_id: str) -> str:
    ((value,),) = stored_rows(server.database, _ACCOUNT_SECRET, a=account_id)
    return str(value)


def _plant(server: SandboxServer, account_id: str, value: str) -> None:
    assert store(server.database, _SET_SECRET, s=value, a=account_id) == 1


def _sealing_key(server: SandboxServer) -> ewc.KeyPair:
    ((private,),) = stored_rows(
        server.database,
        "SELECT value FROM sandbox_service_secrets WHERE name = 'at-rest-sealing-key'",
    )
    return ewc.KeyPair.from_private_hex(str(private))


def _unsealed(server: SandboxServer, account_id: str) -> str:
    """The account's stored mnemonic opened as the format says (not by the service's code)."""
    stored = _stored(server, account_id)
    assert stored.startswith("hpke1:"), "the mnemonic is stored in the clear"
    sealed = bytes.fromhex(stored.removeprefix("hpke1:"))
    key = _sealing_key(server)
    opened = hpke.open(key, sealed[:65], sealed[65:], info=MNEMONIC_INFO, aad=account_id.encode())
    return opened.decode()


def _export(wallet: Wallet, key: ewc.KeyPair) -> tuple[httpx.Response, ewc.KeyPair]:
    client_key = ewc.KeyPair.generate()
    path = f"/internal-accounts/{wallet.account_id}/export"
    body = {"clientPublicKey": client_key.public_key_hex()}
    _, exported = wallet.client.signed_retry("POST", path, body, key=key)
    return exported, client_key


def _exported_mnemonic(wallet: Wallet, key: ewc.KeyPair) -> str:
    exported, client_key = _export(wallet, key)
    assert exported.status_code == 200, exported.text
    envelope = exported.json()["encryptedWalletCredentials"]
    return ewc.open_export_mnemonic(envelope, client_key, sandbox=True)


def _refused(wallet: Wallet, key: ewc.KeyPair) -> dict[str, Any]:
    exported, _ = _export(wallet, key)
    assert exported.status_code == 500, exported.text
    body: dict[str, Any] = exported.json()
    return body


def test_a_mnemonic_is_sealed_at_rest_and_the_export_opens_it(
    client: SandboxClient, server: SandboxServer
) -> None:
    wallet = Wallet(client, server)
    _, key = wallet.first_login()
    stored = _stored(server, wallet.account_id)
    mnemonic = _exported_mnemonic(wallet, key)
    assert len(mnemonic.split()) == 12 and ewc.is_valid_mnemonic(mnemonic)
    # The client's bundle holds the stored mnemonic: sealed for this account, opened by it.
    assert _unsealed(server, wallet.account_id) == mnemonic
    assert _stored(server, wallet.account_id) == stored  # an export changes nothing stored
    entropy = ewc.mnemonic_to_entropy(mnemonic).hex()
    everything = everything_stored(server.database)
    for shown in (mnemonic, " ".join(mnemonic.split()[:3]), entropy, mnemonic.encode().hex()):
        assert shown not in everything
        assert shown not in server.log_path.read_text()
    plain = stored_rows(
        server.database,
        "SELECT id FROM sandbox_internal_accounts"
        " WHERE wallet_secret IS NOT NULL AND wallet_secret NOT LIKE 'hpke1:%'",
    )
    assert plain == []


def test_a_sealed_mnemonic_does_not_open_in_another_accounts_row(
    client: SandboxClient, server: SandboxServer
) -> None:
    theirs = Wallet(client, server)
    ours = Wallet(client, server)
    _, key = ours.first_login()
    own = _stored(server, ours.account_id)
    copied = _stored(server, theirs.account_id)
    their_mnemonic = _unsealed(server, theirs.account_id)
    for planted in (copied, "hpke1:" + copied.removeprefix("hpke1:")[:-2], "hpke1:not hex"):
        _plant(server, ours.account_id, planted)
        body = _refused(ours, key)
        assert body == {
            "status": 500,
            "code": "INTERNAL_ERROR",
            "reason": "The wallet's stored secret does not open with this service's key.",
        }
    log = server.log_path.read_text()
    assert f"the stored mnemonic of {ours.account_id} does not open" in log
    for secret in (their_mnemonic, copied, own):
        assert secret not in log
    # Its own sealed value opens again.
    _plant(server, ours.account_id, own)
    assert _exported_mnemonic(ours, key) == _unsealed(server, ours.account_id)


def _plain_wallets(client: SandboxClient, server: SandboxServer, count: int) -> dict[str, str]:
    """``count`` wallets whose rows hold a plain mnemonic, as an earlier release stored it
    (one of 24 words, the longest kind): account id -> mnemonic."""
    planted = {}
    for number in range(count):
        account_id = client.new_wallet()
        words = 24 if number == 0 else 12
        mnemonic = ewc.mnemonic_from_entropy(os.urandom(words * 4 // 3))
        _plant(server, account_id, mnemonic)
        planted[account_id] = mnemonic
    return planted


def test_a_plain_mnemonic_exports_and_the_next_start_seals_it(
    client: SandboxClient, server: SandboxServer
) -> None:
    wallet = Wallet(client, server)
    _, key = wallet.first_login()
    planted = _plain_wallets(client, server, 2)
    earlier = ewc.mnemonic_from_entropy(os.urandom(32))
    _plant(server, wallet.account_id, earlier)
    planted[wallet.account_id] = earlier
    assert _exported_mnemonic(wallet, key) == earlier  # read as it is
    assert _stored(server, wallet.account_id) == earlier  # the export writes nothing
    another = server.start_another(f"restart-{uuid.uuid4().hex[:6]}")
    assert another.stop() == 0
    for account_id, mnemonic in planted.items():
        assert _unsealed(server, account_id) == mnemonic
    # Nor do the database's files keep them (SQLite: zeroed, and out of the write-ahead log).
    everything = everything_stored(server.database)
    assert not any(mnemonic in everything for mnemonic in planted.values())
    assert _exported_mnemonic(wallet, key) == earlier


def test_two_processes_seal_each_plain_row_once(
    client: SandboxClient, server: SandboxServer
) -> None:
    planted = _plain_wallets(client, server, 12)
    key = _sealing_key(server)
    databases = [Database(server.database) for _ in range(2)]
    start = threading.Barrier(2)
    counts: list[int] = []

    def seal(database: Database) -> None:
        start.wait()
        counts.append(seal_plain_mnemonics(database, key))

    threads = [threading.Thread(target=seal, args=(database,)) for database in databases]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)  # a guard against a hang only
    finally:
        for database in databases:
            database.dispose()
    assert len(counts) == 2 and sum(counts) == len(planted), counts
    for account_id, mnemonic in planted.items():
        assert _unsealed(server, account_id) == mnemonic


def test_the_bulk_import_seals_its_wallets(client: SandboxClient, server: SandboxServer) -> None:
    tag = uuid.uuid4().hex[:10]
    csv = (
        "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,"
        "postalCode,country\n"
        f"${tag}@uma.test,{tag},INDIVIDUAL,Ann Lee,1990-01-15,1 Main St,SF,CA,94105,US\n"
    )
    files = {"file": ("c.csv", csv.encode(), "text/csv")}
    accepted = client.http.post("/customers/bulk/csv", files=files)
    assert accepted.status_code == 202, accepted.text
    path = f"/customers/bulk/jobs/{accepted.json()['jobId']}"
    job = wait_for(lambda: dict(client.get(path).json()), lambda job: job["status"] != "PENDING")
    assert job["status"] == "COMPLETED", job
    (customer,) = client.get("/customers", params={"platformCustomerId": tag}).json()["data"]
    account_id = client.wallet_of(customer["id"])
    assert ewc.is_valid_mnemonic(_unsealed(server, account_id))
