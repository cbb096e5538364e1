"""The Currency objects of the interface ({code, name, symbol, decimals})."""

from __future__ import annotations

from typing import Any

__all__ = ["currency", "is_currency_code"]

_KNOWN: dict[str, tuple[str, str, int]] = {
    "USD": ("United States Dollar", "$", 2),
    "EUR": ("Euro", "€", 2),
    "GBP": ("Pound Sterling", "£", 2),
    "MXN": ("Mexican Peso", "$", 2),
    "BRL": ("Brazilian Real", "R$", 2),
    "CAD": ("Canadian Dollar", "$", 2),
    "INR": ("Indian Rupee", "₹", 2),
    "NGN": ("Nigerian Naira", "₦", 2),
    "PHP": ("Philippine Peso", "₱", 2),
    "USDC": ("USD Coin", "USDC", 6),
    "USDT": ("Tether USD", "USDT", 6),
    "BTC": ("Bitcoin", "₿", 8),
}


def is_currency_code(code: str) -> bool:
    """ISO 4217 (three capital letters) or a crypto ticker (up to five capitals)."""
    return 3 <= len(code) <= 5 and code.isascii() and code.isalpha() and code.isupper()


def currency(code: str) -> dict[str, Any]:
    name, symbol, decimals = _KNOWN.get(code, (code, code, 2))
    return {"code": code, "name": name, "symbol": symbol, "decimals": decimals}
