"""Beneficial owners of a business customer (``/beneficial-owners``).

Rules the sandbox decides (the published document is silent): only a ``BUSINESS`` customer has
beneficial owners (400 ``INVALID_INPUT`` for another); the ownership percentages of one
customer's owners add up to at most 100 (400 ``INVALID_INPUT`` past it), decided with the
customer's row locked in the same transaction as the change, so that it holds across requests
and processes. An owner's ``kycStatus`` is decided at once, and again when its ``lastName``
changes, as ``POST /verifications`` decides a person's KYC (``domain.verifications``): the last 3
characters of ``lastName`` ``001`` PENDING, ``002`` REJECTED, else APPROVED; always PENDING in
production.

A customer has at most 25 beneficial owners (409 ``COLLECTION_LIMIT_REACHED``, counted under
the same lock). A deleted customer's owners can be read but not added or changed (404
``USER_NOT_FOUND``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..clock import iso
from ..db.pages import PageRequest, page
from ..db.tables_kyc import BeneficialOwner
from ..db.tables_wallet import Customer
from ..ids import new_id
from ..models.kyc import BeneficialOwnerCreate, BeneficialOwnerUpdate
from ..services import Services
from .collection_caps import MAX_BENEFICIAL_OWNERS, ensure_room
from .errors import Refusal, invalid, not_found
from .live_customers import live_customer
from .verifications import kyc_status

__all__ = [
    "beneficial_owner_body",
    "create_beneficial_owner",
    "find_beneficial_owner",
    "list_beneficial_owners",
    "update_beneficial_owner",
]

MAX_TOTAL_OWNERSHIP = 100


def beneficial_owner_body(row: BeneficialOwner) -> dict[str, Any]:
    """The published BeneficialOwner."""
    return {
        "id": row.id,
        "customerId": row.customer_id,
        "roles": list(row.roles),
        "ownershipPercentage": row.ownership_percentage,
        "personalInfo": dict(row.personal_info),
        "kycStatus": row.kyc_status,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def _business(db: Session, customer_id: str) -> Customer:
    """The live business customer, its row locked until the transaction ends."""
    customer = live_customer(db, customer_id, locked=True)
    if customer.customer_type != "BUSINESS":
        raise invalid("Beneficial owners belong to BUSINESS customers only.")
    return customer


def _check_total(db: Session, customer: Customer, added: int, without: str | None) -> None:
    """With the customer's row locked: the other owners' share plus ``added`` stays <= 100."""
    query = select(func.coalesce(func.sum(BeneficialOwner.ownership_percentage), 0)).where(
        BeneficialOwner.customer_id == customer.id
    )
    if without is not None:
        query = query.where(BeneficialOwner.id != without)
    held = int(db.scalar(query) or 0)
    if held + added > MAX_TOTAL_OWNERSHIP:
        raise invalid(
            f"The customer's beneficial owners would hold {held + added}% (at most "
            f"{MAX_TOTAL_OWNERSHIP}%)."
        )


def create_beneficial_owner(
    db: Session, services: Services, body: BeneficialOwnerCreate
) -> dict[str, Any]:
    customer = _business(db, body.customerId)
    owners = select(BeneficialOwner.id).where(BeneficialOwner.customer_id == customer.id)
    ensure_room(db, owners, MAX_BENEFICIAL_OWNERS, "beneficial owners per customer")
    _check_total(db, customer, body.ownershipPercentage, None)
    now = services.clock.now()
    row = BeneficialOwner(
        id=new_id("BeneficialOwner"),
        customer_id=customer.id,
        roles=[role.value for role in body.roles],
        ownership_percentage=body.ownershipPercentage,
        personal_info=body.personalInfo.model_dump(mode="json", exclude_none=True),
        kyc_status=kyc_status(body.personalInfo.lastName, sandbox=services.sandbox),
        created_at=now,
        updated_at=now,
    )
    db.add(row)
    return beneficial_owner_body(row)


def _missing() -> Refusal:
    return not_found("No beneficial owner has this id.")


def find_beneficial_owner(db: Session, owner_id: str) -> dict[str, Any]:
    row = db.get(BeneficialOwner, owner_id)
    if row is None:
        raise _missing()
    return beneficial_owner_body(row)


def update_beneficial_owner(
    db: Session, services: Services, owner_id: str, body: BeneficialOwnerUpdate
) -> dict[str, Any]:
    """Change the given fields (``personalInfo`` field by field; an ``address`` whole)."""
    row = db.get(BeneficialOwner, owner_id)
    if row is None:
        raise _missing()
    customer = live_customer(db, row.customer_id, locked=True)
    if body.ownershipPercentage is not None:
        _check_total(db, customer, body.ownershipPercentage, row.id)
        row.ownership_percentage = body.ownershipPercentage
    if body.roles is not None:
        row.roles = [role.value for role in body.roles]
    if body.personalInfo is not None:
        given = body.personalInfo.model_dump(mode="json", exclude_none=True)
        row.personal_info = {**row.personal_info, **given}
        if body.personalInfo.lastName is not None:
            row.kyc_status = kyc_status(body.personalInfo.lastName, sandbox=services.sandbox)
    row.updated_at = services.clock.now()
    return beneficial_owner_body(row)


def list_beneficial_owners(db: Session, request: PageRequest, customer_id: str) -> dict[str, Any]:
    """A customer's beneficial owners, oldest first (an unknown customer has none)."""
    query = select(BeneficialOwner).where(BeneficialOwner.customer_id == customer_id)
    return page(db, query, BeneficialOwner, beneficial_owner_body, request)
