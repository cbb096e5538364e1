"""The platform configuration (``GET/PATCH /config``): one row per service, made at first use,
and the per-currency limits it sets on quotes and transfers."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ._clock import Clock, iso
from ._errors import ApiError
from ._ids import new_id
from ._models_payments import PlatformConfigRow
from ._payment_tables import MAX_LOCKED_AMOUNT, RATES_PER_USD

__all__ = ["check_amount", "config_body", "load_config"]

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


def load_config(db: Session) -> PlatformConfigRow:
    """The configuration row (created with the defaults by the first caller)."""
    row = db.query(PlatformConfigRow).order_by(PlatformConfigRow.created_at).first()
    if row is not None:
        return row
    now = Clock.now()
    row = PlatformConfigRow(
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


def config_body(row: PlatformConfigRow) -> dict[str, Any]:
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
        raise ApiError(
            400,
            "UNSUPPORTED_CURRENCY",
            f"{code} is not a supported currency for {direction.lower()} payments.",
        )
    if amount < int(entry["minAmount"]):
        raise ApiError(
            400, "AMOUNT_TOO_SMALL", f"The {code} amount is below the minimum {entry['minAmount']}."
        )
    if amount > int(entry["maxAmount"]):
        raise ApiError(
            400, "AMOUNT_TOO_LARGE", f"The {code} amount is above the maximum {entry['maxAmount']}."
        )
