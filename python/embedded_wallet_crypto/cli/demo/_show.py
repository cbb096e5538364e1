"""What every ``ewc demo`` step shares: how it shows a line, how it fails, the shortened forms
of long values it prints, and the demo's organization and account."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc

__all__ = [
    "ACCOUNT_ID",
    "ORGANIZATION_ID",
    "WALLET_ID",
    "CheckFailed",
    "Show",
    "check",
    "rejected",
    "short",
    "short_json",
]

Show = Callable[[str], None]

ORGANIZATION_ID = "org-demo"
ACCOUNT_ID = "InternalAccount:demo"
WALLET_ID = "Wallet:demo"
_KEEP = 20  # characters kept at each end of a long value


class CheckFailed(Exception):
    """A demo step saw a wrong result."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def rejected(call: Callable[[], object], family: type[ewc.WalletCryptoError]) -> str:
    """The code of the ``family`` error that ``call`` must raise."""
    try:
        call()
    except family as error:
        return error.code
    raise CheckFailed(f"expected {family.__name__}, but the call succeeded")


def short(text: str) -> str:
    if len(text) <= 72:  # a compressed key (66 hex) stays whole
        return text
    return f"{text[:_KEEP]}...{text[-_KEEP // 2 :]} ({len(text)} chars)"


def short_json(value: Any) -> str:
    """Compact JSON with long strings shortened, for display only."""

    def shorten(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: shorten(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [shorten(inner) for inner in item]
        return short(item) if isinstance(item, str) else item

    return json.dumps(shorten(value), separators=(",", ":"))
