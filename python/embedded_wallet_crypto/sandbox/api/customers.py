"""``POST /customers`` and ``GET /customers/internal-accounts``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Paging, Svc, require_platform
from ..domain import customers
from ..models.common import ErrorOut
from ..models.customers import AccountType, CustomerCreate, CustomerOut, InternalAccountList
from .common import answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Customers"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401),
)


@router.post(
    "/customers",
    status_code=201,
    response_model=CustomerOut,
    response_model_exclude_none=True,
    responses={
        409: {
            "model": ErrorOut,
            "description": "CONFLICT: a customer with this platformCustomerId exists already.",
        }
    },
)
def create_customer(body: CustomerCreate, db: Db, services: Svc) -> JSONResponse:
    """Create a customer with an INTERNAL_FIAT (INTERNAL_CRYPTO for a stablecoin or crypto
    currency) account per currency and one EMBEDDED_WALLET. The answer is built before the
    commit, so that nothing can fail once the customer is saved (a client's retry would then
    make a second one)."""
    created = customers.create_customer(db, services, body)
    return answer(db, created, status=201, model=CustomerOut)


@router.get(
    "/customers/internal-accounts",
    response_model=InternalAccountList,
    response_model_exclude_none=True,
)
def list_internal_accounts(
    db: Db,
    paging: Paging,
    currency: Annotated[str | None, Query(max_length=10)] = None,
    customerId: Annotated[str | None, Query(max_length=200)] = None,
    type: Annotated[AccountType | None, Query()] = None,
) -> JSONResponse:
    """The customers' internal accounts, oldest first; filters combine."""
    listed = customers.list_internal_accounts(
        db,
        paging,
        currency_code=currency,
        customer_id=customerId,
        account_type=type.value if type is not None else None,
    )
    return answer(db, listed, model=InternalAccountList)
