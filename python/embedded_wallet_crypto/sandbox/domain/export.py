"""The wallet export: a signed retry binding the client's key (``EXPORT_WALLET``), then the
wallet's mnemonic sealed to that key with ``ewc.seal_export_bundle``.

Both legs only read the service's tables, one statement each, outside a transaction: the first
the account, the second the account, its secret and its active session keys together. Then the
signed-retry store issues the challenge (one insert) or verifies and claims it (a read and one
conditional update), and the library opens the stored mnemonic (sealed at rest to the service's
key, ``at_rest``: opened only here, after the claim) and seals it to the client's key. A stored
value that does not open (sealed for another account, or with another key) is 500
``INTERNAL_ERROR`` with a reason that says so, logged with the account's id: never the value.

The route runs all of it on the event loop, as a hop to the thread pool and back costs more
than the work: the reads on the loop's own connection
(:meth:`~..db.engine.Database.loop_reads`, which waits for no pool), the store's statements on
the loop thread's own store connection. None of them can wait on the loop itself: a read waits
for no lock, and the store's writes wait at most for another transaction's end, which never
needs the loop (a synchronous route ends its transaction in its own thread, see
``api.routing``). A slow disk or database slows this process's other requests while it lasts."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import and_, bindparam, select

from ...errors import DecryptionError
from ...export import seal_export_bundle
from ...signed_retry import Operation, VerifiedRetry
from ..db.base import UtcDateTime
from ..db.tables_wallet import InternalAccount, WalletSession
from ..services import Services
from .at_rest import open_mnemonic
from .errors import Refusal
from .wallet import RetryHeaders, no_wallet, retry_step, wallet_id

__all__ = ["export_wallet"]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

_TYPE = select(InternalAccount.type).where(InternalAccount.id == bindparam("id"))

#: The account's type and secret with each active session's key and credential (one row with
#: no session when it has none).
_SECRET_AND_KEYS = (
    select(
        InternalAccount.type,
        InternalAccount.wallet_secret,
        WalletSession.public_key,
        WalletSession.auth_method_id,
    )
    .outerjoin(
        WalletSession,
        and_(
            WalletSession.account_id == InternalAccount.id,
            WalletSession.revoked.is_(False),
            WalletSession.expires_at > bindparam("now", type_=UtcDateTime()),
        ),
    )
    .where(InternalAccount.id == bindparam("id"))
    .order_by(WalletSession.created_at)
)


def export_wallet(
    services: Services, account_id: str, client_public_key: str, headers: RetryHeaders
) -> tuple[int, dict[str, Any]]:
    """Step 1: 202 with ``client_public_key`` bound into ``payloadToSign``. Step 2 (the same
    body, stamped): 200 ``{id, encryptedWalletCredentials}``; 401 if the key was swapped."""
    account_id = wallet_id(account_id)
    keys: dict[str, str | None] = {}
    with services.database.loop_reads() as connection:
        if not headers.present:
            kind = connection.execute(_TYPE, {"id": account_id}).scalar()
            secret = None
        else:
            rows = connection.execute(
                _SECRET_AND_KEYS, {"id": account_id, "now": services.clock.now()}
            ).all()
            kind, secret = (rows[0].type, rows[0].wallet_secret) if rows else (None, None)
            keys = {row.public_key: row.auth_method_id for row in rows if row.public_key}
    if kind != "EMBEDDED_WALLET":
        raise no_wallet()
    step = retry_step(
        services,
        headers,
        keys,
        account_id=account_id,
        operation=Operation.EXPORT_WALLET,
        parameters={"walletId": account_id},
        client_public_key=client_public_key,
    )
    if not isinstance(step, VerifiedRetry):
        return 202, step
    assert secret is not None
    try:
        mnemonic = open_mnemonic(services.sealing_key, secret, account_id)
    except DecryptionError:
        logger.warning("the stored mnemonic of %s does not open", account_id)
        raise Refusal(
            500,
            "INTERNAL_ERROR",
            "The wallet's stored secret does not open with this service's key.",
        ) from None
    sealed = seal_export_bundle(
        client_public_key,
        mnemonic,
        organization_id=services.organization_id,
        signer=services.service_signer,
    )
    return 200, {"id": account_id, "encryptedWalletCredentials": sealed}
