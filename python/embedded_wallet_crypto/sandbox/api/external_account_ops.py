"""An external account's deletion and ownership verification, for a customer's account and
for the platform's own: ``DELETE .../external-accounts/{externalAccountId}``, ``POST
.../challenge`` and ``POST .../verify`` (under ``/customers`` and ``/platform``)."""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Response
from fastapi.responses import JSONResponse

from ..deps import Db, require_platform
from ..domain import external_account_ops as ops
from ..models.common import ErrorOut
from ..models.external_account_ops import (
    OwnershipChallengeCreate,
    OwnershipChallengeOut,
    OwnershipVerify,
)
from ..models.external_accounts import ExternalAccountOut
from .common import PathId, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["External accounts"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

_NOT_APPLICABLE: dict[int | str, dict[str, Any]] = {
    409: {
        "model": ErrorOut,
        "description": "Ownership verification does not apply to this account "
        "(OWNERSHIP_VERIFICATION_NOT_APPLICABLE), or no challenge is outstanding "
        "(NO_OWNERSHIP_CHALLENGE).",
    }
}


def _routes(prefix: str, *, platform: bool) -> None:
    """The three routes of one owner's external accounts."""
    base = f"{prefix}/external-accounts/{{externalAccountId}}"
    who = "the platform's own" if platform else "a customer's"

    def delete_account(externalAccountId: PathId, db: Db) -> Response:
        ops.delete_external_account(db, externalAccountId, platform=platform)
        db.commit()
        return Response(status_code=204)

    def challenge(
        externalAccountId: PathId, body: OwnershipChallengeCreate, db: Db
    ) -> JSONResponse:
        ops.start_ownership_challenge(db, externalAccountId, body, platform=platform)

    def verify(externalAccountId: PathId, body: OwnershipVerify, db: Db) -> JSONResponse:
        ops.verify_ownership(db, externalAccountId, body, platform=platform)

    delete_account.__doc__ = f"Delete {who} external account (204; a later read is 404)."
    challenge.__doc__ = (
        f"Start an ownership challenge on {who} external account: 409 for every account the "
        "sandbox holds (bank accounts only; see the docs)."
    )
    verify.__doc__ = (
        f"Verify ownership of {who} external account: 409, no challenge is ever outstanding."
    )
    kind = "platform" if platform else "customer"
    router.add_api_route(
        base, delete_account, methods=["DELETE"], status_code=204,
        name=f"delete_{kind}_external_account", response_class=Response,
    )  # fmt: skip
    router.add_api_route(
        f"{base}/challenge", challenge, methods=["POST"], status_code=201,
        name=f"challenge_{kind}_external_account", responses=_NOT_APPLICABLE,
        response_model=OwnershipChallengeOut,
    )  # fmt: skip
    router.add_api_route(
        f"{base}/verify", verify, methods=["POST"],
        name=f"verify_{kind}_external_account", responses=_NOT_APPLICABLE,
        response_model=ExternalAccountOut,
    )  # fmt: skip


_routes("/customers", platform=False)
_routes("/platform", platform=True)
