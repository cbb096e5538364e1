"""The wallet export: a signed retry binding the client's key (``EXPORT_WALLET``), then the
wallet's mnemonic sealed to that key with ``ewc.seal_export_bundle``."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ...export import seal_export_bundle
from ...signed_retry import Operation, VerifiedRetry
from ..services import Services
from .wallet import RetryHeaders, find_wallet, signed_step

__all__ = ["export_wallet"]


def export_wallet(
    db: Session, services: Services, account_id: str, client_public_key: str, headers: RetryHeaders
) -> tuple[int, dict[str, Any]]:
    """Step 1: 202 with ``client_public_key`` bound into ``payloadToSign``. Step 2 (the same
    body, stamped): 200 ``{id, encryptedWalletCredentials}``; 401 if the key was swapped."""
    account = find_wallet(db, account_id)
    step = signed_step(
        db,
        services,
        headers,
        account_id=account.id,
        operation=Operation.EXPORT_WALLET,
        parameters={"walletId": account.id},
        client_public_key=client_public_key,
    )
    if not isinstance(step, VerifiedRetry):
        return 202, step
    assert account.wallet_secret is not None
    sealed = seal_export_bundle(
        client_public_key,
        account.wallet_secret,
        organization_id=services.organization_id,
        signer=services.service_signer,
    )
    return 200, {"id": account.id, "encryptedWalletCredentials": sealed}
