"""Agents, for the platform: ``/agents`` (create, list, one, change, delete, policy, device
codes), the actions waiting for approval and the decisions on them; and the device-code
redemption an agent makes with no credentials but its code (see ``domain.agents.registry``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Query, Response
from fastapi.responses import JSONResponse
from pydantic import Field

from ..deps import Db, Paging, Platform, Svc, committed
from ..domain.agents import decisions, registry
from ..models.agents import (
    AgentActionList,
    AgentActionOut,
    AgentCreate,
    AgentCreated,
    AgentList,
    AgentOut,
    AgentUpdate,
    DeviceCodeOut,
    DeviceCodeStatusOut,
    RedeemedDeviceCodeOut,
    RejectBody,
)
from ..models.common import SortOrder
from ..models.fields import FreeForm
from .common import Sort, answer
from .routing import Router
from .transactions import DateTimeQuery

__all__ = ["router"]

router = Router(tags=["Agents"])

_Id = Annotated[str | None, Query(max_length=200)]


@router.post("/agents", status_code=201, response_model=AgentCreated)
def create_agent(body: AgentCreate, db: Db, services: Svc, _: Platform) -> JSONResponse:
    """Create an agent for a customer with a policy; returns it and a device code."""
    return answer(db, registry.create_agent(db, services, body), status=201)


@router.get("/agents", response_model=AgentList)
def list_agents(
    db: Db,
    services: Svc,
    _: Platform,
    paging: Paging,
    customerId: _Id = None,
    isPaused: Annotated[bool, Field(strict=True)] | None = None,
    isConnected: bool | None = None,
) -> JSONResponse:
    """The agents, newest first; filters combine."""
    listed = registry.list_agents(
        db,
        services,
        paging.ordered("desc"),
        customer_id=customerId,
        is_paused=isPaused,
        is_connected=isConnected,
    )
    return answer(db, listed)


@router.get("/agents/approvals", response_model=AgentActionList)
def list_approvals(
    db: Db,
    _: Platform,
    paging: Paging,
    agentId: _Id = None,
    customerId: _Id = None,
    startDate: DateTimeQuery = None,
    endDate: DateTimeQuery = None,
    sortOrder: Sort = SortOrder.desc,
) -> JSONResponse:
    """The actions waiting for the platform's decision (PENDING_APPROVAL), newest first unless
    ``sortOrder=asc``; dates are inclusive."""
    listed = decisions.list_approvals(
        db,
        paging.ordered(sortOrder.value),
        agent_id=agentId,
        customer_id=customerId,
        start=startDate,
        end=endDate,
    )
    return answer(db, listed)


@router.post("/agents/device-codes/{code}/redeem", response_model=RedeemedDeviceCodeOut)
def redeem(code: str, db: Db, services: Svc) -> JSONResponse:
    """Redeem a device code (no platform credentials: the code is the proof) for the agent's
    Bearer access token, returned this once."""
    return answer(db, registry.redeem_device_code(db, services, code))


@router.get("/agents/device-codes/{code}/status", response_model=DeviceCodeStatusOut)
def device_code_status(code: str, db: Db, _: Platform) -> JSONResponse:
    """Whether a device code has been redeemed."""
    return answer(db, registry.device_code_status(db, code))


@router.get("/agents/{agentId}", response_model=AgentOut)
def get_agent(agentId: str, db: Db, services: Svc, _: Platform) -> JSONResponse:
    """One agent."""
    agent = registry.find_agent(db, agentId)
    return answer(db, registry.agent_body(db, agent, services.clock.now()))


@router.patch("/agents/{agentId}", response_model=AgentOut)
def update_agent(
    agentId: str, body: AgentUpdate, db: Db, services: Svc, _: Platform
) -> JSONResponse:
    """Rename or pause (resume) an agent; a paused agent cannot submit actions."""
    return answer(db, registry.update_agent(db, services, agentId, body))


@router.delete("/agents/{agentId}", status_code=204)
def delete_agent(agentId: str, db: Db, _: Platform) -> Response:
    """Delete an agent: its access tokens stop working at once; its actions stay readable."""
    registry.delete_agent(db, agentId)
    return committed(db, Response(status_code=204))


@router.patch("/agents/{agentId}/policy", response_model=AgentOut)
def update_agent_policy(
    agentId: str, db: Db, services: Svc, _: Platform, body: Annotated[FreeForm, Body()]
) -> JSONResponse:
    """Partially update an agent's policy; it applies to the next action."""
    return answer(db, registry.patch_policy(db, services, agentId, body))


@router.post("/agents/{agentId}/device-codes", status_code=201, response_model=DeviceCodeOut)
def regenerate_device_code(agentId: str, db: Db, services: Svc, _: Platform) -> JSONResponse:
    """A new device code (earlier unredeemed ones stop working); 409 once connected."""
    return answer(db, registry.regenerate_device_code(db, services, agentId), status=201)


@router.post("/agents/{agentId}/actions/{actionId}/approve", response_model=AgentActionOut)
def approve_action(agentId: str, actionId: str, db: Db, services: Svc, _: Platform) -> JSONResponse:
    """Approve a PENDING_APPROVAL action: it runs (APPROVED), or is FAILED when its quote
    expired meanwhile or its execution fails. Platform credentials only."""
    return answer(db, decisions.approve_action(db, services, agentId, actionId))


@router.post("/agents/{agentId}/actions/{actionId}/reject", response_model=AgentActionOut)
def reject_action(
    agentId: str,
    actionId: str,
    db: Db,
    services: Svc,
    _: Platform,
    body: Annotated[RejectBody | None, Body()] = None,
) -> JSONResponse:
    """Reject a PENDING_APPROVAL action (nothing runs). Platform credentials only."""
    reason = body.reason if body else None
    return answer(db, decisions.reject_action(db, services, agentId, actionId, reason))
