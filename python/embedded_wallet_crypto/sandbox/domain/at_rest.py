"""Secrets at rest: what the service must read back (a TOTP factor's secret, an embedded
wallet's mnemonic, a delegated key's private key) is kept sealed to the service's own P-256 key,
never in the clear.

- a TOTP secret and a wallet's mnemonic: HPKE (``ewc.hpke.seal``: DHKEM(P-256), HKDF-SHA256,
  AES-256-GCM) to the sealing key's public key, with ``info`` :data:`INFO` (a TOTP secret) or
  :data:`MNEMONIC_INFO` (a mnemonic, as UTF-8) and the row's id (the factor's, the account's)
  as the associated data, so that a sealed value copied to another row (or column) does not
  open there; stored as ``hpke1:<hex of enc || ciphertext>``, 2 * (65 + n + 16) + 6
  characters for n bytes (a 12-word mnemonic, at most 107 characters, is at most 382 sealed; a
  24-word one, at most 215, is 598: the column is ``TEXT``, unbounded on both backends);
- a delegated key: ``ewc.seal_session_key`` seals the ``KeyPair`` in the core (its private key
  never becomes Python bytes), ``ewc.open_session_key`` gives the ``KeyPair`` back, checked
  against the row's public key;
- a pending TOTP enrollment keeps only the SHA-256 of its secret (the confirmation carries the
  secret; 20 random bytes are not guessable from their hash).

A mnemonic is opened only where it is used: the export's second leg, after its signed retry is
verified (``domain.export``). Rows written before mnemonics were sealed hold the mnemonic in
the clear: :func:`seal_plain_mnemonics` seals them when the service starts (every start; it
finds nothing once done), each by a conditional update, so that two processes starting on one
database seal each row once and neither fails; and :func:`open_mnemonic` still reads a plain
value (no ``hpke1:`` prefix) as it is, for a row an earlier release's process, still running
beside this one, writes after the start (the next start seals it).

The sealing key is made once per database (``services.shared_secret``, beside the service's
other keys: the OTP hash key, the token signer) and held by each process as a ``KeyPair``. So
the tables that hold the secrets (and their dumps, backups and logs) reveal none of them; a
copy of the whole database, the service's key table included, does (a sandbox keeps its keys in
its database; a deployment would hold the sealing key in a KMS)."""

from __future__ import annotations

import hashlib
import logging
from typing import Final

from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError

from ... import hpke
from ...errors import DecryptionError
from ...keys import KeyPair
from ...session import open_session_key, seal_session_key
from ...totp import TotpSecret
from ..db.engine import Database
from ..db.tables_wallet import InternalAccount
from ..services import Services

__all__ = [
    "INFO",
    "MNEMONIC_INFO",
    "open_key",
    "open_mnemonic",
    "open_totp_secret",
    "seal_key",
    "seal_mnemonic",
    "seal_plain_mnemonics",
    "seal_totp_secret",
    "secret_digest",
]

#: The HPKE ``info`` of the sealed TOTP secrets.
INFO: Final = b"ewc-sandbox secret at rest v1"
#: The HPKE ``info`` of the sealed wallet mnemonics.
MNEMONIC_INFO: Final = b"ewc-sandbox wallet mnemonic at rest v1"
_PREFIX: Final = "hpke1:"
_ENC_BYTES: Final = 65
#: Plain mnemonics :func:`seal_plain_mnemonics` reads and seals per database transaction.
_BATCH: Final = 200

logger = logging.getLogger("embedded_wallet_crypto.sandbox")


def _seal(sealing_key: KeyPair, plaintext: bytes, info: bytes, row_id: str) -> str:
    recipient = sealing_key.public_key_hex(compressed=False)
    enc, ciphertext = hpke.seal(recipient, plaintext, info=info, aad=row_id.encode())
    return _PREFIX + (enc + ciphertext).hex()


def _open(sealing_key: KeyPair, stored: str, info: bytes, row_id: str) -> bytes:
    try:
        sealed = bytes.fromhex(stored.removeprefix(_PREFIX))
    except ValueError:
        raise DecryptionError("the stored value is not sealed hex") from None
    return hpke.open(
        sealing_key, sealed[:_ENC_BYTES], sealed[_ENC_BYTES:], info=info, aad=row_id.encode()
    )


def seal_totp_secret(services: Services, secret: TotpSecret, factor_id: str) -> str:
    """``secret`` sealed for the factor ``factor_id``."""
    return _seal(services.sealing_key, secret.key, INFO, factor_id)


def open_totp_secret(services: Services, stored: str, factor_id: str) -> TotpSecret:
    """The secret of the factor ``factor_id``. Raises ``DecryptionError`` for a value that was
    not sealed for this factor with this database's key."""
    if not stored.startswith(_PREFIX):
        raise DecryptionError("the stored TOTP secret is not sealed")
    return TotpSecret(_open(services.sealing_key, stored, INFO, factor_id))


def seal_mnemonic(sealing_key: KeyPair, mnemonic: str, account_id: str) -> str:
    """``mnemonic`` sealed for the embedded wallet ``account_id`` (``services.sealing_key``:
    the bulk import, which runs in the worker, has the key, not the services)."""
    return _seal(sealing_key, mnemonic.encode(), MNEMONIC_INFO, account_id)


def open_mnemonic(sealing_key: KeyPair, stored: str, account_id: str) -> str:
    """The mnemonic of the embedded wallet ``account_id``: ``stored`` opened, or ``stored``
    itself when it is a plain mnemonic an earlier release wrote (see the module). Raises
    ``DecryptionError`` for a sealed value that was not sealed for this account with this
    database's key (its message names neither the value nor the mnemonic)."""
    if not stored.startswith(_PREFIX):
        return stored
    plain = _open(sealing_key, stored, MNEMONIC_INFO, account_id)
    try:
        return plain.decode()
    except UnicodeDecodeError:  # pragma: no cover - only a text was ever sealed
        raise DecryptionError("the sealed mnemonic is not text") from None


def seal_plain_mnemonics(database: Database, sealing_key: KeyPair) -> int:
    """Seal every wallet mnemonic stored in the clear; the number this process sealed.

    The plain rows are read in batches of :data:`_BATCH` (by id, outside a transaction), and
    each row sealed by a conditional update in a transaction of its own (``WHERE
    wallet_secret`` is still the plain value read): of two processes starting at once, the one
    that comes second to a row (PostgreSQL: it waits for the first's row lock, then re-reads
    the row; SQLite: it waits for the database's write lock, its update reading after the
    first's commit) changes nothing there. A transaction holds one row's lock, so neither the
    other start nor a request that locks several wallets can deadlock with it.

    On SQLite the updates run with ``secure_delete`` (the plain text's old place in the file
    is zeroed; the connection's own setting is put back after) and, when any row was sealed,
    the file is rewritten (``VACUUM``: the space an earlier release freed, which
    ``secure_delete`` does not reach, can hold copies of the plain text) and a truncating
    checkpoint empties the write-ahead log of the old pages (logged when another connection's
    read or write keeps either from completing). PostgreSQL keeps an updated row's old
    version until a vacuum (the autovacuum's, or an operator's ``VACUUM``) reclaims it; its
    write-ahead log, like any backup taken before, keeps what was written then."""
    column = InternalAccount.wallet_secret
    plain = select(InternalAccount.id, column).where(
        column.is_not(None), ~column.startswith(_PREFIX, autoescape=True)
    )
    sealed = 0
    after = ""
    while True:
        with database.reads() as connection:
            rows = connection.execute(
                plain.where(InternalAccount.id > after).order_by(InternalAccount.id).limit(_BATCH)
            ).all()
        if not rows:
            if sealed and database.is_sqlite:
                _rewrite_sqlite(database)
            return sealed
        for account_id, mnemonic in rows:
            assert mnemonic is not None  # the query's
            # One transaction per row: it holds one row lock, so a request that locks two
            # wallets meanwhile (in whatever order) cannot deadlock with the start.
            with database.engine.begin() as connection:
                if database.is_sqlite:  # the plain text's old place in the file is zeroed
                    secure_delete = int(
                        connection.exec_driver_sql("PRAGMA secure_delete").scalar_one()
                    )
                    connection.exec_driver_sql("PRAGMA secure_delete = ON")
                done = connection.execute(
                    update(InternalAccount)
                    .where(InternalAccount.id == account_id, column == mnemonic)
                    .values(wallet_secret=seal_mnemonic(sealing_key, mnemonic, account_id))
                )
                sealed += done.rowcount
                if database.is_sqlite:  # as it was (a build's default may be ON)
                    connection.exec_driver_sql(f"PRAGMA secure_delete = {secure_delete}")
        after = rows[-1].id


def _rewrite_sqlite(database: Database) -> None:
    """The SQLite file rewritten without its free space (``VACUUM``), then its write-ahead log
    emptied (a truncating checkpoint); a warning when either could not complete."""
    try:
        with database.engine.connect() as connection:
            connection.exec_driver_sql("VACUUM")
            busy = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()[0]
    except OperationalError:  # the write lock not had within the lock wait
        busy = 1
    if busy:
        logger.warning(
            "the database file may still hold the wallet mnemonics sealed at this start: "
            "VACUUM it, then PRAGMA wal_checkpoint(TRUNCATE), while no other process uses it"
        )


def seal_key(services: Services, key: KeyPair) -> str:
    """``key`` sealed in the core (base58check)."""
    return seal_session_key(services.sealing_key.public_key_hex(compressed=False), key)


def open_key(services: Services, stored: str, public_key: str) -> KeyPair:
    """The key sealed in ``stored``; ``DecryptionError`` unless its public key is
    ``public_key`` (compressed hex: the row's own)."""
    key = open_session_key(stored, services.sealing_key)
    if key.public_key_hex(compressed=True) != public_key:
        raise DecryptionError("the sealed key is not this row's")
    return key


def secret_digest(secret: TotpSecret) -> str:
    """The SHA-256 (hex) a pending enrollment is found by."""
    return hashlib.sha256(secret.key).hexdigest()
