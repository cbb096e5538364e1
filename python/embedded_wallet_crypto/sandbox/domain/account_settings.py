"""An internal account's settings (``PATCH /internal-accounts/{id}``): today the embedded
wallet's privacy (``privateEnabled``), changed by a signed retry (``UPDATE_INTERNAL_ACCOUNT``)
whose payload binds the update fields (``ewc.signed_retry.internal_account_update``).

The first call (no signature headers) answers 202 with the challenge; the retry, stamped by an
active session of the account with the same body, answers 200 with the updated account. The
request id is claimed in the signed-retry store (once, across processes); the change is then
made under the account's row lock, after checking again that the signing session is active."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ...signed_retry import Operation, VerifiedRetry, internal_account_update
from ..db.tables_wallet import InternalAccount
from ..services import Services
from .customers import account_body
from .errors import invalid, not_found
from .wallet import RetryHeaders, ensure_signer_active, lock_account, signed_step

__all__ = ["update_internal_account"]


def _find(db: Session, account_id: str) -> InternalAccount:
    """The customer's internal account named ``InternalAccount:<id>`` (or ``EmbeddedWallet:<id>``
    for a wallet); 404 for any other name or an unknown id."""
    kind, _, rest = account_id.partition(":")
    if kind not in ("InternalAccount", "EmbeddedWallet") or not rest:
        raise not_found("No internal account has this id.")
    account = db.get(InternalAccount, f"InternalAccount:{rest}")
    if account is None or (kind == "EmbeddedWallet" and account.type != "EMBEDDED_WALLET"):
        raise not_found("No internal account has this id.")
    return account


def update_internal_account(
    db: Session,
    services: Services,
    account_id: str,
    fields: dict[str, Any],
    headers: RetryHeaders,
) -> tuple[int, dict[str, Any]]:
    """202 and the challenge binding ``fields``; then (the same fields, stamped by an active
    session of the account) 200 and the updated account.

    Raises:
        Refusal: 404 (no such account), 400 ``INVALID_INPUT`` (no update field, or
            ``privateEnabled`` on an account that is not an EMBEDDED_WALLET), 401
            ``UNAUTHORIZED`` (a retry already used, expired, issued for other fields, or not
            stamped by an active session of the account).
    """
    account = _find(db, account_id)
    if not fields:
        raise invalid("Give at least one update field (privateEnabled).")
    if account.type != "EMBEDDED_WALLET":
        raise invalid("privateEnabled applies to EMBEDDED_WALLET internal accounts only.")
    step = signed_step(
        db,
        services,
        headers,
        account_id=account.id,
        operation=Operation.UPDATE_INTERNAL_ACCOUNT,
        parameters=internal_account_update(wallet_id=account.id, fields=fields),
    )
    if not isinstance(step, VerifiedRetry):
        return 202, step
    # Decided under the account's lock: a revoke of the signing session (or its credential)
    # may have committed since the retry was verified.
    account = lock_account(db, account.id)
    ensure_signer_active(db, services, account.id, step)
    if "privateEnabled" in fields:
        account.private_enabled = fields["privateEnabled"]
    account.updated_at = services.clock.now()
    return 200, account_body(account)
