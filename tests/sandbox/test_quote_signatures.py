"""An embedded wallet's quote is paid with a stamp of its ``payloadToSign``, and that stamp is
used once: the payload is a signed-retry challenge of the library's ``SignedRetry``, and the
execution claims its request id in the same store, by the same atomic claim, as every other
signed payload. On SQLite and PostgreSQL, with two ``ewc serve`` processes on one database:

- a refused execution (no stamp, a stranger's stamp, a wallet that is short) leaves the stamp
  usable; the same stamp then pays, once;
- a stamp an agent's submission used (its action waits for approval) pays nothing else: the
  platform's execute with it is refused, and the approval executes the quote once;
- one stamp sent at once through both paths that take it (the platform's ``/quotes/{id}/execute``
  and the agent's ``/agents/me/quotes/{id}/execute``, whose policy holds the action for
  approval) is used by exactly one request: either the quote is executed or one action waits,
  never both; the others are refused 409 and leave nothing behind.

``EWC_STAMP_RACE_ROUNDS`` sets the rounds of the race (4 by default).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest

from ._client import SandboxClient
from ._flows import Wallet
from ._pair import race
from ._payments import balance, fund, owner_of
from ._server import SandboxServer
from .test_sandbox_account_races import pair

__all__ = ["pair"]  # the fixture: two processes on one database (clients: the conftest's)

ROUNDS = int(os.environ.get("EWC_STAMP_RACE_ROUNDS", "4"))
FUND = 50_000_000  # 50 USDC

_POLICY = {
    "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES", "VIEW_TRANSACTIONS"],
    "defaultExecutionMode": "APPROVAL_REQUIRED",
    "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000_000_00},
}


def _quote(client: httpx.Client, path: str, wallet: str, usd: str) -> Any:
    response = client.post(
        path,
        json={
            "source": {"sourceType": "ACCOUNT", "accountId": wallet},
            "destination": {"destinationType": "ACCOUNT", "accountId": usd},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": 1_000,
        },
    )
    assert response.status_code == 201, response.text
    return response.json()


def _stamped(quote: dict[str, Any], key: ewc.KeyPair) -> dict[str, str]:
    (instruction,) = quote["paymentInstructions"]
    return {"Service-Wallet-Signature": ewc.create_stamp(instruction["payloadToSign"], key)}


@pytest.fixture
def wallet(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> Iterator[tuple[Wallet, ewc.KeyPair, str, str]]:
    """A wallet with a session key; its customer and the customer's USD account."""
    made = Wallet(clients[0], pair[0])
    _, key = made.first_login("EMAIL_OTP")
    customer = owner_of(clients[0], made.account_id)
    listed = clients[0].get("/customers/internal-accounts", params={"customerId": customer})
    (usd,) = [a["id"] for a in listed.json()["data"] if a["type"] == "INTERNAL_FIAT"]
    yield made, key, customer, usd


def test_a_refused_execution_leaves_the_stamp_usable(
    clients: list[SandboxClient], wallet: tuple[Wallet, ewc.KeyPair, str, str]
) -> None:
    made, key, customer, usd = wallet
    quote = _quote(clients[0].http, "/quotes", made.account_id, usd)
    path = f"/quotes/{quote['id']}/execute"
    stamp = _stamped(quote, key)
    missing = clients[1].post(path)
    assert (missing.status_code, missing.json()["code"]) == (401, "UNAUTHORIZED")
    stranger = clients[0].post(path, headers=_stamped(quote, ewc.KeyPair.generate()))
    assert (stranger.status_code, stranger.json()["code"]) == (401, "UNAUTHORIZED")
    short = clients[1].post(path, headers=stamp)  # the wallet holds nothing yet
    assert (short.status_code, short.json()["code"]) == (400, "INSUFFICIENT_FUNDS")
    fund(clients[0], made.account_id, FUND)
    paid = clients[0].post(path, headers=stamp)
    assert paid.status_code == 200, paid.text
    again = clients[1].post(path, headers=stamp)
    assert (again.status_code, again.json()["code"]) == (409, "QUOTE_ALREADY_EXECUTED")
    assert balance(clients[0], customer, "WALLET") == FUND - quote["totalSendingAmount"]


def _agent(
    pair: tuple[SandboxServer, SandboxServer], client: SandboxClient, customer: str
) -> list[httpx.Client]:
    """An agent of ``customer`` whose policy holds every action for approval: a client of it
    on each process."""
    created = client.post("/agents", {"name": "racer", "customerId": customer, "policy": _POLICY})
    assert created.status_code == 201, created.text
    code = created.json()["deviceCode"]["code"]
    token = httpx.post(f"{pair[0].base_url}/agents/device-codes/{code}/redeem").json()
    headers = {"Authorization": f"Bearer {token['accessToken']}"}
    return [httpx.Client(base_url=server.base_url, headers=headers) for server in pair]


def test_a_stamp_held_for_approval_pays_nothing_else(
    pair: tuple[SandboxServer, SandboxServer],
    clients: list[SandboxClient],
    wallet: tuple[Wallet, ewc.KeyPair, str, str],
) -> None:
    """The agent's submission used the stamp (its action waits for approval): the same stamp
    on the platform's execute is refused, and the approval then executes the quote, once."""
    made, key, customer, usd = wallet
    fund(clients[0], made.account_id, FUND)
    agents = _agent(pair, clients[0], customer)
    try:
        quote = _quote(agents[0], "/agents/me/quotes", made.account_id, usd)
        stamp = _stamped(quote, key)
        held = agents[1].post(f"/agents/me/quotes/{quote['id']}/execute", headers=stamp)
        assert held.status_code == 200 and held.json()["status"] == "PENDING_APPROVAL", held.text
        replayed = clients[0].post(f"/quotes/{quote['id']}/execute", headers=stamp)
        assert (replayed.status_code, replayed.json()["code"]) == (409, "QUOTE_ALREADY_EXECUTED")
        assert balance(clients[1], customer, "WALLET") == FUND
        action = held.json()
        approved = clients[1].post(f"/agents/{action['agentId']}/actions/{action['id']}/approve")
        assert approved.status_code == 200 and approved.json()["status"] == "APPROVED"
        assert balance(clients[0], customer, "WALLET") == FUND - quote["totalSendingAmount"]
    finally:
        for agent in agents:
            agent.close()


def test_one_stamp_pays_once_through_either_path(
    pair: tuple[SandboxServer, SandboxServer],
    clients: list[SandboxClient],
    wallet: tuple[Wallet, ewc.KeyPair, str, str],
) -> None:
    """Each round: a new quote of the agent, its stamp sent four times through the platform's
    execute and four times through the agent's, half to each process, at once."""
    made, key, customer, usd = wallet
    fund(clients[0], made.account_id, FUND)
    agents = _agent(pair, clients[0], customer)
    spent = 0
    try:
        for _ in range(ROUNDS):
            quote = _quote(agents[0], "/agents/me/quotes", made.account_id, usd)
            stamp = _stamped(quote, key)
            platform = f"/quotes/{quote['id']}/execute"
            own = f"/agents/me/quotes/{quote['id']}/execute"
            answers = race(
                [lambda c=c, p=platform, s=stamp: c.post(p, headers=s) for c in clients * 2]
                + [lambda a=a, p=own, s=stamp: a.post(p, headers=s) for a in agents * 2]
            )
            used = [r for r in answers if r.status_code == 200]
            assert len(used) == 1, [(r.status_code, r.text[:120]) for r in answers]
            for refused in answers:
                if refused.status_code != 200:
                    assert refused.status_code == 409, refused.text
                    assert refused.json()["code"] in (
                        "QUOTE_ALREADY_EXECUTED",
                        "QUOTE_PENDING_APPROVAL",
                    ), refused.text
            listed = agents[1].get("/agents/me/actions", params={"limit": 100}).json()["data"]
            actions = Counter(a["status"] for a in listed if a["quote"]["id"] == quote["id"])
            executed = clients[1].get(f"/quotes/{quote['id']}").json()["status"] != "PENDING"
            if "/agents/me/" not in used[0].request.url.path:  # the platform's execution
                assert executed and not actions
                spent += quote["totalSendingAmount"]
            else:  # the agent's answer: one action waits, nothing executed
                assert actions == {"PENDING_APPROVAL": 1} and not executed
            assert balance(clients[1], customer, "WALLET") == FUND - spent
    finally:
        for agent in agents:
            agent.close()
