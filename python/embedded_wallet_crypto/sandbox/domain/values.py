"""Checks of single values that rules of several areas share."""

from __future__ import annotations

from typing import Any

from .errors import invalid

__all__ = ["check_text"]


def check_text(value: Any, where: str, *, max_length: int = 200) -> str:
    """A storable string: 1 to ``max_length`` characters, valid Unicode (no lone surrogate), no
    NUL; or a 400 :class:`Refusal`."""
    if not isinstance(value, str) or not 1 <= len(value) <= max_length or "\x00" in value:
        raise invalid(f"{where} must be a string of 1 to {max_length} characters without NUL.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise invalid(f"{where} is not valid Unicode.") from None
    return value
