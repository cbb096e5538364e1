"""The field types the bodies share: ids, currency codes, amounts, and the bounds of the
free-form objects the service stores as given (a customer's ``address`` and ``businessInfo``, an
agent's policy as sent).

A value past any bound is refused (400 ``INVALID_INPUT``, the reason naming the field and the
bound) while the request is validated, before anything is stored. The walk is iterative, so that
no nesting can exhaust the interpreter's stack; it stops at the first bound passed.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Annotated, Any, Final

from pydantic import AfterValidator, BeforeValidator, Field

__all__ = [
    "MAX_AMOUNT",
    "MAX_DEPTH",
    "MAX_KEY_LENGTH",
    "MAX_MEMBERS",
    "MAX_OBJECT_BYTES",
    "MAX_STRING_LENGTH",
    "Amount",
    "CurrencyCode",
    "FreeForm",
    "Id",
    "IsoDateTime",
    "check_free_form",
    "storable_text",
]

#: The largest amount of any request, in smallest units (the interface's
#: ``lockedCurrencyAmount`` limit), and the ceiling of every balance. Below 2**53, so every
#: amount is an exact number in any JSON reader (JavaScript's included).
MAX_AMOUNT: Final = 9_000_000_000_000_000

#: A resource id in a body: 1 to 200 characters.
Id = Annotated[str, Field(min_length=1, max_length=200)]
#: ISO 4217 (three capitals) or a crypto ticker (up to five).
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")]
#: An amount of a request: a JSON integer from 1 to :data:`MAX_AMOUNT` smallest units.
Amount = Annotated[int, Field(strict=True, ge=1, le=MAX_AMOUNT)]

_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def _iso_only(value: Any) -> Any:
    """A date-time is ISO 8601 text: a bare number (which pydantic would read as Unix time) is
    not one."""
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        raise ValueError("must be an ISO 8601 date-time such as 2025-10-13T09:30:00Z")
    return value


#: An ISO 8601 date-time (a bare date is its midnight; no zone is UTC), never a bare number.
IsoDateTime = Annotated[datetime, BeforeValidator(_iso_only)]

#: Objects and arrays nested in one another, the free-form object itself being level 1.
MAX_DEPTH: Final = 10
#: Object keys and array items, counted over the whole value.
MAX_MEMBERS: Final = 200
#: Characters in a string value.
MAX_STRING_LENGTH: Final = 1000
#: Characters in an object key.
MAX_KEY_LENGTH: Final = 100
#: The whole value as compact JSON, in UTF-8 bytes.
MAX_OBJECT_BYTES: Final = 16 * 1024


def _text_problem(text: str, what: str, limit: int) -> str | None:
    if len(text) > limit:
        return f"has {what} longer than {limit} characters"
    if "\x00" in text:
        return f"has {what} with a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return f"has {what} that is not valid Unicode (a lone surrogate)"
    return None


def free_form_problem(value: Any) -> str | None:
    """What makes ``value`` (parsed JSON) pass a bound, or None when it is within all."""
    members = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return f"is nested deeper than {MAX_DEPTH} levels"
            members += len(item)
            if members > MAX_MEMBERS:
                return f"has more than {MAX_MEMBERS} keys and items"
            if isinstance(item, dict):
                for key in item:
                    problem = _text_problem(str(key), "a key", MAX_KEY_LENGTH)
                    if problem:
                        return problem
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str):
            problem = _text_problem(item, "a string", MAX_STRING_LENGTH)
            if problem:
                return problem
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_OBJECT_BYTES:
        return f"is larger than {MAX_OBJECT_BYTES} bytes as JSON"
    return None


def storable_text(value: str) -> str:
    """Pydantic validator: text every backend stores (no NUL, no lone surrogate)."""
    problem = _text_problem(value, "text", len(value))
    if problem is not None:
        raise ValueError(f"it {problem}")
    return value


def check_free_form(value: dict[str, Any]) -> dict[str, Any]:
    """Pydantic validator: ``value`` unchanged, or a validation error naming the bound."""
    problem = free_form_problem(value)
    if problem is not None:
        raise ValueError(f"it {problem}")
    return value


#: A JSON object of the client's own shape, within the bounds above.
FreeForm = Annotated[dict[str, Any], AfterValidator(check_free_form)]
