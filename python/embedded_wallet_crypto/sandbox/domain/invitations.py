"""UMA invitations: ``POST /invitations`` (the real service's way to create one, from a
customer's UMA address), ``GET /invitations/{code}``, ``POST /invitations/{code}/claim`` (sends
INVITATION.CLAIMED to the platform's webhook endpoint) and ``POST /invitations/{code}/cancel``.

Statuses: PENDING until claimed (CLAIMED) or cancelled (CANCELLED); a PENDING invitation whose
``expiresAt`` has passed is EXPIRED. The amount is display only: the platform sends it itself
after the INVITATION_CLAIMED event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..clock import as_datetime, iso
from ..db.engine import lock
from ..db.tables_agents import Invitation
from ..db.tables_wallet import Customer
from ..ids import random_hex
from ..models.invitations import InvitationClaim, InvitationCreate
from ..services import Services
from .currencies import currency
from .errors import Refusal, invalid, not_found
from .webhooks import emit

__all__ = [
    "INVITATION_STATUSES",
    "cancel_invitation",
    "check_cancel",
    "check_claim",
    "check_uma_address",
    "claim_invitation",
    "create_invitation",
    "get_invitation",
    "invitation_body",
    "invitation_status",
]

# --- the rules ---------------------------------------------------------------------------------

INVITATION_STATUSES: Final = ("PENDING", "CLAIMED", "EXPIRED", "CANCELLED")
_UMA_LOCAL: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-+")


def check_uma_address(value: Any, name: str) -> str:
    """An UMA address ``$user@domain`` (lower-case user part), or a 400 :class:`Refusal`."""
    if not isinstance(value, str) or not value.startswith("$") or value.count("@") != 1:
        raise invalid(f"{name} must be an UMA address such as $alice@example.com.")
    user, domain = value[1:].split("@")
    labels = domain.split(".")
    if (
        not 1 <= len(user) <= 64
        or not set(user) <= _UMA_LOCAL
        or len(labels) < 2
        or not all(label and label.replace("-", "").isalnum() for label in labels)
        or not domain.isascii()
    ):
        raise invalid(f"{name} must be an UMA address such as $alice@example.com.")
    return value


def invitation_status(stored: str, expires_at: datetime | None, now: datetime) -> str:
    """A PENDING invitation whose ``expiresAt`` has passed reads as EXPIRED."""
    if stored == "PENDING" and expires_at is not None and as_datetime(expires_at) <= now:
        return "EXPIRED"
    return stored


def check_claim(status: str, inviter_uma: str, invitee_uma: Any) -> str:
    """The invitee of a claim, or 400 INVITATION_NOT_PENDING / INVALID_INPUT."""
    invitee = check_uma_address(invitee_uma, "inviteeUma")
    if status != "PENDING":
        raise invalid(
            f"The invitation is {status} and cannot be claimed.", "INVITATION_NOT_PENDING"
        )
    if invitee == inviter_uma:
        raise invalid("An invitation cannot be claimed by its inviter.")
    return invitee


def check_cancel(status: str) -> None:
    """400 INVITATION_NOT_PENDING unless the invitation can still be cancelled."""
    if status != "PENDING":
        raise invalid(
            f"The invitation is {status} and cannot be cancelled.", "INVITATION_NOT_PENDING"
        )


# --- the invitations ---------------------------------------------------------------------------


def invitation_body(invitation: Invitation, base_url: str, now: datetime) -> dict[str, Any]:
    """The interface's Invitation (its status as of ``now``)."""
    body: dict[str, Any] = {
        "code": invitation.code,
        "createdAt": iso(invitation.created_at),
        "url": f"{base_url}/invitations/{invitation.code}",
        "inviterUma": invitation.inviter_uma,
        "status": invitation_status(invitation.status, invitation.expires_at, now),
    }
    if invitation.claimed_at is not None:
        body["claimedAt"] = iso(invitation.claimed_at)
    if invitation.expires_at is not None:
        body["expiresAt"] = iso(invitation.expires_at)
    if invitation.invitee_uma is not None:
        body["inviteeUma"] = invitation.invitee_uma
    if invitation.first_name is not None:
        body["firstName"] = invitation.first_name
    if invitation.amount is not None and invitation.currency is not None:
        body["amountToSend"] = {
            "amount": invitation.amount,
            "currency": currency(invitation.currency),
        }
    return body


def _invitation(db: Session, code: str) -> Invitation:
    invitation = db.get(Invitation, code)
    if invitation is None:
        raise not_found("No invitation has this code.", "INVITATION_NOT_FOUND")
    return invitation


def create_invitation(
    db: Session, services: Services, body: InvitationCreate, base_url: str
) -> dict[str, Any]:
    """Create an invitation from a customer, named by its UMA address."""
    inviter = check_uma_address(body.inviterUma, "inviterUma")
    customer = db.scalars(select(Customer).where(Customer.uma_address == inviter)).first()
    if customer is None:
        raise invalid("inviterUma is not the UMA address of a customer.")
    now = services.clock.now()
    expires = as_datetime(body.expiresAt) if body.expiresAt is not None else None
    if expires is not None and expires <= now:
        raise invalid("expiresAt must be in the future.")
    invitation = Invitation(
        code=random_hex(5, "invitation"),
        inviter_uma=inviter,
        first_name=body.firstName,
        amount=body.amountToSend,
        currency=customer.currencies[0] if body.amountToSend is not None else None,
        status="PENDING",
        created_at=now,
        expires_at=expires,
    )
    db.add(invitation)
    return invitation_body(invitation, base_url, now)


def get_invitation(db: Session, services: Services, code: str, base_url: str) -> dict[str, Any]:
    """One invitation (its status as of now)."""
    return invitation_body(_invitation(db, code), base_url, services.clock.now())


def claim_invitation(
    db: Session,
    services: Services,
    platform: str,
    code: str,
    body: InvitationClaim,
    base_url: str,
) -> dict[str, Any]:
    """Claim a PENDING invitation for an invitee UMA address (400 once claimed, expired or
    cancelled); INVITATION.CLAIMED is recorded for the platform's webhook endpoint (sent once
    committed). An invitation found expired is stored EXPIRED (committed) before the claim is
    refused."""
    invitation = _invitation(db, code)
    lock(db, invitation)
    now = services.clock.now()
    status = invitation_status(invitation.status, invitation.expires_at, now)
    try:
        invitee = check_claim(status, invitation.inviter_uma, body.inviteeUma)
    except Refusal:
        if status == "EXPIRED" and invitation.status == "PENDING":
            invitation.status = "EXPIRED"
            db.commit()
        raise
    invitation.status = "CLAIMED"
    invitation.invitee_uma = invitee
    invitation.claimed_at = now
    result = invitation_body(invitation, base_url, now)
    emit(db, "INVITATION.CLAIMED", result)
    return result


def cancel_invitation(db: Session, services: Services, code: str, base_url: str) -> dict[str, Any]:
    """Cancel a PENDING invitation (400 once claimed, expired or cancelled)."""
    invitation = _invitation(db, code)
    lock(db, invitation)
    now = services.clock.now()
    check_cancel(invitation_status(invitation.status, invitation.expires_at, now))
    invitation.status = "CANCELLED"
    return invitation_body(invitation, base_url, now)
