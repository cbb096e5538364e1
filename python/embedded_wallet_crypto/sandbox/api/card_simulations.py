"""The sandbox's card simulations, ``POST /sandbox/cards/{id}/simulate/{event}``: 202 with the
issuer's transaction token (403 in production after the credentials). The outcomes and their
effects on balances are in ``domain.card_simulations``."""

from __future__ import annotations

from fastapi.responses import JSONResponse

from ..deps import SANDBOX_ONLY, Db, Platform, Svc
from ..domain import card_simulations as simulate
from ..models.cards import (
    AdviceRequest,
    AuthorizationRequest,
    BalanceInquiryRequest,
    ClearingRequest,
    ReturnRequest,
    SimulationOut,
    TransactionRefRequest,
)
from .common import PathId, answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Sandbox"],
    dependencies=SANDBOX_ONLY,
    responses={**error_responses(400, 401, 404), 403: {"description": "Production mode."}},
)

_PATH = "/sandbox/cards/{id}/simulate/"


def _accepted(db: Db, body: dict[str, str]) -> JSONResponse:
    return answer(db, body, status=202)


@router.post(_PATH + "authorization", status_code=202, response_model=SimulationOut)
def authorization(
    id: PathId, body: AuthorizationRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """An authorization: approved or declined by the descriptor's suffix and the card."""
    return _accepted(db, simulate.authorize(db, services, id, body, financial=False))


@router.post(_PATH + "financial_authorization", status_code=202, response_model=SimulationOut)
def financial_authorization(
    id: PathId, body: AuthorizationRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """A single-message authorization: settled at once when approved."""
    return _accepted(db, simulate.authorize(db, services, id, body, financial=True))


@router.post(_PATH + "credit_authorization", status_code=202, response_model=SimulationOut)
def credit_authorization(
    id: PathId, body: AuthorizationRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """A credit to the card, posted at once."""
    result = simulate.credit_authorize(db, services, id, body, kind="CREDIT_AUTHORIZATION")
    return _accepted(db, result)


@router.post(_PATH + "credit_authorization_advice", status_code=202, response_model=SimulationOut)
def credit_authorization_advice(
    id: PathId, body: AuthorizationRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """A network-initiated credit advice, posted at once."""
    result = simulate.credit_authorize(db, services, id, body, kind="CREDIT_AUTHORIZATION_ADVICE")
    return _accepted(db, result)


@router.post(
    _PATH + "financial_credit_authorization", status_code=202, response_model=SimulationOut
)
def financial_credit_authorization(
    id: PathId, body: AuthorizationRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """A single-message credit, posted at once."""
    result = simulate.credit_authorize(db, services, id, body, kind="FINANCIAL_CREDIT")
    return _accepted(db, result)


@router.post(_PATH + "balance_inquiry", status_code=202, response_model=SimulationOut)
def balance_inquiry(
    id: PathId, body: BalanceInquiryRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """A zero-amount authorization: moves nothing."""
    del body
    return _accepted(db, simulate.balance_inquiry(db, services, id))


@router.post(_PATH + "authorization_advice", status_code=202, response_model=SimulationOut)
def authorization_advice(
    id: PathId, body: AdviceRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """Re-size an open authorization to a new total."""
    return _accepted(db, simulate.advice(db, services, id, body))


@router.post(_PATH + "clearing", status_code=202, response_model=SimulationOut)
def clearing(id: PathId, body: ClearingRequest, _: Platform, db: Db, services: Svc) -> JSONResponse:
    """Settle an open authorization (0: it expires)."""
    return _accepted(db, simulate.clearing(db, services, id, body))


@router.post(_PATH + "return", status_code=202, response_model=SimulationOut)
def card_return(
    id: PathId, body: ReturnRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """A merchant's return of a settled transaction."""
    return _accepted(db, simulate.returned(db, services, id, body))


@router.post(_PATH + "return_reversal", status_code=202, response_model=SimulationOut)
def return_reversal(
    id: PathId, body: TransactionRefRequest, _: Platform, db: Db, services: Svc
) -> JSONResponse:
    """Reverse the returns of a REFUNDED transaction."""
    return _accepted(db, simulate.return_reversal(db, services, id, body))
