"""The agents themselves: creation with a policy and a device code, the list, one agent, its
changes and deletion; device codes redeemed (once) for a Bearer access token; and the agent of
an access token (``agent_of_token``, the authentication of ``/agents/me``).

How agents and device codes come to exist is not in the interface; the service follows the real
service: ``POST /agents`` (platform) returns the agent and a device code, which the agent
software redeems once at ``POST /agents/device-codes/{code}/redeem`` for its access token.
Device codes live 24 hours and access tokens 30 days, both scaled by ``--time-scale``; only
their SHA-256 hashes are stored.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from ...clock import iso
from ...db.pages import PageRequest, page
from ...db.tables_agents import Agent, AgentAction, AgentDeviceCode, AgentToken
from ...db.tables_wallet import Customer
from ...ids import new_id
from ...models.agents import AgentCreate, AgentUpdate
from ...services import Services
from ..errors import Refusal, invalid, not_found
from . import tokens
from .policy import update_policy, validate_policy

__all__ = [
    "agent_body",
    "agent_of_token",
    "create_agent",
    "customer_of",
    "delete_agent",
    "device_code_status",
    "find_agent",
    "list_agents",
    "new_device_code",
    "patch_policy",
    "redeem_device_code",
    "regenerate_device_code",
    "update_agent",
    "usage",
]

#: The ``WWW-Authenticate`` challenge of every agent 401.
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="ewc-sandbox-agents"'}


def usage(db: Session, agent: Agent, now: datetime) -> dict[str, Any]:
    """The agent's usage today and this month (UTC), from its approved actions."""
    day = now.date()
    month_start = datetime(now.year, now.month, 1, tzinfo=now.tzinfo)
    rows = db.scalars(
        select(AgentAction).where(
            AgentAction.agent_id == agent.id,
            AgentAction.status == "APPROVED",
            AgentAction.created_at >= month_start,
        )
    ).all()
    today = [r for r in rows if r.created_at.date() == day]
    next_month = (month_start + timedelta(days=32)).replace(day=1)
    return {
        "dailyTransactionCount": len(today),
        "dailySpend": sum(r.spend or 0 for r in today),
        "dailyResetDate": (day + timedelta(days=1)).isoformat(),
        "monthlySpend": sum(r.spend or 0 for r in rows),
        "monthlyResetMonth": next_month.strftime("%Y-%m"),
    }


def agent_body(db: Session, agent: Agent, now: datetime) -> dict[str, Any]:
    """The real service's Agent."""
    return {
        "id": agent.id,
        "name": agent.name,
        "customerId": agent.customer_id,
        "isPaused": agent.is_paused,
        "isConnected": agent.is_connected,
        "policy": agent.policy,
        "usage": usage(db, agent, now),
        "createdAt": iso(agent.created_at),
        "updatedAt": iso(agent.updated_at),
    }


def find_agent(db: Session, agent_id: str) -> Agent:
    agent = db.get(Agent, agent_id)
    if agent is None:
        raise not_found("No agent has this id.", "AGENT_NOT_FOUND")
    return agent


def customer_of(db: Session, agent: Agent) -> Customer:
    """The agent's customer (the scope of everything under ``/agents/me``)."""
    customer = db.get(Customer, agent.customer_id)
    if customer is None:
        raise not_found("The agent's customer no longer exists.", "CUSTOMER_NOT_FOUND")
    return customer


def _unauthorized(reason: str) -> Refusal:
    return Refusal(401, "UNAUTHORIZED", reason, dict(BEARER_CHALLENGE))


def agent_of_token(db: Session, services: Services, header: str | None) -> Agent:
    """The agent of the Bearer access token in an ``Authorization`` header, or 401."""
    if not header:
        raise _unauthorized("An agent access token is required (Bearer).")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthorized("Agent endpoints need a Bearer access token.")
    row = db.get(AgentToken, tokens.token_hash(token.strip()))
    if row is None or (agent := db.get(Agent, row.agent_id)) is None:
        raise _unauthorized("Invalid agent access token.")
    if row.expires_at <= services.clock.now():
        raise _unauthorized("The agent access token has expired.")
    return agent


def new_device_code(db: Session, services: Services, agent: Agent) -> dict[str, Any]:
    """A new device code of the agent (its earlier unredeemed ones stop working)."""
    now = services.clock.now()
    db.execute(
        update(AgentDeviceCode)
        .where(AgentDeviceCode.agent_id == agent.id, AgentDeviceCode.redeemed.is_(False))
        .values(invalidated=True)
    )
    code = tokens.new_device_code()
    expires = now + timedelta(
        seconds=services.clock.seconds(tokens.DEVICE_CODE_LIFETIME.total_seconds())
    )
    db.add(
        AgentDeviceCode(
            code_hash=tokens.token_hash(code),
            agent_id=agent.id,
            expires_at=expires,
            redeemed=False,
            invalidated=False,
            created_at=now,
        )
    )
    return {"code": code, "agentId": agent.id, "expiresAt": iso(expires), "redeemed": False}


def create_agent(db: Session, services: Services, body: AgentCreate) -> dict[str, Any]:
    """Create an agent for a customer with a policy; returns it and a device code."""
    policy = validate_policy(body.policy)
    if db.get(Customer, body.customerId) is None:
        raise not_found("No customer has this id.", "CUSTOMER_NOT_FOUND")
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
    db.add(agent)
    db.flush()
    code = new_device_code(db, services, agent)
    return {"agent": agent_body(db, agent, now), "deviceCode": code}


def list_agents(
    db: Session,
    services: Services,
    request: PageRequest,
    *,
    customer_id: str | None = None,
    is_paused: bool | None = None,
    is_connected: bool | None = None,
) -> dict[str, Any]:
    """The agents (newest first unless asked otherwise); filters combine. The usage is
    computed for the agents of the page only."""
    query = select(Agent)
    if customer_id is not None:
        query = query.where(Agent.customer_id == customer_id)
    if is_paused is not None:
        query = query.where(Agent.is_paused.is_(is_paused))
    if is_connected is not None:
        query = query.where(Agent.is_connected.is_(is_connected))
    now = services.clock.now()
    return page(db, query, Agent, lambda agent: agent_body(db, agent, now), request)


def update_agent(
    db: Session, services: Services, agent_id: str, body: AgentUpdate
) -> dict[str, Any]:
    """Rename or pause (resume) an agent; a paused agent cannot submit actions."""
    if body.name is None and body.isPaused is None:
        raise invalid("Give name or isPaused.")
    agent = find_agent(db, agent_id)
    now = services.clock.now()
    if body.name is not None:
        agent.name = body.name
    if body.isPaused is not None:
        agent.is_paused = body.isPaused
    agent.updated_at = now
    return agent_body(db, agent, now)


def patch_policy(
    db: Session, services: Services, agent_id: str, patch: dict[str, Any]
) -> dict[str, Any]:
    """Partially update an agent's policy; it applies to the next action."""
    agent = find_agent(db, agent_id)
    agent.policy = update_policy(agent.policy, patch)
    now = services.clock.now()
    agent.updated_at = now
    return agent_body(db, agent, now)


def delete_agent(db: Session, agent_id: str) -> None:
    """Delete an agent: its access tokens stop working at once; its actions stay readable."""
    agent = find_agent(db, agent_id)
    db.execute(delete(AgentToken).where(AgentToken.agent_id == agent.id))
    db.execute(delete(AgentDeviceCode).where(AgentDeviceCode.agent_id == agent.id))
    db.delete(agent)


def regenerate_device_code(db: Session, services: Services, agent_id: str) -> dict[str, Any]:
    """A new device code (earlier unredeemed ones stop working); 409 once connected."""
    agent = find_agent(db, agent_id)
    if agent.is_connected:
        raise Refusal(409, "AGENT_CONNECTED", "The agent is already connected.")
    return new_device_code(db, services, agent)


def _code_used() -> Refusal:
    return invalid("The device code was already used or replaced.", "DEVICE_CODE_USED")


def _device_code(db: Session, code: str) -> AgentDeviceCode:
    row = db.get(AgentDeviceCode, tokens.token_hash(code))
    if row is None:
        raise not_found("No device code matches.", "DEVICE_CODE_NOT_FOUND")
    return row


def redeem_device_code(db: Session, services: Services, code: str) -> dict[str, Any]:
    """Redeem a device code (no platform credentials: the code is the proof) for the agent's
    Bearer access token, returned this once. Single use across processes: only one UPDATE
    can flip ``redeemed`` from false."""
    row = _device_code(db, code)
    now = services.clock.now()
    if row.redeemed or row.invalidated:
        raise _code_used()
    if row.expires_at <= now:
        raise invalid("The device code has expired.", "DEVICE_CODE_EXPIRED")
    flipped = db.execute(
        update(AgentDeviceCode)
        .where(AgentDeviceCode.code_hash == row.code_hash, AgentDeviceCode.redeemed.is_(False))
        .values(redeemed=True)
    )
    if getattr(flipped, "rowcount", 0) != 1:
        raise _code_used()
    agent = find_agent(db, row.agent_id)
    agent.is_connected = True
    agent.updated_at = now
    token = tokens.new_access_token()
    lifetime = services.clock.seconds(tokens.ACCESS_TOKEN_LIFETIME.total_seconds())
    db.add(
        AgentToken(
            token_hash=tokens.token_hash(token),
            agent_id=agent.id,
            expires_at=now + timedelta(seconds=lifetime),
            created_at=now,
        )
    )
    return {
        "agentId": agent.id,
        "agentName": agent.name,
        "accessToken": token,
        "policy": agent.policy,
    }


def device_code_status(db: Session, code: str) -> dict[str, Any]:
    """Whether a device code has been redeemed."""
    return {"code": code, "redeemed": _device_code(db, code).redeemed}
