"""An internal account's settings: ``PATCH /internal-accounts/{id}`` (wallet privacy, a signed
retry binding the update fields)."""

from __future__ import annotations

from fastapi import Depends
from fastapi.responses import JSONResponse

from ..deps import Db, Signed, Svc, require_platform
from ..domain import account_settings
from ..models.customers import InternalAccountOut, InternalAccountUpdate
from .common import CHALLENGE_RESPONSE, PathId, error_responses, signed_answer
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Internal accounts"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)


@router.patch(
    "/internal-accounts/{account_id}",
    response_model=InternalAccountOut,
    response_model_exclude_none=True,
    responses=CHALLENGE_RESPONSE,
)
def update_internal_account(
    account_id: PathId, body: InternalAccountUpdate, signed: Signed, db: Db, services: Svc
) -> JSONResponse:
    """Step 1: 202 with the update fields bound into ``payloadToSign``. Step 2 (the same body,
    stamped by an active session of the account): 200 and the updated account; 401 if the
    fields changed."""
    fields = body.model_dump(exclude_none=True)
    status, made = account_settings.update_internal_account(
        db, services, account_id, fields, signed
    )
    return signed_answer(db, status, made, model=InternalAccountOut)
