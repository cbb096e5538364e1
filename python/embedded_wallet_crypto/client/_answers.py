"""Reading an answer into its operation's model (the service's own, ``ewc.sandbox.models``),
and the fields of a list page, whether it is a model or the parsed JSON."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..sandbox.models.wallet import SignedRequestChallengeOut
from ._errors import ClientError
from ._operations import Operation

__all__ = ["adapter", "page_field", "read_answer"]


@cache
def adapter(model: Any) -> TypeAdapter[Any]:
    """The pydantic reader of ``model`` (a model class, a union of them, ``str``)."""
    return TypeAdapter(model)


def _problems(error: ValidationError) -> str:
    # Where and what only: an input value could be a secret (an access token).
    found = [
        f"{'.'.join(str(part) for part in item['loc']) or '(answer)'}: {item['type']}"
        for item in error.errors(include_url=False, include_context=False, include_input=False)
    ]
    more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
    return "; ".join(found[:5]) + more


def read_answer(op: Operation, status: int, data: Any) -> Any:
    """The answer as the caller gets it: None for no body; a retry-signed operation's 202
    as a :class:`SignedRequestChallengeOut`; otherwise ``data`` read into the operation's
    ``response_model`` (the 202 of an unsigned operation too, a card simulation's; a
    payload-signed operation's 202 and an answer without a model as the parsed JSON).

    Raises:
        ClientError: ``RESPONSE_INVALID`` when the answer does not fit the model (naming the
            fields and the problems, never their values).
    """
    if data is None:
        return None
    model: Any = op.response_model
    if status == 202 and op.signing == "retry":
        model = SignedRequestChallengeOut
    elif status == 202 and op.signing == "payload":
        return data  # the stamp was missing: the answer as it came
    if model is None:
        return data
    try:
        return adapter(model).validate_python(data)
    except ValidationError as error:
        raise ClientError(
            f"{op.qualified_name} answered {status} with a body that is not its model "
            f"{getattr(model, '__name__', str(model))}: {_problems(error)}",
            "RESPONSE_INVALID",
        ) from None


def page_field(page: Any, name: str) -> Any:
    """A field of a list page (``data``, ``hasMore``, ``nextCursor``): a model's attribute or
    a JSON object's key; None when it has none."""
    if isinstance(page, dict):
        return page.get(name)
    return getattr(page, name, None)
