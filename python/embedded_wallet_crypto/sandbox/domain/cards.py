"""Cards: issue, list, read, update, and the reveal through a signed short-lived URL.

The card issuer is simulated in both environments; only the sandbox has the magic values
(the ``002`` suffix below) and the card simulations (``/sandbox/cards/...``: 403 in production).

The rules checked for real: the cardholder's latest verification must be APPROVED (400
``CARDHOLDER_KYC_NOT_APPROVED``); every funding source must be an internal account of the
cardholder, all in one card-eligible currency (:data:`CARD_CURRENCIES`; 400
``FUNDING_SOURCE_INELIGIBLE``); state transitions are ``ACTIVE <-> FROZEN`` and
``ACTIVE | FROZEN -> CLOSED`` only (409 ``INVALID_STATE_TRANSITION``, ``CARD_ALREADY_CLOSED``,
``CARD_NOT_MUTABLE``), each decided by a conditional update on the state it was read in.

Simulated: provisioning. A new card is PROCESSING; the next request that reads it finds it
provisioned: ACTIVE, or (in the sandbox) CLOSED with ``ISSUER_REJECTED`` when its
``platformCardId`` ends in ``002``. Its PAN (a Luhn-valid test number starting 4000), CVV and
expiry are derived from its id; only the reveal page shows them.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from datetime import datetime, timezone
from typing import Any, Final

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ...errors import SignedUrlError
from ...signed_urls import MAX_LIFETIME_SECONDS, sign_url, verify_signed_url
from ..clock import iso
from ..db.engine import lock
from ..db.pages import PageRequest, page
from ..db.tables_agents import Verification
from ..db.tables_cards import Card
from ..db.tables_wallet import Customer, InternalAccount
from ..ids import new_id
from ..models.cards import CardCreate, CardUpdate
from ..services import Services, shared_secret
from .collection_caps import MAX_CARDS, ensure_room
from .errors import Refusal, invalid, not_found
from .live_customers import is_deleted
from .webhooks import emit

__all__ = [
    "CARD_CURRENCIES",
    "REVEAL_PATH",
    "REVEAL_SECONDS",
    "card_body",
    "create_card",
    "find_card",
    "list_cards",
    "load_card",
    "reveal_card",
    "revealed_details",
    "update_card",
]

logger = logging.getLogger("embedded_wallet_crypto.sandbox")

#: The currencies a card can be funded in.
CARD_CURRENCIES: Final = frozenset({"USD", "USDC", "USDB"})
#: How long a reveal URL loads (simulated seconds).
REVEAL_SECONDS: Final = 300
#: Where a reveal URL points, outside the base path (``/card-reveal/{cardId}``).
REVEAL_PATH: Final = "/card-reveal"
_REVEAL_KEY_ID: Final = "reveal-1"
_REJECTED_SUFFIX: Final = "002"


def _detail_key(services: Services) -> bytes:
    """The key a card's simulated number, CVV and expiry month are derived under (made once per
    database), so that they cannot be computed from the card's public id."""
    return bytes.fromhex(
        shared_secret(services.database, "card-detail-key", lambda: secrets.token_hex(32))
    )


def _digits(key: bytes, card_id: str, label: str, count: int) -> str:
    digest = hmac.new(key, f"{label}:{card_id}".encode(), hashlib.sha256).digest()
    return "".join(str(byte % 10) for byte in digest[:count])


def _pan(key: bytes, card_id: str) -> str:
    body = "4000" + _digits(key, card_id, "pan", 11)
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char) * (2 if index % 2 == 0 else 1)
        total += digit - 9 if digit > 9 else digit
    return body + str((10 - total % 10) % 10)


def card_body(row: Card) -> dict[str, Any]:
    return {
        "id": row.id,
        "cardholderId": row.cardholder_id,
        "platformCardId": row.platform_card_id,
        "state": row.state,
        "stateReason": row.state_reason,
        "brand": row.brand,
        "form": row.form,
        "last4": row.last4,
        "expMonth": row.exp_month,
        "expYear": row.exp_year,
        "fundingSources": list(row.funding_sources),
        "maxSpendPerTransaction": row.max_spend,
        "currency": row.currency,
        "processorRef": "sandbox_card_" + row.id.rsplit(":", 1)[-1].replace("-", "")[:16],
        "issuerRef": "sandbox_issuer_" + row.id.rsplit(":", 1)[-1].replace("-", "")[16:],
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def _move_state(db: Session, services: Services, row: Card, state: str, reason: str | None) -> bool:
    """Move the card from the state it was read in (a conditional update); emits
    CARD.STATE_CHANGE. False when another request moved it meanwhile."""
    now = services.clock.now()
    moved = db.execute(
        update(Card)
        .where(Card.id == row.id, Card.state == row.state)
        .values(state=state, state_reason=reason, updated_at=now)
    )
    if getattr(moved, "rowcount", 0) != 1:
        return False
    db.refresh(row)
    emit(db, "CARD.STATE_CHANGE", card_body(row))
    return True


def load_card(db: Session, services: Services, card_id: str) -> Card:
    """The card (404 otherwise), provisioned if it was still PROCESSING."""
    row = db.get(Card, card_id)
    if row is None:
        raise not_found("No card has this id.")
    if row.state == "PROCESSING":
        rejected = services.sandbox and row.platform_card_id.endswith(_REJECTED_SUFFIX)
        state, reason = ("CLOSED", "ISSUER_REJECTED") if rejected else ("ACTIVE", None)
        if not _move_state(db, services, row, state, reason):
            db.refresh(row)
    return row


def _kyc_approved(db: Session, customer_id: str) -> bool:
    latest = db.scalars(
        select(Verification)
        .where(Verification.customer_id == customer_id)
        .order_by(Verification.created_at.desc(), Verification.id.desc())
        .limit(1)
    ).first()
    return latest is not None and latest.status == "APPROVED"


def _sources_currency(db: Session, cardholder_id: str, sources: list[str]) -> str:
    """The one card-eligible currency of ``sources``, all internal accounts of the cardholder;
    400 FUNDING_SOURCE_INELIGIBLE otherwise."""
    if len(set(sources)) != len(sources):
        raise invalid("fundingSources names an account twice.", "FUNDING_SOURCE_INELIGIBLE")
    currencies = set()
    for source in sources:
        account = db.get(InternalAccount, source)
        if account is None or account.customer_id != cardholder_id:
            raise invalid(
                "A funding source is not an internal account of the cardholder.",
                "FUNDING_SOURCE_INELIGIBLE",
            )
        currencies.add(account.currency)
    if len(currencies) != 1 or not currencies <= CARD_CURRENCIES:
        raise invalid(
            "The funding sources must share one card-eligible currency "
            f"({', '.join(sorted(CARD_CURRENCIES))}).",
            "FUNDING_SOURCE_INELIGIBLE",
        )
    return currencies.pop()


def create_card(db: Session, services: Services, platform: str, body: CardCreate) -> dict[str, Any]:
    """Issue a card (PROCESSING until the next read provisions it)."""
    key = _detail_key(services)  # before the request's transaction (made once, in its own)
    if body.threeDSecurePassword is not None:
        raise invalid("This card program's issuer takes no static 3-D Secure password.")
    holder = db.get(Customer, body.cardholderId)
    if holder is None or is_deleted(db, body.cardholderId):
        raise invalid("No customer has this cardholderId.")
    lock(db, holder)  # the cap below is counted with the cardholder's row locked
    ensure_room(db, select(Card.id).where(Card.cardholder_id == holder.id), MAX_CARDS, "cards")
    if not _kyc_approved(db, body.cardholderId):
        raise invalid("The cardholder's KYC status is not APPROVED.", "CARDHOLDER_KYC_NOT_APPROVED")
    card_currency = _sources_currency(db, body.cardholderId, body.fundingSources)
    now = services.clock.now()
    card_id = new_id("Card")
    row = Card(
        id=card_id,
        platform=platform,
        cardholder_id=body.cardholderId,
        platform_card_id=body.platformCardId or "card_" + secrets.token_hex(8),
        state="PROCESSING",
        state_reason=None,
        brand="VISA",
        form=body.form,
        last4=_pan(key, card_id)[-4:],
        exp_month=int(_digits(key, card_id, "month", 2)) % 12 + 1,
        exp_year=now.year + 4,
        currency=card_currency,
        funding_sources=list(body.fundingSources),
        max_spend=body.maxSpendPerTransaction,
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    db.flush()
    return card_body(row)


def find_card(db: Session, services: Services, card_id: str) -> dict[str, Any]:
    return card_body(load_card(db, services, card_id))


def list_cards(
    db: Session, services: Services, request: PageRequest, filters: dict[str, str | None]
) -> dict[str, Any]:
    """Cards, filtered (the filters combine); a card still PROCESSING is listed as it is."""
    query = select(Card)
    if filters.get("cardholderId") is not None:
        query = query.where(Card.cardholder_id == filters["cardholderId"])
    if filters.get("platformCardId") is not None:
        query = query.where(Card.platform_card_id == filters["platformCardId"])
    if filters.get("state") is not None:
        query = query.where(Card.state == filters["state"])
    account = filters.get("accountId")
    if account is not None:  # a JSON list's membership, the same way on every backend
        holders = select(InternalAccount.customer_id).where(InternalAccount.id == account)
        query = query.where(Card.cardholder_id.in_(holders))
        rows = [row.id for row in db.scalars(query) if account in row.funding_sources]
        query = select(Card).where(Card.id.in_(rows))
    return page(db, query, Card, card_body, request)


_MOVES: Final = {
    ("ACTIVE", "FROZEN"),
    ("FROZEN", "ACTIVE"),
    ("ACTIVE", "CLOSED"),
    ("FROZEN", "CLOSED"),
}


def update_card(db: Session, services: Services, card_id: str, body: CardUpdate) -> dict[str, Any]:
    """Change a card's state, funding sources and/or limit (see the module)."""
    given = body.model_fields_set & {"state", "fundingSources", "maxSpendPerTransaction"}
    if not given:
        raise invalid("Give at least one of state, fundingSources, maxSpendPerTransaction.")
    if body.state == "CLOSED" and given - {"state"}:
        raise invalid("state CLOSED cannot be combined with other changes.")
    if "fundingSources" in given and body.fundingSources is None:
        raise invalid("fundingSources must list at least one account.")
    row = load_card(db, services, card_id)
    if row.state == "CLOSED":
        if body.state == "CLOSED":
            raise Refusal(409, "CARD_ALREADY_CLOSED", "The card is closed already.")
        if body.state is not None:
            raise Refusal(409, "INVALID_STATE_TRANSITION", "A closed card stays closed.")
        raise Refusal(409, "CARD_NOT_MUTABLE", "A closed card cannot be changed.")
    if body.state is not None and (row.state, body.state) not in _MOVES:
        raise Refusal(
            409, "INVALID_STATE_TRANSITION", f"A card cannot go from {row.state} to {body.state}."
        )
    changes: dict[str, Any] = {}
    if body.fundingSources is not None:
        if _sources_currency(db, row.cardholder_id, body.fundingSources) != row.currency:
            raise invalid(
                "The funding sources must be in the card's currency.",
                "FUNDING_SOURCE_INELIGIBLE",
            )
        changes["funding_sources"] = list(body.fundingSources)
    if "maxSpendPerTransaction" in given:
        changes["max_spend"] = body.maxSpendPerTransaction
    if body.state is not None:
        changes["state"] = body.state
        changes["state_reason"] = "CLOSED_BY_PLATFORM" if body.state == "CLOSED" else None
        if body.state == "CLOSED":
            changes["funding_sources"] = []  # the bindings are detached
    moved = db.execute(
        update(Card)
        .where(Card.id == row.id, Card.state == row.state, Card.updated_at == row.updated_at)
        .values(**changes, updated_at=services.clock.now())
    )
    if getattr(moved, "rowcount", 0) != 1:
        raise Refusal(409, "CONFLICT", "The card changed meanwhile; read it and retry.")
    db.refresh(row)
    result = card_body(row)
    if body.state is not None:
        emit(db, "CARD.STATE_CHANGE", result)
    if body.fundingSources is not None:
        emit(db, "CARD.FUNDING_SOURCE_CHANGE", result)
    return result


# --- the reveal --------------------------------------------------------------------------------


def _reveal_key(services: Services) -> bytes:
    return bytes.fromhex(
        shared_secret(services.database, "card-reveal-url-key", lambda: secrets.token_hex(32))
    )


def reveal_card(
    db: Session, services: Services, platform: str, card_id: str, base_url: str
) -> dict[str, Any]:
    """A signed URL of the reveal page (``base_url`` + :data:`REVEAL_PATH`), loading for
    :data:`REVEAL_SECONDS`. Audit-logged with the credential, never with the URL."""
    key = _reveal_key(services)  # before the request's transaction (made once, in its own)
    row = load_card(db, services, card_id)
    if row.state == "CLOSED":
        raise Refusal(409, "CARD_NOT_MUTABLE", "A closed card cannot be revealed.")
    now = services.clock.time()
    lifetime = int(min(max(services.clock.seconds(REVEAL_SECONDS), 1), MAX_LIFETIME_SECONDS))
    expires = int(now) + lifetime
    url = sign_url(
        f"{base_url.rstrip('/')}{REVEAL_PATH}/{row.id}",
        key=key,
        expires_at=expires,
        key_id=_REVEAL_KEY_ID,
        now=now,
        max_lifetime_seconds=MAX_LIFETIME_SECONDS,
    )
    logger.info("card reveal: %s by platform credential %s", row.id, platform)
    return {"panEmbedUrl": url, "expiresAt": iso(datetime.fromtimestamp(expires, timezone.utc))}


def revealed_details(db: Session, services: Services, card_id: str, url: str) -> dict[str, str]:
    """The card details behind a reveal URL, once its signature and expiry check (the
    library's ``verify_signed_url``); 401 otherwise (the error never repeats the URL)."""
    try:
        verify_signed_url(
            url, key={_REVEAL_KEY_ID: _reveal_key(services)}, now=services.clock.time()
        )
    except SignedUrlError as error:  # its reason never repeats the URL
        raise Refusal(error.status, error.code, error.reason) from None
    key = _detail_key(services)
    row = db.get(Card, card_id)
    if row is None or row.state == "CLOSED":
        raise not_found("No card has this id.")
    pan = _pan(key, row.id)
    return {
        "pan": " ".join(pan[i : i + 4] for i in range(0, 16, 4)),
        "cvv": _digits(key, row.id, "cvv", 3),
        "expiry": f"{row.exp_month:02d}/{row.exp_year % 100:02d}",
        "last4": row.last4,
    }
