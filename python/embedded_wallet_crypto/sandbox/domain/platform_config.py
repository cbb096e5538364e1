"""The platform configuration (``GET/PATCH /config``): one row per service, made at the first
start (:func:`ensure_config`), and the per-currency limits it sets on quotes and transfers."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..clock import Clock, iso
from ..db.engine import Database
from ..db.tables_payments import PlatformConfig
from ..ids import new_id
from ..models.config import ConfigUpdate
from .errors import invalid
from .payment_tables import MAX_LOCKED_AMOUNT, RATES_PER_USD

__all__ = ["check_amount", "config_body", "ensure_config", "load_config", "update_config"]

_ROW_ID_MARKER = "PlatformConfig"


def default_currencies() -> list[dict[str, Any]]:
    """Every currency of the rate table, 1 to 9000000000000000 smallest units, both ways."""
    return [
        {
            "currencyCode": code,
            "minAmount": 1,
            "maxAmount": MAX_LOCKED_AMOUNT,
            "enabledTransactionTypes": ["OUTGOING", "INCOMING"],
            "requiredCounterpartyFields": [],
            "providerRequiredCustomerFields": [],
            "providerRequiredCounterpartyCustomerFields": [],
        }
        for code in RATES_PER_USD
    ]


def ensure_config(database: Database) -> None:
    """Make the configuration row with the defaults unless one exists (at the start, in a
    transaction of its own, so that no request writes it: a request's first write takes
    SQLite's write lock, which the stores sharing its file must not meet)."""
    with database.sessions() as db:
        load_config(db)
        db.commit()


def load_config(db: Session) -> PlatformConfig:
    """The configuration row (the oldest: two processes starting at once may make two)."""
    row = db.scalars(select(PlatformConfig).order_by(PlatformConfig.created_at).limit(1)).first()
    if row is not None:
        return row
    now = Clock.now()
    row = PlatformConfig(
        id=new_id(_ROW_ID_MARKER),
        uma_domain="sandbox.uma.invalid",
        proxy_uma_subdomain="proxy",
        webhook_endpoint=None,
        supported_currencies=default_currencies(),
        is_regulated=False,
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    db.flush()  # two processes racing make two rows; every reader takes the oldest
    return row


def update_config(db: Session, body: ConfigUpdate) -> dict[str, Any]:
    """Change umaDomain, webhookEndpoint or supportedCurrencies (the others are read-only)."""
    row = load_config(db)
    if body.umaDomain is not None:
        row.uma_domain = body.umaDomain
    if body.webhookEndpoint is not None:
        row.webhook_endpoint = body.webhookEndpoint
    if body.supportedCurrencies is not None:
        codes = [entry.currencyCode for entry in body.supportedCurrencies]
        if len(set(codes)) != len(codes):
            raise invalid("supportedCurrencies names a currency twice.")
        row.supported_currencies = [entry.model_dump() for entry in body.supportedCurrencies]
    row.updated_at = Clock.now()
    return config_body(row)


def config_body(row: PlatformConfig) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": row.id,
        "umaDomain": row.uma_domain,
        "proxyUmaSubdomain": row.proxy_uma_subdomain,
        "supportedCurrencies": row.supported_currencies,
        "isRegulatedFinancialInstitution": row.is_regulated,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    if row.webhook_endpoint:
        body["webhookEndpoint"] = row.webhook_endpoint
    return body


def check_amount(db: Session, code: str, amount: int, direction: str) -> None:
    """Refuse ``amount`` of ``code`` outside the configured limits (400).

    Args:
        direction: OUTGOING or INCOMING (the currency's ``enabledTransactionTypes``).
    """
    entries = {e["currencyCode"]: e for e in load_config(db).supported_currencies}
    entry = entries.get(code)
    if entry is None or direction not in entry.get("enabledTransactionTypes", []):
        raise invalid(
            f"{code} is not a supported currency for {direction.lower()} payments.",
            "UNSUPPORTED_CURRENCY",
        )
    if amount < int(entry["minAmount"]):
        raise invalid(
            f"The {code} amount is below the minimum {entry['minAmount']}.", "AMOUNT_TOO_SMALL"
        )
    if amount > int(entry["maxAmount"]):
        raise invalid(
            f"The {code} amount is above the maximum {entry['maxAmount']}.", "AMOUNT_TOO_LARGE"
        )
