"""The start's sealing of plain wallet mnemonics (``at_rest.seal_plain_mnemonics``) on a SQLite
file, whatever SQLite's build makes ``secure_delete`` default to: no copy of a plain mnemonic
survives in the database's files, not even one an earlier release left in the file's free space
(a page split, an update) before the start; and the pooled connections keep their own
``secure_delete`` setting."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.sandbox.db.engine import Database
from embedded_wallet_crypto.sandbox.domain.at_rest import seal_plain_mnemonics
from sqlalchemy import event

_INSERT = (
    "INSERT INTO sandbox_internal_accounts (id, customer_id, type, currency, status, balance,"
    " wallet_secret, created_at, updated_at) VALUES (?, 'c', 'EMBEDDED_WALLET', 'USDC',"
    " 'ACTIVE', 0, ?, '2025-01-01', '2025-01-01')"
)


def _database(path: Path, secure_delete: int) -> Database:
    """The service's database on ``path``, its connections with ``secure_delete`` as a build
    of SQLite that defaults to it has them."""
    database = Database(f"sqlite:///{path}")
    database.create_tables()
    database.engine.dispose()

    def setting(connection: Any, _: Any) -> None:
        connection.execute(f"PRAGMA secure_delete = {secure_delete}")

    event.listen(database.engine, "connect", setting)
    return database


def _plant(path: Path, count: int) -> list[str]:
    """``count`` wallets with a plain mnemonic, written as an earlier release did (rows added
    one by one, without ``secure_delete``, the file checkpointed): their mnemonics."""
    mnemonics = [ewc.mnemonic_from_entropy(os.urandom(16)) for _ in range(count)]
    raw = sqlite3.connect(path)
    try:
        raw.execute("PRAGMA secure_delete = OFF")
        for number, mnemonic in enumerate(mnemonics):
            raw.execute(_INSERT, (f"InternalAccount:{number:05d}", mnemonic))
            raw.commit()
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        raw.close()
    return mnemonics


def _files(path: Path) -> bytes:
    return b"".join(
        found.read_bytes()
        for suffix in ("", "-wal")
        if (found := path.with_name(path.name + suffix)).exists()
    )


def test_no_plain_copy_survives_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sandbox.db"
    database = _database(path, secure_delete=0)
    mnemonics = _plant(path, 400)
    try:
        assert seal_plain_mnemonics(database, ewc.KeyPair.generate()) == len(mnemonics)
    finally:
        database.dispose()
    files = _files(path)
    left = [mnemonic for mnemonic in mnemonics if mnemonic.encode() in files]
    assert not left, f"{len(left)} of {len(mnemonics)} plain mnemonics are still in the file"


@pytest.mark.parametrize("secure_delete", [0, 1])
def test_the_connections_keep_their_secure_delete(tmp_path: Path, secure_delete: int) -> None:
    path = tmp_path / "sandbox.db"
    database = _database(path, secure_delete)
    _plant(path, 3)
    try:
        assert seal_plain_mnemonics(database, ewc.KeyPair.generate()) == 3
        pooled = [database.engine.connect() for _ in range(database.engine.pool.checkedin())]
        try:
            settings = [c.exec_driver_sql("PRAGMA secure_delete").scalar() for c in pooled]
        finally:
            for connection in pooled:
                connection.close()
    finally:
        database.dispose()
    assert pooled and settings == [secure_delete] * len(pooled)
