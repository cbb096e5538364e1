"""Agents: creation and device codes (platform), redemption to a Bearer access token, the
agent's own endpoints under ``/agents/me`` (bound to its customer and policy), AgentActions and
their approval or rejection by the platform.

How agents and device codes come to exist is not in the interface; the service follows the real
service: ``POST /agents`` (platform) returns the agent and a device code, which the agent
software redeems once at ``POST /agents/device-codes/{code}/redeem`` for its access token.
Device codes live 24 hours and access tokens 30 days, both scaled by ``--time-scale``; only
their SHA-256 hashes are stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from .. import _agents as rules
from .._auth import require_platform
from .._clock import iso
from .._db import get_session, lock
from .._errors import ApiError, ErrorOut, error_responses
from .._idempotency import IDEMPOTENCY_RESPONSES, IdempotencyKey, idempotent
from .._ids import new_id
from .._limits import FreeForm
from .._lists import page as sql_page
from .._models import Customer, InternalAccount
from .._models_agents import Agent, AgentAction, AgentDeviceCode, AgentToken
from .._models_payments import ExternalAccount, QuoteRow, TransactionRow
from .._quotes import (
    QuoteCreate,
    _check_signature,
    _expired,
    create_quote,
    execute_quote,
    quote_body,
)
from .._services import Services, get_services
from .._transactions import transaction_body
from .._transfers import TransferIn, TransferOut, transfer_in, transfer_out
from .._wallet import retry_headers
from .transactions import (
    DateTimeQuery,
    Direction,
    SortOrder,
    Status,
    TransactionFilters,
    order_of,
    transaction_query,
)

__all__ = ["action_body", "require_agent", "router"]

router = APIRouter(tags=["Agents"])

Db = Annotated[Session, Depends(get_session)]
Svc = Annotated[Services, Depends(get_services)]
Platform = Annotated[str, Depends(require_platform)]


# --- bodies ----------------------------------------------------------------------------------


class AgentCreate(BaseModel):
    """The real service's AgentCreateRequest."""

    model_config = ConfigDict(extra="ignore")

    name: Annotated[str, Field(min_length=1, max_length=500)]
    customerId: Annotated[str, Field(min_length=1, max_length=100)]
    #: As sent, bounded (``_limits``) before the policy rules read it.
    policy: FreeForm


class AgentUpdate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    isPaused: Annotated[bool, Field(strict=True)] | None = None


class RejectBody(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reason: Annotated[str, Field(max_length=1000)] | None = None


def _utc(moment: datetime) -> datetime:
    return rules.as_datetime(moment)


def usage(session: Session, agent: Agent, now: datetime) -> dict[str, Any]:
    """The agent's usage today and this month (UTC), from its approved actions."""
    day = now.date()
    month_start = datetime(now.year, now.month, 1, tzinfo=now.tzinfo)
    rows = session.scalars(
        select(AgentAction).where(
            AgentAction.agent_id == agent.id,
            AgentAction.status == "APPROVED",
            AgentAction.created_at >= month_start,
        )
    ).all()
    today = [r for r in rows if _utc(r.created_at).date() == day]
    next_month = (month_start + timedelta(days=32)).replace(day=1)
    return {
        "dailyTransactionCount": len(today),
        "dailySpend": sum(r.spend or 0 for r in today),
        "dailyResetDate": (day + timedelta(days=1)).isoformat(),
        "monthlySpend": sum(r.spend or 0 for r in rows),
        "monthlyResetMonth": next_month.strftime("%Y-%m"),
    }


def agent_body(session: Session, agent: Agent, now: datetime) -> dict[str, Any]:
    """The real service's Agent."""
    return {
        "id": agent.id,
        "name": agent.name,
        "customerId": agent.customer_id,
        "isPaused": agent.is_paused,
        "isConnected": agent.is_connected,
        "policy": agent.policy,
        "usage": usage(session, agent, now),
        "createdAt": iso(agent.created_at),
        "updatedAt": iso(agent.updated_at),
    }


def _device_code(
    session: Session, agent: Agent, services: Services, now: datetime
) -> dict[str, Any]:
    session.execute(
        update(AgentDeviceCode)
        .where(AgentDeviceCode.agent_id == agent.id, AgentDeviceCode.redeemed.is_(False))
        .values(invalidated=True)
    )
    code = rules.new_device_code()
    expires = now + timedelta(
        seconds=services.clock.seconds(rules.DEVICE_CODE_LIFETIME.total_seconds())
    )
    session.add(
        AgentDeviceCode(
            code_hash=rules.token_hash(code),
            agent_id=agent.id,
            expires_at=expires,
            redeemed=False,
            invalidated=False,
            created_at=now,
        )
    )
    return {"code": code, "agentId": agent.id, "expiresAt": iso(expires), "redeemed": False}


def _agent(session: Session, agent_id: str) -> Agent:
    agent = session.get(Agent, agent_id)
    if agent is None:
        raise ApiError(404, "AGENT_NOT_FOUND", "No agent has this id.")
    return agent


_BEARER = {"WWW-Authenticate": 'Bearer realm="ewc-sandbox-agents"'}


def require_agent(request: Request, session: Db, services: Svc) -> Agent:
    """FastAPI dependency of ``/agents/me``: the agent of the Bearer access token."""
    header = request.headers.get("authorization")
    if not header:
        raise ApiError(401, "UNAUTHORIZED", "An agent access token is required (Bearer).", _BEARER)
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(
            401, "UNAUTHORIZED", "Agent endpoints need a Bearer access token.", dict(_BEARER)
        )
    row = session.get(AgentToken, rules.token_hash(token.strip()))
    if row is None or (agent := session.get(Agent, row.agent_id)) is None:
        raise ApiError(401, "UNAUTHORIZED", "Invalid agent access token.", dict(_BEARER))
    if _utc(row.expires_at) <= services.clock.now():
        raise ApiError(401, "UNAUTHORIZED", "The agent access token has expired.", dict(_BEARER))
    return agent


Me = Annotated[Agent, Depends(require_agent)]


def inclusive_end(end: datetime) -> datetime:
    """An inclusive end as given (timestamps are shown to the millisecond): to the end of its
    millisecond, so that an item's own ``createdAt`` still matches it."""
    if end.microsecond % 1000 == 0:
        return end + timedelta(microseconds=999)
    return end


def _refusal(error: rules.Refusal) -> ApiError:
    return ApiError(error.status, error.code, error.reason)


# --- AgentActions ----------------------------------------------------------------------------


def action_body(session: Session, action: AgentAction) -> dict[str, Any]:
    """The interface's AgentAction: the quote as it is now, the transaction once execution began."""
    body: dict[str, Any] = {
        "id": action.id,
        "agentId": action.agent_id,
        "customerId": action.customer_id,
        "platformCustomerId": action.platform_customer_id,
        "status": action.status,
        "type": action.type,
        "createdAt": iso(action.created_at),
        "updatedAt": iso(action.updated_at),
    }
    if action.quote_id is not None:
        quote = session.get(QuoteRow, action.quote_id)
        body["quote"] = quote_body(quote) if quote is not None else action.quote
    if action.transfer_details is not None:
        body["transferDetails"] = dict(action.transfer_details)
    if action.transaction_id is not None:
        tx = session.get(TransactionRow, action.transaction_id)
        body["transaction"] = transaction_body(tx) if tx is not None else action.transaction
    if action.status == "REJECTED" and action.rejection_reason is not None:
        body["rejectionReason"] = action.rejection_reason
    return body


def _action(session: Session, action_id: str, *, agent_id: str | None = None) -> AgentAction:
    action = session.get(AgentAction, action_id)
    if action is None or (agent_id is not None and action.agent_id != agent_id):
        raise ApiError(404, "ACTION_NOT_FOUND", "No action of this agent has this id.")
    return action


def apply(action: AgentAction, outcome: rules.Outcome, now: datetime) -> None:
    """Store what a trigger of the state machine did."""
    action.status = outcome.status
    action.failure_reason = outcome.failure
    if outcome.transaction is not None:
        action.transaction = dict(outcome.transaction)
        tx_id = outcome.transaction.get("id")
        action.transaction_id = tx_id if isinstance(tx_id, str) else None
    action.updated_at = now


# --- platform: agents ------------------------------------------------------------------------


@router.post("/agents", status_code=201)
def create_agent(body: AgentCreate, session: Db, services: Svc, _: Platform) -> dict[str, Any]:
    """Create an agent for a customer with a policy; returns it and a device code."""
    try:
        policy = rules.validate_policy(body.policy)
    except rules.Refusal as error:
        raise _refusal(error) from None
    if session.get(Customer, body.customerId) is None:
        raise ApiError(404, "CUSTOMER_NOT_FOUND", "No customer has this id.")
    now = services.clock.now()
    agent = Agent(
        id=new_id("Agent"),
        customer_id=body.customerId,
        name=body.name,
        is_paused=False,
        is_connected=False,
        policy=policy,
        created_at=now,
        updated_at=now,
    )
    session.add(agent)
    session.flush()
    code = _device_code(session, agent, services, now)
    result = {"agent": agent_body(session, agent, now), "deviceCode": code}
    session.commit()  # before the answer leaves
    return result


@router.get("/agents")
def list_agents(
    session: Db,
    services: Svc,
    _: Platform,
    customerId: Annotated[str | None, Query(max_length=200)] = None,
    isPaused: Annotated[bool, Field(strict=True)] | None = None,
    isConnected: bool | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=300)] = None,
) -> dict[str, Any]:
    """The agents, newest first; filters combine."""
    query = select(Agent)
    if customerId is not None:
        query = query.where(Agent.customer_id == customerId)
    if isPaused is not None:
        query = query.where(Agent.is_paused.is_(isPaused))
    if isConnected is not None:
        query = query.where(Agent.is_connected.is_(isConnected))
    now = services.clock.now()
    items = [agent_body(session, a, now) for a in session.scalars(query).all()]
    try:
        return rules.page(items, limit=limit, cursor=cursor, sort_order="desc")
    except rules.Refusal as error:
        raise _refusal(error) from None


@router.get("/agents/approvals")
def list_approvals(
    session: Db,
    _: Platform,
    agentId: Annotated[str | None, Query(max_length=200)] = None,
    customerId: Annotated[str | None, Query(max_length=200)] = None,
    startDate: Annotated[str | None, Query(max_length=64)] = None,
    endDate: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=300)] = None,
    sortOrder: Annotated[str | None, Query(pattern="^(asc|desc)$")] = None,
) -> dict[str, Any]:
    """The actions waiting for the platform's decision (PENDING_APPROVAL), newest first."""
    try:
        start = rules.parse_datetime(startDate, "startDate")
        end = rules.parse_datetime(endDate, "endDate")
        query = select(AgentAction).where(AgentAction.status == "PENDING_APPROVAL")
        if agentId is not None:
            query = query.where(AgentAction.agent_id == agentId)
        if customerId is not None:
            query = query.where(AgentAction.customer_id == customerId)
        if start is not None:
            query = query.where(AgentAction.created_at >= start)
        if end is not None:
            query = query.where(AgentAction.created_at <= inclusive_end(end))
        items = [action_body(session, a) for a in session.scalars(query).all()]
        return rules.page(
            items, limit=limit, cursor=cursor, sort_order=rules.parse_sort_order(sortOrder)
        )
    except rules.Refusal as error:
        raise _refusal(error) from None


@router.get("/agents/me")
def get_me(agent: Me, session: Db, services: Svc) -> dict[str, Any]:
    """The agent of the access token: its profile, policy and usage."""
    return agent_body(session, agent, services.clock.now())


@router.get("/agents/me/actions")
def list_my_actions(
    agent: Me,
    session: Db,
    status: Annotated[
        str | None, Query(pattern="^(PENDING_APPROVAL|APPROVED|REJECTED|FAILED)$")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=300)] = None,
) -> dict[str, Any]:
    """The agent's own actions, newest first."""
    query = select(AgentAction).where(AgentAction.agent_id == agent.id)
    if status is not None:
        query = query.where(AgentAction.status == status)
    items = [action_body(session, a) for a in session.scalars(query).all()]
    try:
        return rules.page(items, limit=limit, cursor=cursor, sort_order="desc")
    except rules.Refusal as error:
        raise _refusal(error) from None


@router.get("/agents/me/actions/{actionId}")
def get_my_action(actionId: str, agent: Me, session: Db) -> dict[str, Any]:
    """One of the agent's actions (404 for another agent's)."""
    return action_body(session, _action(session, actionId, agent_id=agent.id))


@router.post("/agents/device-codes/{code}/redeem")
def redeem(code: str, session: Db, services: Svc) -> dict[str, Any]:
    """Redeem a device code (no platform credentials: the code is the proof) for the agent's
    Bearer access token, returned this once."""
    row = session.get(AgentDeviceCode, rules.token_hash(code))
    if row is None:
        raise ApiError(404, "DEVICE_CODE_NOT_FOUND", "No device code matches.")
    now = services.clock.now()
    if row.redeemed or row.invalidated:
        raise ApiError(400, "DEVICE_CODE_USED", "The device code was already used or replaced.")
    if _utc(row.expires_at) <= now:
        raise ApiError(400, "DEVICE_CODE_EXPIRED", "The device code has expired.")
    # Single use across processes: only one UPDATE can flip redeemed from false.
    flipped = session.execute(
        update(AgentDeviceCode)
        .where(AgentDeviceCode.code_hash == row.code_hash, AgentDeviceCode.redeemed.is_(False))
        .values(redeemed=True)
    )
    if getattr(flipped, "rowcount", 0) != 1:
        raise ApiError(400, "DEVICE_CODE_USED", "The device code was already used or replaced.")
    agent = _agent(session, row.agent_id)
    agent.is_connected = True
    agent.updated_at = now
    token = rules.new_access_token()
    lifetime = services.clock.seconds(rules.ACCESS_TOKEN_LIFETIME.total_seconds())
    session.add(
        AgentToken(
            token_hash=rules.token_hash(token),
            agent_id=agent.id,
            expires_at=now + timedelta(seconds=lifetime),
            created_at=now,
        )
    )
    session.commit()
    return {
        "agentId": agent.id,
        "agentName": agent.name,
        "accessToken": token,
        "policy": agent.policy,
    }


@router.get("/agents/device-codes/{code}/status")
def device_code_status(code: str, session: Db, _: Platform) -> dict[str, Any]:
    """Whether a device code has been redeemed."""
    row = session.get(AgentDeviceCode, rules.token_hash(code))
    if row is None:
        raise ApiError(404, "DEVICE_CODE_NOT_FOUND", "No device code matches.")
    return {"code": code, "redeemed": row.redeemed}


@router.get("/agents/{agentId}")
def get_agent(agentId: str, session: Db, services: Svc, _: Platform) -> dict[str, Any]:
    """One agent."""
    return agent_body(session, _agent(session, agentId), services.clock.now())


@router.patch("/agents/{agentId}")
def update_agent(
    agentId: str, body: AgentUpdate, session: Db, services: Svc, _: Platform
) -> dict[str, Any]:
    """Rename or pause (resume) an agent; a paused agent cannot submit actions."""
    if body.name is None and body.isPaused is None:
        raise ApiError(400, "INVALID_INPUT", "Give name or isPaused.")
    agent = _agent(session, agentId)
    now = services.clock.now()
    if body.name is not None:
        agent.name = body.name
    if body.isPaused is not None:
        agent.is_paused = body.isPaused
    agent.updated_at = now
    session.commit()
    return agent_body(session, agent, now)


@router.delete("/agents/{agentId}", status_code=204)
def delete_agent(agentId: str, session: Db, _: Platform) -> Response:
    """Delete an agent: its access tokens stop working at once; its actions stay readable."""
    agent = _agent(session, agentId)
    session.execute(delete(AgentToken).where(AgentToken.agent_id == agent.id))
    session.execute(delete(AgentDeviceCode).where(AgentDeviceCode.agent_id == agent.id))
    session.delete(agent)
    session.commit()
    return Response(status_code=204)


@router.patch("/agents/{agentId}/policy")
def update_agent_policy(
    agentId: str,
    session: Db,
    services: Svc,
    _: Platform,
    body: Annotated[FreeForm, Body()],
) -> dict[str, Any]:
    """Partially update an agent's policy; it applies to the next action."""
    agent = _agent(session, agentId)
    try:
        agent.policy = rules.update_policy(agent.policy, body)
    except rules.Refusal as error:
        raise _refusal(error) from None
    now = services.clock.now()
    agent.updated_at = now
    session.commit()
    return agent_body(session, agent, now)


@router.post("/agents/{agentId}/device-codes", status_code=201)
def regenerate_device_code(agentId: str, session: Db, services: Svc, _: Platform) -> dict[str, Any]:
    """A new device code (earlier unredeemed ones stop working); 409 once connected."""
    agent = _agent(session, agentId)
    if agent.is_connected:
        raise ApiError(409, "AGENT_CONNECTED", "The agent is already connected.")
    code = _device_code(session, agent, services, services.clock.now())
    session.commit()
    return code


def _decide(agentId: str, actionId: str, session: Db) -> AgentAction:
    _agent_exists = session.get(Agent, agentId) is not None
    action = session.get(AgentAction, actionId)
    if action is None or action.agent_id != agentId:
        code = "ACTION_NOT_FOUND" if _agent_exists else "AGENT_NOT_FOUND"
        raise ApiError(404, code, "No such action of this agent.")
    # One decision at a time: the row is locked for the rest of the request.
    lock(session, action)
    return action


@router.post("/agents/{agentId}/actions/{actionId}/approve")
def approve_action(
    agentId: str, actionId: str, session: Db, services: Svc, _: Platform
) -> dict[str, Any]:
    """Approve a PENDING_APPROVAL action: it runs (APPROVED), or is FAILED when its quote
    expired meanwhile or its execution fails. Platform credentials only."""
    action = _decide(agentId, actionId, session)
    try:
        if action.status != "PENDING_APPROVAL":
            rules.transition(action.status, "approve")
        work = _quote_work(session, services, action)
        outcome = rules.approve(action.status, work)
    except rules.Refusal as error:
        raise _refusal(error) from None
    apply(action, outcome, services.clock.now())
    session.commit()
    return action_body(session, action)


@router.post("/agents/{agentId}/actions/{actionId}/reject")
def reject_action(
    agentId: str,
    actionId: str,
    session: Db,
    services: Svc,
    _: Platform,
    body: Annotated[RejectBody | None, Body()] = None,
) -> dict[str, Any]:
    """Reject a PENDING_APPROVAL action (nothing runs). Platform credentials only."""
    action = _decide(agentId, actionId, session)
    try:
        outcome = rules.reject(action.status)
    except rules.Refusal as error:
        raise _refusal(error) from None
    apply(action, outcome, services.clock.now())
    action.rejection_reason = (body.reason if body else None) or "Rejected by the platform."
    session.commit()
    return action_body(session, action)


def customer_of(session: Session, agent: Agent) -> Customer:
    """The agent's customer (the scope of everything under ``/agents/me``)."""
    customer = session.get(Customer, agent.customer_id)
    if customer is None:
        raise ApiError(404, "CUSTOMER_NOT_FOUND", "The agent's customer no longer exists.")
    return customer


def check_active(agent: Agent) -> None:
    """403 AGENT_PAUSED for a paused agent."""
    if agent.is_paused:
        raise ApiError(403, "AGENT_PAUSED", "The agent is paused and cannot submit actions.")


def check_budget(session: Session, agent: Agent, spend: int, now: datetime) -> None:
    """403 POLICY_LIMIT_EXCEEDED when the daily or monthly limits would be passed.

    Locks the agent's row first (held until the new action is committed), so concurrent
    submissions of one agent are counted one after the other, never both against the same
    usage."""
    lock(session, agent)
    limits: Mapping[str, Any] = agent.policy["spendingLimits"]
    used = usage(session, agent, now)
    count = limits.get("dailyTransactionLimit")
    if (
        (count is not None and used["dailyTransactionCount"] + 1 > count)
        or (
            limits.get("dailyLimit") is not None
            and used["dailySpend"] + spend > limits["dailyLimit"]
        )
        or (
            limits.get("monthlyLimit") is not None
            and used["monthlySpend"] + spend > limits["monthlyLimit"]
        )
    ):
        raise ApiError(
            403, "POLICY_LIMIT_EXCEEDED", "The action would pass the agent's spending limits."
        )


# --- quotes and their execution --------------------------------------------------------------

QuoteId = Annotated[str, Path(max_length=200)]


def _own_quote(session: Session, agent: Agent, quote_id: str) -> QuoteRow:
    row = session.get(QuoteRow, quote_id)
    if row is None or row.agent_id != agent.id:
        raise ApiError(404, "QUOTE_NOT_FOUND", "No quote of this agent has this id.")
    return row


def _failed_at_once(transaction: Mapping[str, Any]) -> Mapping[str, Any]:
    """The transaction of an execution that began, unless it failed at once (a sandbox outcome
    such as suffix 002): then the execution failed, and the action ends FAILED with it."""
    if transaction.get("status") == "FAILED":
        raise rules.ExecutionFailed(
            str(transaction.get("failureReason") or "EXECUTION_FAILED"), transaction
        )
    return transaction


def _quote_work(session: Session, services: Services, action: AgentAction) -> rules.QuoteExecution:
    """The quote engine behind an EXECUTE_QUOTE action (the transfer engine behind a
    TRANSFER_OUT or TRANSFER_IN action)."""
    if action.type != "EXECUTE_QUOTE":
        return _transfer_work(session, services, action)
    row = session.get(QuoteRow, action.quote_id)
    if row is None:
        raise ApiError(404, "QUOTE_NOT_FOUND", "The action's quote no longer exists.")

    def execute() -> Mapping[str, Any]:
        try:
            execute_quote(
                session,
                row,
                services=services,
                signature_header=action.wallet_signature,
                agent=action.agent_id,
            )
        except ApiError as error:  # insufficient funds, a session key gone meanwhile ...
            raise rules.ExecutionFailed(error.code) from None
        tx = session.get(TransactionRow, row.transaction_id)
        return _failed_at_once(
            transaction_body(tx) if tx is not None else {"id": row.transaction_id}
        )

    return rules.QuoteExecution(expired=lambda: _expired(row), execute=execute)


@router.post("/agents/me/quotes", status_code=201, responses=IDEMPOTENCY_RESPONSES)
def post_my_quote(
    body: QuoteCreate,
    agent: Me,
    session: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Create a quote for the agent's customer (CREATE_QUOTES); the source must be one of the
    customer's accounts."""
    check_active(agent)
    rules.require_permission(agent.policy, "CREATE_QUOTES")
    if body.immediatelyExecute:
        raise ApiError(
            400,
            "IMMEDIATE_EXECUTION_NOT_SUPPORTED",
            "An agent executes a quote with POST /agents/me/quotes/{quoteId}/execute.",
        )
    account = session.get(InternalAccount, body.source.accountId) if body.source.accountId else None
    if account is None or account.customer_id != agent.customer_id:
        raise ApiError(
            403,
            "POLICY_ACCOUNT_NOT_ALLOWED",
            "The source must be an account of the agent's customer.",
        )
    return idempotent(
        session,
        agent.id,
        keyed,
        lambda: (201, create_quote(session, agent.id, body, services=services, agent=agent.id)),
    )


@router.get("/agents/me/quotes/{quoteId}")
def get_my_quote(quoteId: QuoteId, agent: Me, session: Db) -> dict[str, Any]:
    """A quote this agent created (404 for any other)."""
    return quote_body(_own_quote(session, agent, quoteId))


def _submit(
    session: Session, services: Services, agent: Agent, row: QuoteRow, stamp: str | None
) -> dict[str, Any]:
    check_active(agent)
    rules.require_permission(agent.policy, "EXECUTE_QUOTES")
    # One decision per quote at a time: its row is locked until the action is committed, and
    # read again, so that of concurrent submissions (also through other processes, or the
    # platform executing it) the ones after the first are refused here, leaving no action.
    lock(session, row)
    if row.executed:
        raise ApiError(409, "QUOTE_ALREADY_EXECUTED", "This quote has been executed already.")
    if _expired(row):
        raise ApiError(409, "QUOTE_EXPIRED", "The quote has expired; create a new one.")
    taken = session.scalars(
        select(AgentAction.id).where(
            AgentAction.quote_id == row.id, AgentAction.status == "PENDING_APPROVAL"
        )
    ).first()
    if taken is not None:
        raise ApiError(409, "QUOTE_PENDING_APPROVAL", "This quote already waits for approval.")
    if row.source_kind == "EMBEDDED_WALLET":
        _check_signature(session, services, row, stamp)  # 401 now, not at approval
    amounts = [
        rules.Money(row.total_sending, row.sending_currency),
        rules.Money(row.total_receiving, row.receiving_currency),
    ]
    needs_approval = rules.evaluate(
        agent.policy, amounts, source_account_id=str(row.source.get("accountId"))
    )
    limits = agent.policy["spendingLimits"]
    spend = next(m.amount for m in amounts if m.currency == limits["currency"])
    now = services.clock.now()
    check_budget(session, agent, spend, now)
    customer = customer_of(session, agent)
    action = AgentAction(
        id=new_id("AgentAction"),
        agent_id=agent.id,
        customer_id=agent.customer_id,
        platform_customer_id=customer.platform_customer_id,
        status="PENDING_APPROVAL",
        type="EXECUTE_QUOTE",
        quote_id=row.id,
        quote=quote_body(row),
        wallet_signature=stamp,
        spend=spend,
        created_at=now,
        updated_at=now,
    )
    session.add(action)
    session.flush()
    apply(action, rules.submit(needs_approval, _quote_work(session, services, action)), now)
    session.flush()
    return action_body(session, action)


@router.post("/agents/me/quotes/{quoteId}/execute", responses=IDEMPOTENCY_RESPONSES)
def execute_my_quote(
    quoteId: QuoteId,
    request: Request,
    agent: Me,
    session: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Submit the execution of the agent's quote (EXECUTE_QUOTES): an AgentAction that is
    APPROVED (executed, transaction populated) or PENDING_APPROVAL, as the policy says."""
    row = _own_quote(session, agent, quoteId)
    stamp = retry_headers(request).stamp
    return idempotent(
        session, agent.id, keyed, lambda: (200, _submit(session, services, agent, row, stamp))
    )


# --- the agent's transactions ----------------------------------------------------------------

_Text = Annotated[str | None, Query(max_length=300)]


@router.get("/agents/me/transactions")
def list_my_transactions(
    agent: Me,
    session: Db,
    accountIdentifier: _Text = None,
    senderAccountIdentifier: _Text = None,
    receiverAccountIdentifier: _Text = None,
    status: Annotated[Status | None, Query()] = None,
    type: Annotated[Direction | None, Query()] = None,
    reference: _Text = None,
    startDate: DateTimeQuery = None,
    endDate: DateTimeQuery = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    sortOrder: Annotated[SortOrder, Query()] = SortOrder.desc,
) -> dict[str, Any]:
    """The transactions of the agent's customer (no customer filter: the token sets it),
    newest first unless ``sortOrder=asc``; dates are inclusive."""
    filters = TransactionFilters(
        customerId=agent.customer_id,
        accountIdentifier=accountIdentifier,
        senderAccountIdentifier=senderAccountIdentifier,
        receiverAccountIdentifier=receiverAccountIdentifier,
        status=status,
        type=type,
        reference=reference,
        startDate=startDate,
        endDate=inclusive_end(endDate) if endDate is not None else None,
    )
    return sql_page(
        session,
        transaction_query(filters),
        order_of(sortOrder.value),
        transaction_body,
        limit=limit,
        cursor=cursor,
    )


@router.get("/agents/me/transactions/{transactionId}")
def get_my_transaction(
    transactionId: Annotated[str, Path(max_length=200)], agent: Me, session: Db
) -> dict[str, Any]:
    """One transaction of the agent's customer (404 for another customer's)."""
    row = session.get(TransactionRow, transactionId)
    if row is None or row.customer_id != agent.customer_id:
        raise ApiError(404, "TRANSACTION_NOT_FOUND", "No transaction of this customer has this id.")
    return transaction_body(row)


# --- the agent's same-currency transfers -----------------------------------------------------


def _transfer_work(
    session: Session, services: Services, action: AgentAction
) -> rules.QuoteExecution:
    """The transfer engine behind a TRANSFER_OUT or TRANSFER_IN action."""
    details = action.transfer_details or {}
    request = {
        "source": {"accountId": details.get("sourceAccountId")},
        "destination": {"accountId": details.get("destinationAccountId")},
        "amount": details.get("amount"),
    }

    def execute() -> Mapping[str, Any]:
        try:
            if action.type == "TRANSFER_OUT":
                transaction = transfer_out(
                    session,
                    action.agent_id,
                    TransferOut.model_validate(request),
                    services=services,
                    agent=action.agent_id,
                )
            else:
                transaction = transfer_in(
                    session,
                    action.agent_id,
                    TransferIn.model_validate(request),
                    services=services,
                    agent=action.agent_id,
                )
        except ApiError as error:  # insufficient funds, an account gone meanwhile ...
            raise rules.ExecutionFailed(error.code) from None
        return _failed_at_once(transaction)

    return rules.QuoteExecution(expired=lambda: False, execute=execute)


def _customer_account(session: Session, agent: Agent, model: Any, account_id: str) -> Any:
    """An account of the agent's customer: 404 when unknown, 403 when someone else's."""
    account = session.get(model, account_id)
    if account is None:
        raise ApiError(404, "NOT_FOUND", "No account of this kind has this id.")
    if account.customer_id != agent.customer_id:
        raise ApiError(
            403,
            "POLICY_ACCOUNT_NOT_ALLOWED",
            "The accounts of a transfer must belong to the agent's customer.",
        )
    return account


def _submit_transfer(
    session: Session, services: Services, agent: Agent, kind: str, body: TransferIn | TransferOut
) -> dict[str, Any]:
    """A TRANSFER_OUT or TRANSFER_IN action: APPROVED (executed) or PENDING_APPROVAL."""
    check_active(agent)
    rules.require_permission(agent.policy, "CREATE_TRANSFERS")
    outgoing = kind == "TRANSFER_OUT"
    internal_id = body.source.accountId if outgoing else body.destination.accountId
    external_id = body.destination.accountId if outgoing else body.source.accountId
    internal = _customer_account(session, agent, InternalAccount, internal_id)
    external = _customer_account(session, agent, ExternalAccount, external_id)
    if internal.currency != external.currency:
        raise ApiError(
            400, "CURRENCY_MISMATCH", "Transfers are same-currency; use a quote to convert."
        )
    if outgoing and internal.type == "EMBEDDED_WALLET":
        raise ApiError(
            400,
            "INVALID_INPUT",
            "An embedded wallet pays out through a quote signed with its session key.",
        )
    needs_approval = rules.evaluate(
        agent.policy,
        [rules.Money(body.amount, internal.currency)],
        source_account_id=body.source.accountId,
    )
    now = services.clock.now()
    check_budget(session, agent, body.amount, now)
    customer = customer_of(session, agent)
    action = AgentAction(
        id=new_id("AgentAction"),
        agent_id=agent.id,
        customer_id=agent.customer_id,
        platform_customer_id=customer.platform_customer_id,
        status="PENDING_APPROVAL",
        type=kind,
        transfer_details={
            "amount": body.amount,
            "currency": internal.currency,
            "sourceAccountId": body.source.accountId,
            "destinationAccountId": body.destination.accountId,
        },
        spend=body.amount,
        created_at=now,
        updated_at=now,
    )
    session.add(action)
    session.flush()
    apply(action, rules.submit(needs_approval, _transfer_work(session, services, action)), now)
    session.flush()
    return action_body(session, action)


#: The error answers of the agent's transfers (documented in the OpenAPI document).
_TRANSFER_ERRORS: dict[int | str, dict[str, Any]] = {
    **error_responses(400, 401, 404),
    **IDEMPOTENCY_RESPONSES,
    403: {
        "model": ErrorOut,
        "description": "The policy refuses it (permission, account, limit) or the agent is paused.",
    },
}


@router.post("/agents/me/transfer-out", status_code=201, responses=_TRANSFER_ERRORS)
def post_my_transfer_out(
    body: TransferOut,
    agent: Me,
    session: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Pay from an internal account of the agent's customer to one of its external accounts
    (same currency; CREATE_TRANSFERS): a TRANSFER_OUT AgentAction, APPROVED (executed) or
    PENDING_APPROVAL as the policy says."""
    return idempotent(
        session,
        agent.id,
        keyed,
        lambda: (201, _submit_transfer(session, services, agent, "TRANSFER_OUT", body)),
    )


@router.post("/agents/me/transfer-in", status_code=201, responses=_TRANSFER_ERRORS)
def post_my_transfer_in(
    body: TransferIn,
    agent: Me,
    session: Db,
    services: Svc,
    keyed: IdempotencyKey,
) -> JSONResponse:
    """Pull from an external account of the agent's customer into one of its internal accounts
    (same currency; CREATE_TRANSFERS): a TRANSFER_IN AgentAction, APPROVED (executed) or
    PENDING_APPROVAL as the policy says."""
    return idempotent(
        session,
        agent.id,
        keyed,
        lambda: (201, _submit_transfer(session, services, agent, "TRANSFER_IN", body)),
    )
