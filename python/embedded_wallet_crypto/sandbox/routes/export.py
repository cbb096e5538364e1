"""Wallet export: ``POST /internal-accounts/{id}/export`` (a signed retry binding the client's
key; the mnemonic sealed to it with ``ewc.seal_export_bundle``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from ...export import seal_export_bundle
from ...keys import KeyPair
from ...signed_retry import Operation, VerifiedRetry
from .._auth import require_platform
from .._db import get_session
from .._errors import error_responses
from .._services import Services, get_services, shared_secret
from .._wallet import UNCOMPRESSED_KEY_PATTERN, find_wallet, signed_step
from .credentials import SignedRequestChallengeOut

__all__ = ["router"]

router = APIRouter(
    tags=["Wallet export"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)


class ExportBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clientPublicKey: Annotated[str, Field(pattern=UNCOMPRESSED_KEY_PATTERN)]


class ExportOut(BaseModel):
    id: str
    encryptedWalletCredentials: str


def export_signer(services: Services) -> KeyPair | None:
    """None in sandbox (the unsigned sandbox envelope); in production, the service's own
    enclave key, made at the first start (its public key is the envelope's
    ``enclaveQuorumPublic``)."""
    if services.sandbox:
        return None
    return KeyPair.from_private_hex(
        shared_secret(
            services.database,
            "export-signer-key",
            lambda: KeyPair.generate().private_key_bytes().hex(),
        )
    )


@router.post(
    "/internal-accounts/{account_id}/export",
    response_model=ExportOut,
    responses={202: {"model": SignedRequestChallengeOut}},
)
def export_wallet(
    account_id: Annotated[str, Path(max_length=200)],
    body: ExportBody,
    request: Request,
    session: Annotated[Session, Depends(get_session)],
    services: Annotated[Services, Depends(get_services)],
) -> Any:
    """Step 1: 202 with the ``clientPublicKey`` bound into ``payloadToSign``. Step 2 (the same
    body, stamped): 200 ``{id, encryptedWalletCredentials}``; 401 if the key was swapped."""
    account = find_wallet(session, account_id)
    step = signed_step(
        session,
        services,
        request,
        account_id=account.id,
        operation=Operation.EXPORT_WALLET,
        parameters={"walletId": account.id},
        client_public_key=body.clientPublicKey,
    )
    if not isinstance(step, VerifiedRetry):
        return JSONResponse(step, status_code=202)
    assert account.wallet_secret is not None
    sealed = seal_export_bundle(
        body.clientPublicKey,
        account.wallet_secret,
        organization_id=services.organization_id,
        signer=export_signer(services),
    )
    return {"id": account.id, "encryptedWalletCredentials": sealed}
