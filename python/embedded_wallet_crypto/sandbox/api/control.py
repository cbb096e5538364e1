"""The control plane (sandbox only: 403 in production, after the platform's credentials; 401
without them in either environment): the test clock, the reset, the request log and the
faults. See ``docs/sandbox-control.md``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Request, Response
from starlette.concurrency import run_in_threadpool

from ..clock import Clock, iso
from ..deps import SANDBOX_ONLY, Platform, Svc
from ..domain.errors import invalid
from ..faults import FAULT_CODES, Fault, arm, clear, faults, resolve
from ..models.control import (
    ClockAdvance,
    ClockOut,
    FaultIn,
    FaultList,
    FaultOut,
    RequestList,
)
from ..request_log import MAX_RECORDS
from ..reset import reset
from ..worker import advance_clock
from .common import error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Sandbox control"],
    responses={**error_responses(400, 401), 403: {"description": "Production mode."}},
    dependencies=SANDBOX_ONLY,
)


@router.get("/sandbox/clock", response_model=ClockOut)
def clock(_: Platform) -> ClockOut:
    """The service's time: the real time plus every advance of the test clock."""
    return ClockOut(now=iso(Clock.now()))


@router.post("/sandbox/clock/advance", response_model=ClockOut)
def advance(body: ClockAdvance, _: Platform, services: Svc) -> ClockOut:
    """Move the service's time ``seconds`` forward (for every process on the database), run
    everything that falls due on the way (challenge, code, session, quote and invitation expiry
    are judged by the moved time; the clock stops at each payment step and webhook delivery or
    retry that falls due, and runs it, before the answer), and answer the new time. 400
    ``CLOCK_LIMIT_REACHED`` past 100 years ahead."""
    advance_clock(services.database, services.clock, body.seconds)
    return ClockOut(now=iso(Clock.now()))


@router.post("/sandbox/reset", status_code=204, response_class=Response)
def reset_all(_: Platform, services: Svc) -> Response:
    """Remove every customer, account, credential, session, quote, transaction, agent,
    invitation, verification, webhook event, idempotency key and fault, in one transaction;
    the platform's credentials and configuration, the clock and the request log stay."""
    reset(services.database)
    return Response(status_code=204)


@router.get("/sandbox/requests", response_model=RequestList)
async def requests(
    request: Request,
    _: Platform,
    limit: Annotated[int, Query(ge=1, le=MAX_RECORDS)] = 100,
) -> RequestList:
    """The newest ``limit`` requests (at most 1000 are kept), newest first: method, path
    (code parameters hidden, never the query), status, milliseconds and the error ``code``."""
    recent = await run_in_threadpool(request.app.state.request_log.recent, limit)
    return RequestList.model_validate({"data": recent})


@router.post("/sandbox/faults", status_code=201, response_model=FaultOut)
def add_fault(body: FaultIn, request: Request, _: Platform, services: Svc) -> FaultOut:
    """Make the next ``count`` calls of ``operation`` (``METHOD /path`` as the published
    document writes it) answer ``status`` (429, 500 or 503; with ``Retry-After`` when
    ``retryAfter`` is given) or wait ``latencyMs`` first; ``afterCommit`` does the work, then
    answers the fault. Replaces a fault armed for the same operation. 400
    ``UNKNOWN_OPERATION``, ``OPERATION_NOT_FAULTABLE`` or ``UNSUPPORTED_FAULT_STATUS``."""
    key = resolve(body.operation, request.app.state.operations)
    if body.status is not None and body.status not in FAULT_CODES:
        raise invalid("status must be 429, 500 or 503.", "UNSUPPORTED_FAULT_STATUS")
    fault = Fault(body.status, body.retryAfter, body.latencyMs, body.afterCommit)
    arm(services.database, key, body.count, fault)
    return FaultOut(
        operation=key,
        status=fault.status,
        retryAfter=fault.retry_after,
        latencyMs=fault.latency_ms,
        count=body.count,
        afterCommit=fault.after_commit,
    )


@router.get("/sandbox/faults", response_model=FaultList)
def list_faults(_: Platform, services: Svc) -> FaultList:
    """The armed faults with calls left."""
    return FaultList.model_validate({"data": faults(services.database)})


@router.delete("/sandbox/faults", status_code=204, response_class=Response)
def clear_faults(_: Platform, services: Svc) -> Response:
    """Disarm every fault."""
    clear(services.database)
    return Response(status_code=204)
