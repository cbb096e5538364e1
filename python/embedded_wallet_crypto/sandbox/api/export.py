"""Wallet export: ``POST /internal-accounts/{id}/export`` (a signed retry binding the client's
key; the mnemonic sealed to it with ``ewc.seal_export_bundle``)."""

from __future__ import annotations

from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from ..deps import require_platform, retry_headers
from ..domain import export
from ..models.wallet import ExportBody, ExportOut
from .common import CHALLENGE_RESPONSE, PathId, error_responses, signed_reply
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Wallet export"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)


@router.post(
    "/internal-accounts/{account_id}/export",
    response_model=ExportOut,
    responses=CHALLENGE_RESPONSE,
)
async def export_wallet(account_id: PathId, body: ExportBody, request: Request) -> JSONResponse:
    """Step 1: 202 with the ``clientPublicKey`` bound into ``payloadToSign``. Step 2 (the same
    body, stamped): 200 ``{id, encryptedWalletCredentials}``; 401 if the key was swapped.

    Runs on the event loop, without a hop to the thread pool (``domain.export`` says why it
    may)."""
    services = request.app.state.services
    signed = retry_headers(request)
    status, sealed = export.export_wallet(services, account_id, body.clientPublicKey, signed)
    return signed_reply(status, sealed, model=ExportOut, exclude_none=False)
