"""Reading a vector case's inputs (vectors/README.md), and the two ways a case can be wrong
that are not the library's error: a malformed case, and public calls that disagree."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import embedded_wallet_crypto as ewc

T = TypeVar("T")
Inputs = Mapping[str, Any]


class MalformedCase(Exception):
    """The vector itself does not follow the schema."""


class Mismatch(Exception):
    """Two public calls that must agree did not (or a round trip did not come back)."""


def input_text(inputs: Inputs, name: str) -> str:
    value = inputs.get(name)
    if not isinstance(value, str):
        raise MalformedCase(f"input {name!r} must be a string")
    return value


def input_bytes(inputs: Inputs, name: str) -> bytes:
    value = input_text(inputs, name)
    try:
        data = bytes.fromhex(value)
    except ValueError:
        raise MalformedCase(f"input {name!r} is not hex") from None
    if value != data.hex():
        raise MalformedCase(f"input {name!r} is not lowercase hex without separators")
    return data


def optional_input_bytes(inputs: Inputs, name: str) -> bytes | None:
    if name not in inputs:
        raise MalformedCase(f"input {name!r} is missing (use null for the profile default)")
    return None if inputs[name] is None else input_bytes(inputs, name)


def agree(*calls: tuple[str, Callable[[], T]]) -> list[T]:
    """Run calls that must all succeed or all fail with the same code; re-raise that error."""
    outcomes: list[tuple[str, T | None, ewc.WalletCryptoError | None]] = []
    for name, call in calls:
        try:
            outcomes.append((name, call(), None))
        except ewc.WalletCryptoError as error:
            outcomes.append((name, None, error))
    codes = {error.code if error else None for _, _, error in outcomes}
    if len(codes) > 1:
        described = [f"{n} {'raised ' + e.code if e else 'succeeded'}" for n, _, e in outcomes]
        raise Mismatch("; ".join(described))
    first_error = outcomes[0][2]
    if first_error is not None:
        raise first_error
    return [value for _, value, _ in outcomes if value is not None]


def input_bool(inputs: Inputs, name: str) -> bool:
    value = inputs.get(name)
    if not isinstance(value, bool):
        raise MalformedCase(f"input {name!r} must be true or false")
    return value
