"""The quote tests' server and customer: ``ewc serve`` with time scaled so the six-minute
outcome takes seconds (one per module and backend), a customer with USD and EUR accounts (EUR
funded), and a quote's request body."""

from __future__ import annotations

from typing import Any

import pytest

from ._client import SandboxClient
from ._payments import accounts, fund
from .conftest import server_fixture

__all__ = ["customer", "quote_body", "server"]


#: Quotes live 5 simulated minutes (9 s here); suffix 003 completes after 6 (10.8 s).
TIME_SCALE = 0.03


server = server_fixture("quotes", time_scale=TIME_SCALE, oidc=True)


@pytest.fixture
def customer(client: SandboxClient) -> dict[str, Any]:
    made = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, made["id"])
    fund(client, found["EUR"]["id"], 1_000_000)
    return {"id": made["id"], **{name: a["id"] for name, a in found.items()}}


def quote_body(source: str, destination: str, **extra: Any) -> dict[str, Any]:
    return {
        "source": {"sourceType": "ACCOUNT", "accountId": source},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 10_000,
        **extra,
    }
