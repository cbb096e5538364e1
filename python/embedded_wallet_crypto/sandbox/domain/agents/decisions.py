"""The platform's side of AgentActions: the actions waiting for its decision, its approval (the
action's work runs) and its rejection; and an agent's own actions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...db.engine import lock
from ...db.pages import PageRequest, page
from ...db.tables_agents import Agent, AgentAction
from ...services import Services
from ..errors import not_found
from ..transaction_queries import created_between
from . import actions
from .work import action_body, apply, work_of

__all__ = ["approve_action", "find_own_action", "list_actions", "list_approvals", "reject_action"]

#: The rejection reason when the platform gives none.
DEFAULT_REJECTION = "Rejected by the platform."


def list_approvals(
    db: Session,
    request: PageRequest,
    *,
    agent_id: str | None = None,
    customer_id: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> dict[str, Any]:
    """The actions waiting for the platform's decision (PENDING_APPROVAL); dates inclusive."""
    query = select(AgentAction).where(AgentAction.status == "PENDING_APPROVAL")
    if agent_id is not None:
        query = query.where(AgentAction.agent_id == agent_id)
    if customer_id is not None:
        query = query.where(AgentAction.customer_id == customer_id)
    query = created_between(query, AgentAction.created_at, start, end)
    return page(db, query, AgentAction, lambda action: action_body(db, action), request)


def list_actions(
    db: Session, agent: Agent, request: PageRequest, *, status: str | None = None
) -> dict[str, Any]:
    """The agent's own actions."""
    query = select(AgentAction).where(AgentAction.agent_id == agent.id)
    if status is not None:
        query = query.where(AgentAction.status == status)
    return page(db, query, AgentAction, lambda action: action_body(db, action), request)


def find_own_action(db: Session, agent: Agent, action_id: str) -> dict[str, Any]:
    """One of the agent's actions (404 for another agent's)."""
    action = db.get(AgentAction, action_id)
    if action is None or action.agent_id != agent.id:
        raise not_found("No action of this agent has this id.", "ACTION_NOT_FOUND")
    return action_body(db, action)


def _decide(db: Session, agent_id: str, action_id: str) -> AgentAction:
    """The action of the agent, its row locked for the rest of the request: one decision at a
    time."""
    agent_exists = db.get(Agent, agent_id) is not None
    action = db.get(AgentAction, action_id)
    if action is None or action.agent_id != agent_id:
        code = "ACTION_NOT_FOUND" if agent_exists else "AGENT_NOT_FOUND"
        raise not_found("No such action of this agent.", code)
    lock(db, action)
    return action


def approve_action(
    db: Session, services: Services, agent_id: str, action_id: str
) -> dict[str, Any]:
    """Approve a PENDING_APPROVAL action: it runs (APPROVED), or is FAILED when its quote
    expired meanwhile or its execution fails."""
    action = _decide(db, agent_id, action_id)
    if action.status != "PENDING_APPROVAL":
        actions.transition(action.status, "approve")  # 409 ACTION_NOT_PENDING
    outcome = actions.approve(action.status, work_of(db, services, action))
    apply(action, outcome, services.clock.now())
    return action_body(db, action)


def reject_action(
    db: Session, services: Services, agent_id: str, action_id: str, reason: str | None
) -> dict[str, Any]:
    """Reject a PENDING_APPROVAL action (nothing runs)."""
    action = _decide(db, agent_id, action_id)
    outcome = actions.reject(action.status)
    apply(action, outcome, services.clock.now())
    action.rejection_reason = reason or DEFAULT_REJECTION
    return action_body(db, action)
