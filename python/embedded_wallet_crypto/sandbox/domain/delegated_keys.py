"""Delegated signing keys: a P-256 key the service makes and holds (``ewc.KeyPair``) for a
card funding source of an embedded wallet, created by three legs, each a signed retry by a
session of the wallet (``ewc.signed_retry``'s delegated-key operations): the first issues the
signer identity's challenge (``CREATE_DELEGATED_KEY``, over the new key's public key), the
second accepts it and issues the policies' challenge (``ACTIVATE_DELEGATED_KEY``), the third
accepts that one and activates the key. The key is stored sealed (``domain.at_rest``).
Revoking it is stamped by the key itself (``REVOKE_DELEGATED_KEY``) and takes effect at once
for every process (the status in the database, changed by a conditional update).

The ``(cardId, internalAccountId)`` pair must name a card funding source on every leg: the card
exists (404 ``NOT_FOUND``), is not CLOSED (409 ``CARD_NOT_MUTABLE``) and lists the account among
its funding sources (404 ``FUNDING_SOURCE_NOT_FOUND``; a card's funding sources are accounts of
its cardholder). The funding source's id is derived from the card and the account (the same
pair gives the same id). The card simulations debit an embedded wallet funding a card only
while its funding source has an ACTIVE key (:func:`has_active_key`)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from ...keys import KeyPair
from ...signed_retry import (
    Operation,
    VerifiedRetry,
    build_payload,
    delegated_key_policies,
    delegated_key_revocation,
    delegated_key_user,
)
from ...stamps import create_stamp, verify_stamp
from ..clock import iso
from ..db.tables_cards import Card
from ..db.tables_delegated import DelegatedKeyRow
from ..ids import new_id
from ..models.delegated_keys import DelegatedKeyCreate
from ..services import CHALLENGE_SECONDS, Services
from .at_rest import open_key, seal_key
from .cards import load_card
from .errors import Refusal, invalid, not_found
from .wallet import RetryHeaders, ensure_signer_active, find_wallet, lock_account, signed_step

__all__ = [
    "MAX_STARTED",
    "create_delegated_key",
    "delegated_key_body",
    "funding_source_id",
    "get_delegated_key",
    "has_active_key",
    "list_delegated_keys",
    "revoke_delegated_key",
]


#: First legs of one account whose challenge is still open (429 ``RATE_LIMITED`` beyond).
MAX_STARTED = 10


def funding_source_id(card_id: str, account_id: str) -> str:
    return f"CardFundingSource:{uuid.uuid5(uuid.NAMESPACE_URL, f'{card_id}|{account_id}')}"


def delegated_key_body(row: DelegatedKeyRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "cardId": row.card_id,
        "fundingSourceId": row.funding_source_id,
        "accountId": row.account_id,
        "publicKey": row.public_key,
        "nickname": row.nickname,
        "status": row.status,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def _bound_card(
    db: Session, services: Services, card_id: str, account_id: str, *, provision: bool
) -> None:
    """Refuse a pair that names no card funding source (see the module). Checked before the
    leg's signed step without writing (a refused leg touches no store), then again after it
    with ``provision``: a card still PROCESSING is provisioned then (a write of the request's
    transaction, which on SQLite must come after the store's own)."""
    card = load_card(db, services, card_id) if provision else db.get(Card, card_id)
    if card is None:
        raise not_found("No card has this id.")
    if card.state == "CLOSED":
        raise Refusal(409, "CARD_NOT_MUTABLE", "A closed card takes no delegated key.")
    if account_id not in card.funding_sources:
        raise not_found(
            "The internal account is not a funding source of the card.",
            "FUNDING_SOURCE_NOT_FOUND",
        )


def _mismatch() -> Refusal:
    return Refusal(
        401, "UNAUTHORIZED", "The Request-Id does not match a pending leg of this request."
    )


def _first_leg(
    db: Session, services: Services, body: DelegatedKeyCreate, account_id: str
) -> tuple[int, dict[str, Any]]:
    now = services.clock.now()
    stale = now - timedelta(seconds=services.clock.seconds(CHALLENGE_SECONDS))
    in_flight = db.scalar(
        select(func.count())
        .select_from(DelegatedKeyRow)
        .where(DelegatedKeyRow.account_id == account_id, DelegatedKeyRow.status == "STARTED")
        .where(DelegatedKeyRow.created_at > stale)
    )
    if (in_flight or 0) >= MAX_STARTED:
        raise Refusal(
            429,
            "RATE_LIMITED",
            f"At most {MAX_STARTED} delegated keys are started at once per account.",
            {"Retry-After": str(max(1, round(services.clock.seconds(CHALLENGE_SECONDS))))},
        )
    key = KeyPair.generate()
    public_key = key.public_key_hex(compressed=True)
    step = signed_step(
        db,
        services,
        RetryHeaders(),
        account_id=account_id,
        operation=Operation.CREATE_DELEGATED_KEY,
        parameters=delegated_key_user(user_name=body.nickname, public_key=public_key),
    )
    assert isinstance(step, dict)
    _bound_card(db, services, body.cardId, account_id, provision=True)
    db.execute(  # first legs never retried (their challenge expired): nothing to keep
        delete(DelegatedKeyRow).where(
            DelegatedKeyRow.account_id == account_id,
            DelegatedKeyRow.status == "STARTED",
            DelegatedKeyRow.created_at <= stale,
        )
    )
    db.add(
        DelegatedKeyRow(
            id=new_id("DelegatedKey"),
            card_id=body.cardId,
            funding_source_id=funding_source_id(body.cardId, account_id),
            account_id=account_id,
            user_id=new_id("User"),
            public_key=public_key,
            private_key=seal_key(services, key),
            nickname=body.nickname,
            status="STARTED",
            request_id=step["requestId"],
            created_at=now,
            updated_at=now,
        )
    )
    return 202, step


def create_delegated_key(
    db: Session, services: Services, body: DelegatedKeyCreate, headers: RetryHeaders
) -> tuple[int, dict[str, Any]]:
    """One leg: 202 and the next challenge, or 201 and the ACTIVE key. 409
    ``DELEGATED_KEY_ALREADY_ACTIVE`` when the funding source has an ACTIVE key (decided under
    the account's lock, in the transaction that activates)."""
    account = find_wallet(db, body.internalAccountId)
    _bound_card(db, services, body.cardId, account.id, provision=False)
    if not headers.present:
        return _first_leg(db, services, body, account.id)
    row = db.scalars(
        select(DelegatedKeyRow).where(
            DelegatedKeyRow.request_id == (headers.request_id or "")[:200]
        )
    ).first()
    if row is None or row.status not in ("STARTED", "PENDING"):
        raise _mismatch()
    if (row.account_id, row.card_id, row.nickname) != (account.id, body.cardId, body.nickname):
        raise _mismatch()
    if row.status == "STARTED":
        operation = Operation.CREATE_DELEGATED_KEY
        parameters = delegated_key_user(user_name=row.nickname, public_key=row.public_key)
    else:
        operation = Operation.ACTIVATE_DELEGATED_KEY
        parameters = delegated_key_policies(
            user_id=row.user_id, wallet_id=account.id, name=row.nickname
        )
    verified = signed_step(
        db, services, headers, account_id=account.id, operation=operation, parameters=parameters
    )
    assert isinstance(verified, VerifiedRetry)
    now = services.clock.now()
    if row.status == "STARTED":
        step = signed_step(
            db,
            services,
            RetryHeaders(),
            account_id=account.id,
            operation=Operation.ACTIVATE_DELEGATED_KEY,
            parameters=delegated_key_policies(
                user_id=row.user_id, wallet_id=account.id, name=row.nickname
            ),
        )
        assert isinstance(step, dict)
        _bound_card(db, services, row.card_id, account.id, provision=True)
        row.status, row.request_id, row.updated_at = "PENDING", step["requestId"], now
        return 202, step
    _bound_card(db, services, row.card_id, account.id, provision=True)
    lock_account(db, account.id)
    ensure_signer_active(db, services, account.id, verified)
    active = db.scalars(
        select(DelegatedKeyRow.id).where(
            DelegatedKeyRow.funding_source_id == row.funding_source_id,
            DelegatedKeyRow.status == "ACTIVE",
        )
    ).first()
    if active is not None:
        raise Refusal(
            409,
            "DELEGATED_KEY_ALREADY_ACTIVE",
            "The card funding source has an ACTIVE delegated key; revoke it first.",
        )
    row.status, row.request_id, row.updated_at = "ACTIVE", None, now
    return 201, delegated_key_body(row)


def _visible(db: Session, key_id: str) -> DelegatedKeyRow:
    row = db.get(DelegatedKeyRow, key_id[:100])
    if row is None or row.status == "STARTED":
        raise not_found("No delegated key has this id.")
    return row


def get_delegated_key(db: Session, key_id: str) -> dict[str, Any]:
    return delegated_key_body(_visible(db, key_id))


def list_delegated_keys(
    db: Session, account_id: str | None, funding_source: str | None
) -> dict[str, Any]:
    """The keys of the account and/or funding source (PENDING, ACTIVE and REVOKED), oldest
    first; at least one filter."""
    if account_id is None and funding_source is None:
        raise invalid("accountId or fundingSourceId is required.")
    query = select(DelegatedKeyRow).where(DelegatedKeyRow.status != "STARTED")
    if account_id is not None:
        query = query.where(DelegatedKeyRow.account_id == account_id)
    if funding_source is not None:
        query = query.where(DelegatedKeyRow.funding_source_id == funding_source)
    rows = db.scalars(query.order_by(DelegatedKeyRow.created_at, DelegatedKeyRow.id))
    return {"data": [delegated_key_body(row) for row in rows]}


def _not_active() -> Refusal:
    return invalid("The delegated key is not ACTIVE.", "DELEGATED_KEY_NOT_ACTIVE")


def revoke_delegated_key(db: Session, services: Services, key_id: str) -> None:
    """Revoke an ACTIVE key: the deletion of its signer identity, stamped by the key itself
    and checked against its public key; then ACTIVE -> REVOKED by a conditional update (of
    concurrent revocations one succeeds, the others are 400 ``DELEGATED_KEY_NOT_ACTIVE``)."""
    row = _visible(db, key_id)
    if row.status != "ACTIVE":
        raise _not_active()
    payload = build_payload(
        Operation.REVOKE_DELEGATED_KEY,
        delegated_key_revocation(user_id=row.user_id),
        organization_id=services.organization_id,
    )
    stamp = create_stamp(payload, open_key(services, row.private_key, row.public_key))
    verify_stamp(stamp, payload, expected_public_key=row.public_key)
    revoked = db.execute(
        update(DelegatedKeyRow)
        .where(DelegatedKeyRow.id == row.id, DelegatedKeyRow.status == "ACTIVE")
        .values(status="REVOKED", updated_at=services.clock.now())
    )
    if getattr(revoked, "rowcount", 0) != 1:
        raise _not_active()


def has_active_key(db: Session, card_id: str, account_id: str) -> bool:
    """Whether the card funding source ``(card_id, account_id)`` has an ACTIVE delegated key
    now (read from the database: a revocation committed by any process is seen at once)."""
    found = db.scalars(
        select(DelegatedKeyRow.id).where(
            DelegatedKeyRow.funding_source_id == funding_source_id(card_id, account_id),
            DelegatedKeyRow.status == "ACTIVE",
        )
    ).first()
    return found is not None
