"""Sessions: ``GET /auth/sessions`` and ``DELETE /auth/sessions/{id}`` (a signed retry)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.orm import Session

from ...signed_retry import Operation, VerifiedRetry
from .._auth import require_platform
from .._db import get_session
from .._errors import ApiError, error_responses
from .._models import WalletSession
from .._services import Services, get_services
from .._wallet import (
    active_sessions,
    ensure_signer_active,
    find_wallet,
    lock_account,
    session_body,
    signed_step,
)
from .credentials import SessionOut, SignedRequestChallengeOut

__all__ = ["router"]

router = APIRouter(
    tags=["Credentials and sessions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)


class SessionList(BaseModel):
    data: list[SessionOut]


@router.get("/auth/sessions", response_model=SessionList, response_model_exclude_none=True)
def list_sessions(
    session: Annotated[Session, Depends(get_session)],
    services: Annotated[Services, Depends(get_services)],
    accountId: Annotated[str, Query(min_length=1, max_length=200)],
) -> dict[str, Any]:
    """The account's active sessions (never their keys); empty for an unknown account."""
    try:
        account = find_wallet(session, accountId)
    except ApiError:
        return {"data": []}
    rows = active_sessions(session, account.id, services.clock.now())
    return {"data": [session_body(row) for row in rows]}


@router.delete(
    "/auth/sessions/{session_id}",
    status_code=204,
    responses={202: {"model": SignedRequestChallengeOut}},
)
def revoke_session(
    session_id: Annotated[str, Path(max_length=200)],
    request: Request,
    session: Annotated[Session, Depends(get_session)],
    services: Annotated[Services, Depends(get_services)],
) -> Response:
    """Revoke a session by signed retry, signed by an active session of the same account
    (the session itself included). 404 when it is not active."""
    row = session.get(WalletSession, session_id)
    now = services.clock.now()
    if row is None or row.revoked or row.expires_at <= now:
        raise ApiError(404, "NOT_FOUND", "No active session has this id.")
    step = signed_step(
        session,
        services,
        request,
        account_id=row.account_id,
        operation=Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": [row.id], "userId": row.account_id},
        credential_type=row.type,
    )
    if not isinstance(step, VerifiedRetry):
        return JSONResponse(step, status_code=202)
    # Decided again under the account's lock: a concurrent revoke (of this session, of the
    # signing one, or of its credential) may have committed since the retry was verified.
    lock_account(session, row.account_id)
    session.refresh(row)
    if row.revoked:
        raise ApiError(404, "NOT_FOUND", "No active session has this id.")
    ensure_signer_active(session, services, row.account_id, step)
    row.revoked = True
    row.updated_at = now
    session.commit()
    return Response(status_code=204)
