"""What the routes share: the documented error answers, the path and sort parameters, and the
answer of an operation that takes an ``Idempotency-Key``."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Annotated, Any

from fastapi import Path, Query
from fastapi.responses import JSONResponse
from pydantic import TypeAdapter

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
    "answer",
    "cap_response",
    "error_responses",
    "idempotent",
    "reply",
    "signed_answer",
    "signed_reply",
]

_DESCRIPTIONS = {
    400: "The request is not valid (the reason names the field or the rule).",
    413: "The request body is larger than the service's limit (BODY_TOO_LARGE).",
    401: "Platform credentials, or a credential, signature or request id, failed a check.",
    403: "FORBIDDEN: an API token without the operation's permission (or, for a sandbox-only "
    "endpoint, the production environment).",
    404: "No such resource.",
    429: "Too many requests; wait the seconds of the Retry-After header.",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entries of these error statuses (for a router or a route)."""
    return {
        status: {"model": ErrorOut, "description": _DESCRIPTIONS[status]} for status in statuses
    }


def cap_response(what: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI 409 of an insert past a collection's cap (``COLLECTION_LIMIT_REACHED``)."""
    return {
        409: {
            "model": ErrorOut,
            "description": f"COLLECTION_LIMIT_REACHED: the {what} are at their cap.",
        }
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


@cache
def _adapter(model: Any) -> TypeAdapter[Any]:
    return TypeAdapter(model)


def reply(
    body: Any, *, status: int = 200, model: Any = None, exclude_none: bool = True
) -> JSONResponse:
    """``body`` as the JSON answer: through ``model`` (the response model the route declares;
    without its None fields unless ``exclude_none`` is off) when one is given. The route
    builds its whole answer in its one hop to the thread pool (FastAPI passes a Response on as
    it is, without validating it in the pool again)."""
    if model is not None:
        adapter = _adapter(model)
        body = adapter.dump_python(
            adapter.validate_python(body), mode="json", exclude_none=exclude_none
        )
    return JSONResponse(body, status_code=status)


def answer(
    db: Db, body: Any, *, status: int = 200, model: Any = None, exclude_none: bool = True
) -> JSONResponse:
    """:func:`reply`, once the request's transaction is committed."""
    return committed(db, reply(body, status=status, model=model, exclude_none=exclude_none))


def signed_reply(
    status: int, body: dict[str, Any], *, model: Any, exclude_none: bool = True
) -> JSONResponse:
    """A signed retry's challenge as it is (202), or the result through the route's model."""
    if status == 202:
        return JSONResponse(body, status_code=202)
    return reply(body, status=status, model=model, exclude_none=exclude_none)


def signed_answer(
    db: Db, status: int, body: dict[str, Any], *, model: Any, exclude_none: bool = True
) -> JSONResponse:
    """:func:`signed_reply`, once the request's transaction is committed."""
    return committed(db, signed_reply(status, body, model=model, exclude_none=exclude_none))
