"""The accounts of an agent's customer, ``/agents/me``: ``GET /agents/me/internal-accounts``
and ``GET /agents/me/external-accounts`` (lists), ``POST /agents/me/external-accounts``,
``GET`` and ``DELETE /agents/me/external-accounts/{externalAccountId}``. The Bearer token sets
the customer; another customer's account is 404. The external accounts need the policy's
MANAGE_EXTERNAL_ACCOUNTS (403 ``POLICY_PERMISSION_DENIED`` without it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Response
from fastapi.responses import JSONResponse

from ..deps import Db, Me, Paging, Svc
from ..domain import customers, external_account_ops, external_accounts
from ..domain.agents.policy import require_permission
from ..domain.errors import invalid, not_found
from ..models.common import ErrorOut
from ..models.customers import AccountType, InternalAccountList
from ..models.external_accounts import (
    ExternalAccountCreate,
    ExternalAccountList,
    ExternalAccountOut,
)
from .common import PathId, answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Agents"],
    responses={
        **error_responses(400, 401, 404),
        403: {"model": ErrorOut, "description": "The policy lacks MANAGE_EXTERNAL_ACCOUNTS."},
    },
)

_Currency = Annotated[str | None, Query(max_length=10)]
_MANAGE = "MANAGE_EXTERNAL_ACCOUNTS"


@router.get(
    "/agents/me/internal-accounts",
    response_model=InternalAccountList,
    response_model_exclude_none=True,
)
def list_my_internal_accounts(
    agent: Me,
    db: Db,
    paging: Paging,
    currency: _Currency = None,
    type: Annotated[AccountType | None, Query()] = None,
) -> JSONResponse:
    """The internal accounts of the agent's customer, oldest first; filters combine."""
    listed = customers.list_internal_accounts(
        db,
        paging,
        currency_code=currency,
        customer_id=agent.customer_id,
        account_type=type.value if type is not None else None,
    )
    return answer(db, listed, model=InternalAccountList)


@router.get("/agents/me/external-accounts", response_model=ExternalAccountList)
def list_my_external_accounts(
    agent: Me, db: Db, paging: Paging, currency: _Currency = None
) -> JSONResponse:
    """The external accounts of the agent's customer, oldest first (MANAGE_EXTERNAL_ACCOUNTS)."""
    require_permission(agent.policy, _MANAGE)
    listed = external_accounts.list_external_accounts(
        db, paging, platform=False, customer_id=agent.customer_id, currency_code=currency
    )
    return answer(db, listed)


@router.post("/agents/me/external-accounts", status_code=201, response_model=ExternalAccountOut)
def create_my_external_account(
    body: ExternalAccountCreate, agent: Me, db: Db, services: Svc
) -> JSONResponse:
    """Register an external account of the agent's customer (MANAGE_EXTERNAL_ACCOUNTS); a
    ``customerId`` given must be that customer's (400 otherwise)."""
    require_permission(agent.policy, _MANAGE)
    if body.customerId is not None and body.customerId != agent.customer_id:
        raise invalid("customerId must be the agent's own customer (or left out).")
    created = external_accounts.create_external_account(db, services, body, agent.customer_id)
    return answer(db, created, status=201)


@router.get("/agents/me/external-accounts/{externalAccountId}", response_model=ExternalAccountOut)
def get_my_external_account(externalAccountId: PathId, agent: Me, db: Db) -> JSONResponse:
    """One external account of the agent's customer (404 for another customer's)."""
    require_permission(agent.policy, _MANAGE)
    found = external_accounts.find_external_account(db, externalAccountId, platform=False)
    if found["customerId"] != agent.customer_id:
        raise not_found("No external account has this id.")
    return answer(db, found)


@router.delete(
    "/agents/me/external-accounts/{externalAccountId}",
    status_code=204,
    response_class=Response,
)
def delete_my_external_account(externalAccountId: PathId, agent: Me, db: Db) -> Response:
    """Delete an external account of the agent's customer (204; 404 for another's)."""
    require_permission(agent.policy, _MANAGE)
    external_account_ops.delete_external_account(
        db, externalAccountId, platform=False, customer_id=agent.customer_id
    )
    db.commit()
    return Response(status_code=204)
