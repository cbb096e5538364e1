"""What the routes share: the documented error answers, the path and sort parameters, and the
answer of an operation that takes an ``Idempotency-Key``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Path, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Keyed, committed
from ..domain.idempotency import once
from ..models.common import ErrorOut, SortOrder
from ..models.wallet import SignedRequestChallengeOut

__all__ = [
    "CHALLENGE_RESPONSE",
    "IDEMPOTENCY_RESPONSES",
    "REPLAYED_HEADER",
    "PathId",
    "Sort",
    "error_responses",
    "idempotent",
    "signed_answer",
]

_DESCRIPTIONS = {
    400: "The request is not valid (the reason names the field or the rule).",
    413: "The request body is larger than the service's limit (BODY_TOO_LARGE).",
    401: "Platform credentials, or a credential, signature or request id, failed a check.",
    404: "No such resource.",
    429: "Too many requests; wait the seconds of the Retry-After header.",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entries of these error statuses (for a router or a route)."""
    return {
        status: {"model": ErrorOut, "description": _DESCRIPTIONS[status]} for status in statuses
    }


#: The OpenAPI answers of an operation that takes the key.
IDEMPOTENCY_RESPONSES: dict[int | str, dict[str, Any]] = {
    409: {
        "model": ErrorOut,
        "description": "IDEMPOTENCY_REQUEST_IN_PROGRESS: the first request with this "
        "Idempotency-Key is still running (or another conflict of the operation).",
    },
    422: {
        "model": ErrorOut,
        "description": "IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used with another "
        "request (method, path or body).",
    },
}

#: The header a replayed response carries.
REPLAYED_HEADER = "Idempotent-Replayed"

#: A resource id in a path (longer ids name nothing: 404).
PathId = Annotated[str, Path(max_length=200)]
#: The order of a list by creation time (``sortOrder``).
Sort = Annotated[SortOrder, Query()]


def idempotent(
    db: Db,
    caller: str,
    keyed: Keyed,
    produce: Callable[[], tuple[int, dict[str, Any]]],
) -> JSONResponse:
    """The answer of ``produce()`` once per ``Idempotency-Key`` of ``caller`` (see
    ``domain.idempotency``); a replay carries ``Idempotent-Replayed: true``."""
    answer = once(db, caller, keyed, produce)
    headers = {REPLAYED_HEADER: "true"} if answer.replayed else None
    return JSONResponse(answer.body, status_code=answer.status, headers=headers)


#: The 202 answer of a signed retry's first leg.
CHALLENGE_RESPONSE: dict[int | str, dict[str, Any]] = {202: {"model": SignedRequestChallengeOut}}


def signed_answer(db: Db, status: int, body: dict[str, Any]) -> Any:
    """A signed retry's challenge as it is (202), or the result through the route's model;
    once the request's transaction is committed."""
    if status == 202:
        return committed(db, JSONResponse(body, status_code=202))
    return committed(db, body)
