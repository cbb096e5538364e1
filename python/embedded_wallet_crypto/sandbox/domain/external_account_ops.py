"""An external account's deletion and its ownership verification.

A deletion removes the account (a later read is 404; transactions keep its id) and announces
it: ``EXTERNAL_ACCOUNT.STATUS_UPDATED`` with the account as it was, its ``status``
``INACTIVE``. Of concurrent deletions one removes it (204, one event) and the others find
nothing (404, none): the ``DELETE`` statement's row count decides, in the transaction that makes
the change and records the event.

Ownership verification (``/challenge``, ``/verify``) applies only to a first-party self-custody
crypto wallet; the sandbox registers bank accounts only (USD, BRL, AED), so every existing
account answers 409 ``OWNERSHIP_VERIFICATION_NOT_APPLICABLE`` to a challenge and 409
``NO_OWNERSHIP_CHALLENGE`` to a verification, after the body and the account are checked.
"""

from __future__ import annotations

from typing import NoReturn

from sqlalchemy import delete
from sqlalchemy.orm import Session

from ..db.tables_payments import ExternalAccount
from ..models.external_account_ops import OwnershipChallengeCreate, OwnershipVerify
from .errors import Refusal, not_found
from .external_accounts import external_account_body
from .webhooks import emit

__all__ = ["delete_external_account", "start_ownership_challenge", "verify_ownership"]


def _no_account() -> Refusal:
    return not_found("No external account has this id.")


def _owned(
    db: Session, account_id: str, *, platform: bool, customer_id: str | None = None
) -> ExternalAccount:
    """The platform's own account (``platform``) or a customer's (that customer's, when
    ``customer_id`` is given); 404 otherwise."""
    row = db.get(ExternalAccount, account_id)
    if row is None or (row.customer_id is None) != platform:
        raise _no_account()
    if customer_id is not None and row.customer_id != customer_id:
        raise _no_account()
    return row


def delete_external_account(
    db: Session, account_id: str, *, platform: bool, customer_id: str | None = None
) -> None:
    """Remove the account (see the module); 404 when there is none (or it is not the
    caller's, or another deletion removed it first)."""
    row = _owned(db, account_id, platform=platform, customer_id=customer_id)
    removed = db.execute(delete(ExternalAccount).where(ExternalAccount.id == row.id))
    if getattr(removed, "rowcount", 0) != 1:
        raise _no_account()
    emit(
        db, "EXTERNAL_ACCOUNT.STATUS_UPDATED", {**external_account_body(row), "status": "INACTIVE"}
    )
    db.expunge(row)


def start_ownership_challenge(
    db: Session, account_id: str, body: OwnershipChallengeCreate, *, platform: bool
) -> NoReturn:
    """Always refused for an existing account (see the module)."""
    row = _owned(db, account_id, platform=platform)
    raise Refusal(
        409,
        "OWNERSHIP_VERIFICATION_NOT_APPLICABLE",
        f"Ownership verification ({body.method.value}) applies to self-custody crypto wallets; "
        f"this is a {row.account_info.get('accountType', 'bank')} account.",
    )


def verify_ownership(
    db: Session, account_id: str, body: OwnershipVerify, *, platform: bool
) -> NoReturn:
    """Always refused for an existing account: no WALLET_SIGNATURE challenge is outstanding."""
    del body
    _owned(db, account_id, platform=platform)
    raise Refusal(409, "NO_OWNERSHIP_CHALLENGE", "No WALLET_SIGNATURE challenge is outstanding.")
