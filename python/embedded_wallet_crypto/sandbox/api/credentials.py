"""Credentials: ``POST/GET /auth/credentials``, ``POST /auth/credentials/{id}/challenge``,
``POST /auth/credentials/{id}/verify`` and ``DELETE /auth/credentials/{id}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Signed, Svc, committed, require_platform
from ..domain import credentials, logins
from ..models.wallet import (
    AuthMethodList,
    AuthMethodWithBundle,
    ChallengeBody,
    CredentialChallengeOut,
    CredentialCreate,
    SessionOut,
    VerifyBody,
)
from .common import CHALLENGE_RESPONSE, PathId, answer, error_responses, signed_answer
from .routing import Router

__all__ = ["router"]

#: The answer of a credential's challenge: a passkey's, or an email code's.
CHALLENGE_MODEL = CredentialChallengeOut

router = Router(
    tags=["Credentials and sessions"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404, 429),
)


@router.post(
    "/auth/credentials",
    status_code=201,
    response_model=AuthMethodWithBundle,
    response_model_exclude_none=True,
    responses=CHALLENGE_RESPONSE,
)
def create_credential(
    body: CredentialCreate, signed: Signed, db: Db, services: Svc
) -> JSONResponse:
    """Create the account's first credential (201), or a further one by signed retry (202,
    then 201). A second credential of the same type is 400."""
    status, created = credentials.create_credential(db, services, body, signed)
    return signed_answer(db, status, created, model=AuthMethodWithBundle)


@router.get("/auth/credentials", response_model=AuthMethodList)
def list_credentials(
    db: Db, accountId: Annotated[str, Query(min_length=1, max_length=200)]
) -> JSONResponse:
    """The account's credentials, unpaginated (empty for an unknown account)."""
    listed = credentials.list_credentials(db, accountId)
    return answer(db, listed, model=AuthMethodList, exclude_none=False)


@router.post(
    "/auth/credentials/{credential_id}/challenge",
    response_model=CHALLENGE_MODEL,
    response_model_exclude_none=True,
)
def challenge_credential(
    credential_id: PathId, db: Db, services: Svc, body: ChallengeBody | None = None
) -> JSONResponse:
    """PASSKEY: a login challenge binding ``clientPublicKey``. EMAIL_OTP: a fresh code by email
    (429 with ``Retry-After`` when asked too often). OAUTH has no challenge."""
    challenged = logins.challenge_credential(db, services, credential_id, body)
    return answer(db, challenged, model=CHALLENGE_MODEL)


@router.post(
    "/auth/credentials/{credential_id}/verify",
    response_model=SessionOut,
    response_model_exclude_none=True,
    responses=CHALLENGE_RESPONSE,
)
def verify_credential(
    credential_id: PathId, body: VerifyBody, signed: Signed, db: Db, services: Svc
) -> JSONResponse:
    """Verify a credential and open a session (``encryptedSessionSigningKey`` for an
    uncompressed ``clientPublicKey``, delivered once)."""
    status, verified = logins.verify_credential(db, services, credential_id, body, signed)
    return signed_answer(db, status, verified, model=SessionOut)


@router.delete("/auth/credentials/{credential_id}", status_code=204, responses=CHALLENGE_RESPONSE)
def delete_credential(credential_id: PathId, signed: Signed, db: Db, services: Svc) -> Response:
    """Revoke a credential by signed retry, signed by a session of a different credential of
    the account; the account keeps at least one credential (400 otherwise). The credential's
    sessions end with it."""
    challenge = credentials.delete_credential(db, services, credential_id, signed)
    if challenge is not None:
        return committed(db, JSONResponse(challenge, status_code=202))
    return committed(db, Response(status_code=204))
