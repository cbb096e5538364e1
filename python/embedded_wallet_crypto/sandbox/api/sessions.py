"""Sessions: ``GET /auth/sessions``, ``DELETE /auth/sessions/{id}`` and
``POST /auth/sessions/{id}/refresh`` (signed retries)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Signed, Svc, committed, require_platform
from ..domain import session_refresh, wallet
from ..models.wallet import SessionList, SessionOut, SessionRefreshBody
from .common import CHALLENGE_RESPONSE, PathId, answer, error_responses, signed_answer
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Credentials and sessions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)


@router.get("/auth/sessions", response_model=SessionList, response_model_exclude_none=True)
def list_sessions(
    db: Db, services: Svc, accountId: Annotated[str, Query(min_length=1, max_length=200)]
) -> JSONResponse:
    """The account's active sessions (never their keys); empty for an unknown account."""
    return answer(db, wallet.list_sessions(db, services, accountId), model=SessionList)


@router.delete("/auth/sessions/{session_id}", status_code=204, responses=CHALLENGE_RESPONSE)
def revoke_session(session_id: PathId, signed: Signed, db: Db, services: Svc) -> Response:
    """Revoke a session by signed retry, signed by an active session of the same account
    (the session itself included). 404 when it is not active."""
    challenge = wallet.revoke_session(db, services, session_id, signed)
    if challenge is not None:
        return committed(db, JSONResponse(challenge, status_code=202))
    return committed(db, Response(status_code=204))


@router.post(
    "/auth/sessions/{session_id}/refresh",
    status_code=201,
    response_model=SessionOut,
    response_model_exclude_none=True,
    responses=CHALLENGE_RESPONSE,
)
def refresh_session(
    session_id: PathId, body: SessionRefreshBody, signed: Signed, db: Db, services: Svc
) -> JSONResponse:
    """202 binding ``clientPublicKey``; then the same body stamped by this session's key: 201
    and a new session (``encryptedSessionSigningKey`` for an uncompressed key); the old
    session ends."""
    status, made = session_refresh.refresh_session(
        db, services, session_id, body.clientPublicKey, signed
    )
    return signed_answer(db, status, made, model=SessionOut)
