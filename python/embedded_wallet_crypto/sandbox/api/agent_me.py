"""An agent's own endpoints, ``/agents/me``: its profile, its actions, its quotes and their
execution, its customer's transactions, its same-currency transfers. Each takes the agent's
Bearer access token (``deps.Me``) and is bound to its customer and policy."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from fastapi import Query
from fastapi.responses import JSONResponse

from ..deps import Db, Keyed, Me, Paging, Signed, Svc
from ..domain import quotes, transaction_queries
from ..domain.agents import decisions, registry, submissions
from ..domain.transactions import transaction_body
from ..models.agents import AgentActionList, AgentActionOut, AgentOut
from ..models.common import ErrorOut, SortOrder
from ..models.quotes import QuoteCreate, QuoteOut
from ..models.transactions import TransactionList, TransactionOut
from ..models.transfers import TransferIn, TransferOut
from .common import IDEMPOTENCY_RESPONSES, PathId, Sort, answer, error_responses, idempotent
from .routing import Router
from .transactions import Filters

__all__ = ["router"]

router = Router(tags=["Agents"])

#: The error answers of the agent's transfers (documented in the OpenAPI document).
_TRANSFER_ERRORS: dict[int | str, dict[str, Any]] = {
    **error_responses(400, 401, 404),
    **IDEMPOTENCY_RESPONSES,
    403: {
        "model": ErrorOut,
        "description": "The policy refuses it (permission, account, limit) or the agent is paused.",
    },
}


@router.get("/agents/me", response_model=AgentOut)
def get_me(agent: Me, db: Db, services: Svc) -> JSONResponse:
    """The agent of the access token: its profile, policy and usage."""
    return answer(db, registry.agent_body(db, agent, services.clock.now()))


@router.get("/agents/me/actions", response_model=AgentActionList)
def list_my_actions(
    agent: Me,
    db: Db,
    paging: Paging,
    status: Annotated[
        str | None, Query(pattern="^(PENDING_APPROVAL|APPROVED|REJECTED|FAILED)$")
    ] = None,
) -> JSONResponse:
    """The agent's own actions, newest first."""
    listed = decisions.list_actions(db, agent, paging.ordered("desc"), status=status)
    return answer(db, listed)


@router.get("/agents/me/actions/{actionId}", response_model=AgentActionOut)
def get_my_action(actionId: str, agent: Me, db: Db) -> JSONResponse:
    """One of the agent's actions (404 for another agent's)."""
    return answer(db, decisions.find_own_action(db, agent, actionId))


@router.post(
    "/agents/me/quotes", status_code=201, responses=IDEMPOTENCY_RESPONSES, response_model=QuoteOut
)
def post_my_quote(
    body: QuoteCreate, agent: Me, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Create a quote for the agent's customer (CREATE_QUOTES); the source must be one of the
    customer's accounts."""
    return idempotent(
        db,
        agent.id,
        keyed,
        lambda: (201, submissions.create_own_quote(db, services, agent, body)),
    )


@router.get("/agents/me/quotes/{quoteId}", response_model=QuoteOut)
def get_my_quote(quoteId: PathId, agent: Me, db: Db) -> JSONResponse:
    """A quote this agent created (404 for any other)."""
    return answer(db, quotes.quote_body(submissions.find_own_quote(db, agent, quoteId)))


@router.post(
    "/agents/me/quotes/{quoteId}/execute",
    responses=IDEMPOTENCY_RESPONSES,
    response_model=AgentActionOut,
)
def execute_my_quote(
    quoteId: PathId, signed: Signed, agent: Me, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Submit the execution of the agent's quote (EXECUTE_QUOTES): an AgentAction that is
    APPROVED (executed, transaction populated) or PENDING_APPROVAL, as the policy says."""
    row = submissions.find_own_quote(db, agent, quoteId)
    return idempotent(
        db,
        agent.id,
        keyed,
        lambda: (200, submissions.submit_execution(db, services, agent, row, signed.stamp)),
    )


@router.get("/agents/me/transactions", response_model=TransactionList)
def list_my_transactions(
    agent: Me, db: Db, paging: Paging, filters: Filters, sortOrder: Sort = SortOrder.desc
) -> JSONResponse:
    """The transactions of the agent's customer (no customer filter: the token sets it),
    newest first unless ``sortOrder=asc``; dates are inclusive."""
    filters = replace(filters, customer_id=agent.customer_id)
    listed = transaction_queries.list_transactions(db, filters, paging.ordered(sortOrder.value))
    return answer(db, listed)


@router.get("/agents/me/transactions/{transactionId}", response_model=TransactionOut)
def get_my_transaction(transactionId: PathId, agent: Me, db: Db) -> JSONResponse:
    """One transaction of the agent's customer (404 for another customer's)."""
    found = transaction_queries.find_transaction(db, transactionId, customer_id=agent.customer_id)
    return answer(db, transaction_body(found))


@router.post(
    "/agents/me/transfer-out",
    status_code=201,
    responses=_TRANSFER_ERRORS,
    response_model=AgentActionOut,
)
def post_my_transfer_out(
    body: TransferOut, agent: Me, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Pay from an internal account of the agent's customer to one of its external accounts
    (same currency; CREATE_TRANSFERS): a TRANSFER_OUT AgentAction, APPROVED (executed) or
    PENDING_APPROVAL as the policy says."""
    return idempotent(
        db,
        agent.id,
        keyed,
        lambda: (201, submissions.submit_transfer(db, services, agent, "TRANSFER_OUT", body)),
    )


@router.post(
    "/agents/me/transfer-in",
    status_code=201,
    responses=_TRANSFER_ERRORS,
    response_model=AgentActionOut,
)
def post_my_transfer_in(
    body: TransferIn, agent: Me, db: Db, services: Svc, keyed: Keyed
) -> JSONResponse:
    """Pull from an external account of the agent's customer into one of its internal accounts
    (same currency; CREATE_TRANSFERS): a TRANSFER_IN AgentAction, APPROVED (executed) or
    PENDING_APPROVAL as the policy says."""
    return idempotent(
        db,
        agent.id,
        keyed,
        lambda: (201, submissions.submit_transfer(db, services, agent, "TRANSFER_IN", body)),
    )
