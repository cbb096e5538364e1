"""The caps on what clients grow: the service stores nothing past its documented limits.

Each cap counts the rows of one parent (a customer's beneficial owners and cards, a holder's
documents, the platform's API tokens, stablecoin links and stablecoins, a stablecoin's
operations) with that parent's
row locked, in the transaction that inserts the new row, so that of concurrent inserts (in any
process, on any backend) exactly the ones under the cap are stored; the next is refused 409
``COLLECTION_LIMIT_REACHED``. The platform's own collections lock the platform's configuration
row (one per database), which also serializes the customers' contact and UMA address changes.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from ..db.engine import lock
from .errors import Refusal
from .platform_config import load_config

__all__ = [
    "MAX_API_TOKENS",
    "MAX_BENEFICIAL_OWNERS",
    "MAX_CARDS",
    "MAX_DOCUMENTS",
    "MAX_STABLECOINS",
    "MAX_STABLECOIN_LINKS",
    "MAX_STABLECOIN_OPERATIONS",
    "ensure_room",
    "lock_platform",
]

#: API tokens of the platform.
MAX_API_TOKENS: Final = 100
#: Cards of one cardholder (closed ones included: they stay stored).
MAX_CARDS: Final = 50
#: Beneficial owners of one business customer.
MAX_BENEFICIAL_OWNERS: Final = 25
#: Documents of one holder (a customer or a beneficial owner).
MAX_DOCUMENTS: Final = 50
#: Stablecoin provider account links of the platform.
MAX_STABLECOIN_LINKS: Final = 20
#: Registered stablecoins of the platform.
MAX_STABLECOINS: Final = 100
#: Mints and burns of one stablecoin.
MAX_STABLECOIN_OPERATIONS: Final = 10_000


def lock_platform(db: Session) -> None:
    """Lock the platform's configuration row until the transaction ends: what decides among
    concurrent changes of the platform's own collections (and of contacts)."""
    lock(db, load_config(db))


def ensure_room(db: Session, rows: Select[Any], cap: int, what: str) -> None:
    """409 ``COLLECTION_LIMIT_REACHED`` when ``rows`` (a query of the parent's rows, run with
    the parent locked by the caller) already holds ``cap``."""
    held = db.scalar(select(func.count()).select_from(rows.subquery())) or 0
    if held >= cap:
        raise Refusal(409, "COLLECTION_LIMIT_REACHED", f"At most {cap} {what}.")
