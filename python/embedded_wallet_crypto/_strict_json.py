"""The one strict JSON decoder for wire values that carry signatures or keys.

Stricter than ``json.loads`` where leniency is a risk: a repeated key (``json.loads`` keeps the
last, so two readers can disagree about a signed value), ``NaN``/``Infinity``, floats that
overflow, and integers long enough to be a denial of service. ``loads`` fails with a
``ValueError`` (a ``RecursionError`` for deep nesting); ``json_object``, the reader of every
family's wire objects, raises the family's own error instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["json_object", "loads"]

_MAX_INT_DIGITS = 64


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise ValueError("integer too long")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("float out of range")
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("duplicate key")
    return result


# Built once: json.loads with hooks would build a decoder on every call.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys,
    parse_int=_bounded_int,
    parse_float=_finite_float,
    parse_constant=_reject_constant,
)


def loads(data: str | bytes) -> Any:
    """Decode JSON text (bytes must be UTF-8). Raises ValueError or RecursionError."""
    return _DECODER.decode(data.decode("utf-8") if isinstance(data, bytes) else data)


def json_object(
    data: str | bytes, *, what: str, error: Callable[[str], Exception]
) -> dict[str, Any]:
    """A JSON object from text or UTF-8 bytes, decoded as strictly as :func:`loads`.

    ``error(reason)`` makes the exception raised (the family's class and code) when ``data`` is
    not valid JSON or not an object; ``what`` names the value in the reason.
    """
    try:
        value = loads(data)
    except (ValueError, RecursionError):  # bad UTF-8 or JSON, repeated keys, deep nesting
        raise error(f"{what} is not valid JSON") from None
    if not isinstance(value, dict):
        raise error(f"{what} is not a JSON object")
    return value
