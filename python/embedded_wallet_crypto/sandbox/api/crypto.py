"""``POST /crypto/estimate-withdrawal-fee`` (``domain.withdrawal_fees``) and
``GET /customers/end-user-terms`` (the current terms' version and where they are hosted)."""

from __future__ import annotations

from fastapi import Depends
from fastapi.responses import JSONResponse

from ..deps import Db, require_platform
from ..domain.withdrawal_fees import estimate_fee
from ..models.crypto import EndUserTermsOut, WithdrawalFeeOut, WithdrawalFeeRequest
from .common import answer, error_responses
from .routing import Router

__all__ = ["END_USER_TERMS", "router"]

router = Router(dependencies=[Depends(require_platform)], responses=error_responses(400, 401))

#: The End User Terms the service answers (their version and the page that hosts them).
END_USER_TERMS = {"version": "V1", "url": "https://www.lightspark.com/legal/grid/enduserterms"}


@router.post(
    "/crypto/estimate-withdrawal-fee",
    tags=["Cross-Currency Transfers"],
    response_model=WithdrawalFeeOut,
    responses=error_responses(404),
)
def estimate_withdrawal_fee(body: WithdrawalFeeRequest, db: Db) -> JSONResponse:
    """The network and application fees of a crypto withdrawal, and what arrives."""
    return answer(db, estimate_fee(db, body))


@router.get("/customers/end-user-terms", tags=["Customers"], response_model=EndUserTermsOut)
def end_user_terms() -> EndUserTermsOut:
    """The current End User Terms: their version and URL."""
    return EndUserTermsOut(**END_USER_TERMS)
