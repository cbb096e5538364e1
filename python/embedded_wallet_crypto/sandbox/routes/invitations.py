"""UMA invitations: ``POST /invitations`` (the real service's way to create one, from a
customer's UMA address), ``GET /invitations/{code}``, ``POST /invitations/{code}/claim`` (sends
INVITATION_CLAIMED to the platform's webhook endpoint) and ``POST /invitations/{code}/cancel``.

Statuses: PENDING until claimed (CLAIMED) or cancelled (CANCELLED); a PENDING invitation whose
``expiresAt`` has passed is EXPIRED. The amount is display only: the platform sends it itself
after the INVITATION_CLAIMED event.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import _agents as rules
from .._auth import require_platform
from .._clock import iso
from .._currencies import currency
from .._db import get_session, lock
from .._errors import ApiError
from .._models import Customer
from .._models_agents import Invitation
from .._services import Services, get_services
from .._webhooks import emit

__all__ = ["invitation_body", "router"]

router = APIRouter(tags=["Invitations"])

Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]
Platform = Annotated[str, Depends(require_platform)]


class InvitationCreate(BaseModel):
    """The real service's UmaInvitationCreateRequest."""

    model_config = ConfigDict(extra="ignore")

    inviterUma: Annotated[str, Field(min_length=3, max_length=300)]
    firstName: Annotated[str, Field(min_length=1, max_length=300)] | None = None
    amountToSend: Annotated[int, Field(strict=True, ge=1, le=rules.MAX_AMOUNT)] | None = None
    expiresAt: datetime | None = None


class InvitationClaim(BaseModel):
    model_config = ConfigDict(extra="ignore")

    inviteeUma: Annotated[str, Field(min_length=3, max_length=300)]


def _refusal(error: rules.Refusal) -> ApiError:
    return ApiError(error.status, error.code, error.reason)


def invitation_body(invitation: Invitation, base_url: str, now: datetime) -> dict[str, Any]:
    """The interface's Invitation (its status as of ``now``)."""
    body: dict[str, Any] = {
        "code": invitation.code,
        "createdAt": iso(invitation.created_at),
        "url": f"{base_url}/invitations/{invitation.code}",
        "inviterUma": invitation.inviter_uma,
        "status": rules.invitation_status(invitation.status, invitation.expires_at, now),
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


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/") + "/2025-10-13"


def _invitation(session: Session, code: str) -> Invitation:
    invitation = session.get(Invitation, code)
    if invitation is None:
        raise ApiError(404, "INVITATION_NOT_FOUND", "No invitation has this code.")
    return invitation


@router.post("/invitations", status_code=201)
def create_invitation(
    body: InvitationCreate, request: Request, session: Db, services: Svc, _: Platform
) -> dict[str, Any]:
    """Create an invitation from a customer, named by its UMA address."""
    try:
        inviter = rules.check_uma_address(body.inviterUma, "inviterUma")
    except rules.Refusal as error:
        raise _refusal(error) from None
    customer = session.scalars(select(Customer).where(Customer.uma_address == inviter)).first()
    if customer is None:
        raise ApiError(400, "INVALID_INPUT", "inviterUma is not the UMA address of a customer.")
    now = services.clock.now()
    expires = rules.as_datetime(body.expiresAt) if body.expiresAt is not None else None
    if expires is not None and expires <= now:
        raise ApiError(400, "INVALID_INPUT", "expiresAt must be in the future.")
    invitation = Invitation(
        code=secrets.token_hex(5),
        inviter_uma=inviter,
        first_name=body.firstName,
        amount=body.amountToSend,
        currency=customer.currencies[0] if body.amountToSend is not None else None,
        status="PENDING",
        created_at=now,
        expires_at=expires,
    )
    session.add(invitation)
    session.commit()  # before the answer leaves
    return invitation_body(invitation, _base(request), now)


@router.get("/invitations/{invitationCode}")
def get_invitation(
    invitationCode: str, request: Request, session: Db, services: Svc, _: Platform
) -> dict[str, Any]:
    """One invitation."""
    invitation = _invitation(session, invitationCode)
    return invitation_body(invitation, _base(request), services.clock.now())


def emit_claimed(session: Session, platform: str, body: dict[str, Any]) -> None:
    """Queue INVITATION_CLAIMED for the platform's webhook endpoint (sent once committed)."""
    emit(session, platform, "INVITATION_CLAIMED", body)


@router.post("/invitations/{invitationCode}/claim")
def claim_invitation(
    invitationCode: str,
    body: InvitationClaim,
    request: Request,
    session: Db,
    services: Svc,
    platform: Platform,
) -> dict[str, Any]:
    """Claim a PENDING invitation for an invitee UMA address (400 once claimed, expired or
    cancelled); the platform gets INVITATION_CLAIMED."""
    invitation = _invitation(session, invitationCode)
    lock(session, invitation)
    now = services.clock.now()
    status = rules.invitation_status(invitation.status, invitation.expires_at, now)
    try:
        invitee = rules.check_claim(status, invitation.inviter_uma, body.inviteeUma)
    except rules.Refusal as error:
        if status == "EXPIRED" and invitation.status == "PENDING":
            invitation.status = "EXPIRED"
            session.commit()
        raise _refusal(error) from None
    invitation.status = "CLAIMED"
    invitation.invitee_uma = invitee
    invitation.claimed_at = now
    result = invitation_body(invitation, _base(request), now)
    emit_claimed(session, platform, result)
    session.commit()
    return result


@router.post("/invitations/{invitationCode}/cancel")
def cancel_invitation(
    invitationCode: str, request: Request, session: Db, services: Svc, _: Platform
) -> dict[str, Any]:
    """Cancel a PENDING invitation (400 once claimed, expired or cancelled)."""
    invitation = _invitation(session, invitationCode)
    lock(session, invitation)
    now = services.clock.now()
    try:
        rules.check_cancel(rules.invitation_status(invitation.status, invitation.expires_at, now))
    except rules.Refusal as error:
        raise _refusal(error) from None
    invitation.status = "CANCELLED"
    session.commit()
    return invitation_body(invitation, _base(request), now)
