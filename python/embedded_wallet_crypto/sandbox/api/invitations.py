"""UMA invitations: ``POST /invitations`` (the real service's way to create one, from a
customer's UMA address), ``GET /invitations/{code}``, ``POST /invitations/{code}/claim`` (sends
INVITATION.CLAIMED to the platform's webhook endpoint) and ``POST /invitations/{code}/cancel``.
See ``domain.invitations``."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse

from ..deps import Db, Platform, Svc
from ..domain import invitations
from ..models.invitations import InvitationClaim, InvitationCreate, InvitationOut
from ..settings import BASE_PATH
from .common import answer
from .routing import Router

__all__ = ["router"]

router = Router(tags=["Invitations"])


def _base(request: Request) -> str:
    """The service's base URL, as the request reached it (an invitation's ``url``)."""
    return str(request.base_url).rstrip("/") + BASE_PATH


@router.post("/invitations", status_code=201, response_model=InvitationOut)
def create_invitation(
    body: InvitationCreate, request: Request, db: Db, services: Svc, _: Platform
) -> JSONResponse:
    """Create an invitation from a customer, named by its UMA address."""
    created = invitations.create_invitation(db, services, body, _base(request))
    return answer(db, created, status=201)


@router.get("/invitations/{invitationCode}", response_model=InvitationOut)
def get_invitation(
    invitationCode: str, request: Request, db: Db, services: Svc, _: Platform
) -> JSONResponse:
    """One invitation."""
    found = invitations.get_invitation(db, services, invitationCode, _base(request))
    return answer(db, found)


@router.post("/invitations/{invitationCode}/claim", response_model=InvitationOut)
def claim_invitation(
    invitationCode: str,
    body: InvitationClaim,
    request: Request,
    db: Db,
    services: Svc,
    platform: Platform,
) -> JSONResponse:
    """Claim a PENDING invitation for an invitee UMA address (400 once claimed, expired or
    cancelled); the platform gets INVITATION.CLAIMED."""
    claimed = invitations.claim_invitation(
        db, services, platform, invitationCode, body, _base(request)
    )
    return answer(db, claimed)


@router.post("/invitations/{invitationCode}/cancel", response_model=InvitationOut)
def cancel_invitation(
    invitationCode: str, request: Request, db: Db, services: Svc, _: Platform
) -> JSONResponse:
    """Cancel a PENDING invitation (400 once claimed, expired or cancelled)."""
    cancelled = invitations.cancel_invitation(db, services, invitationCode, _base(request))
    return answer(db, cancelled)
