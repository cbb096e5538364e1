"""The account rules under concurrency, on SQLite and PostgreSQL, with two ``ewc serve``
processes on one database, each request of a race sent to either process:

- only an account's first credential is created unsigned (two first credentials at once: one
  is created, the other gets the signed-retry challenge it would get a moment later);
- an account keeps at least one credential (two credentials revoking each other at once: one
  is revoked, the other revoke is refused LAST_CREDENTIAL), so no unsigned credential can be
  added afterwards;
- a session that was revoked no longer signs, also when the revoke commits while a retry it
  signed is being decided (two sessions revoking each other at once: one is revoked);
- of concurrent executions of one agent quote, exactly one leaves an AgentAction (the others
  are refused with a stable code and leave nothing behind).

``EWC_RACE_ROUNDS`` sets the rounds of the credential races (20 by default),
``EWC_AGENT_RACE_ROUNDS`` those of the agent race (3 by default).
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
from ._identity import oidc_arguments
from ._pair import race, running_pair
from ._server import SandboxServer
from .conftest import database_url
from .test_sandbox_backends import funded_customer

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "20"))
AGENT_ROUNDS = int(os.environ.get("EWC_AGENT_RACE_ROUNDS", "3"))


@pytest.fixture(scope="module")
def pair(
    backend: str,
    jwks_url: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two ``ewc serve`` processes on one database."""
    with running_pair(
        tmp_path_factory.mktemp(f"account-races-{backend}"),
        database_url(request, backend, "races"),
        extra=oidc_arguments(jwks_url),
    ) as servers:
        yield servers


def _credentials(client: SandboxClient, account_id: str) -> list[dict[str, Any]]:
    listed = client.get("/auth/credentials", params={"accountId": account_id})
    assert listed.status_code == 200, listed.text
    data: list[dict[str, Any]] = listed.json()["data"]
    return data


def test_two_first_credentials_at_once_create_one(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    """EMAIL_OTP and PASSKEY, unsigned, at the same moment through the two processes: one is
    created (201), the other is answered the challenge of a further credential (202)."""
    doubled = []
    for _ in range(ROUNDS):
        wallet = Wallet(clients[0], pair[0])
        bodies = [wallet.body("EMAIL_OTP"), wallet.body("PASSKEY")]
        answers = race(
            [
                lambda c=c, b=b: c.post("/auth/credentials", b)
                for c, b in zip(clients, bodies, strict=True)
            ]
        )
        listed = _credentials(clients[1], wallet.account_id)
        if len(listed) != 1:
            doubled.append([r.status_code for r in answers])
            continue
        assert sorted(r.status_code for r in answers) == [201, 202], [r.text for r in answers]
        (created,) = (r.json() for r in answers if r.status_code == 201)
        (challenge,) = (r.json() for r in answers if r.status_code == 202)
        assert listed[0]["id"] == created["id"]
        assert challenge["type"] != created["type"]
        assert challenge["requestId"].startswith("Request:")
    assert not doubled, f"{len(doubled)} of {ROUNDS} accounts got two unsigned credentials"


def _two_credentials(wallet: Wallet) -> list[tuple[dict[str, Any], ewc.KeyPair]]:
    """EMAIL_OTP (the first) and PASSKEY (signed), each with a session of its own."""
    email = wallet.add("EMAIL_OTP")
    _, email_key = wallet.login(email)
    passkey = wallet.add("PASSKEY", signer=email_key)
    _, passkey_key = wallet.login(passkey)
    return [(email, email_key), (passkey, passkey_key)]


def _loser(response: httpx.Response) -> bool:
    """The answer of the revoke that lost: LAST_CREDENTIAL when it was decided after the other
    one, or, when it was verified after the other one, its signing session (of the credential
    the other revoked) no longer signs."""
    body = response.json()
    if response.status_code == 400:
        return bool(body["code"] == "LAST_CREDENTIAL")
    return response.status_code == 401 and body["reason"] == "Invalid Service-Wallet-Signature"


def test_two_credentials_revoking_each_other_leave_one(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    """Each credential revoked by a retry signed by a session of the other, both retries at
    once through the two processes: one is revoked (204), the other revoke is refused; the
    account keeps one credential, so a new credential still needs a signed retry (202, not
    201)."""
    emptied = []
    unsigned = []
    losers: Counter[str] = Counter()
    for _ in range(ROUNDS):
        wallet = Wallet(clients[0], pair[0])
        both = _two_credentials(wallet)
        retries = []
        for (target, _), (_, signer) in zip(both, reversed(both), strict=True):
            path = f"/auth/credentials/{target['id']}"
            first = clients[0].request("DELETE", path)
            assert first.status_code == 202, first.text
            challenge = first.json()
            stamp = ewc.create_stamp(challenge["payloadToSign"], signer)
            retries.append((path, challenge, stamp))
        answers = race(
            [
                lambda c=c, r=r: c.retry("DELETE", r[0], None, r[1], r[2])
                for c, r in zip(clients, retries, strict=True)
            ]
        )
        listed = _credentials(clients[1], wallet.account_id)
        revoked = [c for c, _ in both if c["id"] not in {kept["id"] for kept in listed}]
        if not listed:
            emptied.append([r.status_code for r in answers])
        else:
            assert len(listed) == 1 and len(revoked) == 1, listed
            lost = [r for r in answers if r.status_code != 204]
            assert len(lost) == 1 and _loser(lost[0]), [r.text for r in answers]
            losers[lost[0].json()["code"]] += 1
        again = clients[1].post("/auth/credentials", wallet.body(revoked[0]["type"]))
        if again.status_code == 201:
            unsigned.append(again.json()["id"])
        else:
            assert again.status_code == 202, again.text
    print(f"the revokes that lost, by code: {dict(losers)}")  # shown with -s
    assert not emptied and not unsigned, (
        f"{len(emptied)} of {ROUNDS} accounts were left with no credential, "
        f"and {len(unsigned)} unsigned credentials were added to them"
    )


def test_two_sessions_revoking_each_other_leave_one(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    """Two sessions, each revoked by a retry signed by the other, both retries at once through
    the two processes: one is revoked (204); the other retry's signing session has ended, so it
    is refused 401 as it would be a moment later, and the account keeps one session."""
    both_revoked = []
    for _ in range(ROUNDS):
        wallet = Wallet(clients[0], pair[0])
        passkey = wallet.add("PASSKEY")
        both = [wallet.login(passkey) for _ in range(2)]
        retries = []
        for (target, _), (_, signer) in zip(both, reversed(both), strict=True):
            path = f"/auth/sessions/{target['id']}"
            first = clients[0].request("DELETE", path)
            assert first.status_code == 202, first.text
            challenge = first.json()
            retries.append((path, challenge, ewc.create_stamp(challenge["payloadToSign"], signer)))
        answers = race(
            [
                lambda c=c, r=r: c.retry("DELETE", r[0], None, r[1], r[2])
                for c, r in zip(clients, retries, strict=True)
            ]
        )
        listed = clients[1].get("/auth/sessions", params={"accountId": wallet.account_id})
        if not listed.json()["data"]:
            both_revoked.append([r.status_code for r in answers])
            continue
        assert sorted(r.status_code for r in answers) == [204, 401], [r.text for r in answers]
        lost = next(r.json() for r in answers if r.status_code == 401)
        assert lost["reason"] == "Invalid Service-Wallet-Signature", lost
    assert not both_revoked, f"{len(both_revoked)} of {ROUNDS} rounds revoked both sessions"


# --- agent submissions -----------------------------------------------------------------------

_POLICY = {
    "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES", "VIEW_TRANSACTIONS"],
    "defaultExecutionMode": "AUTO",
    "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000_000_00},
}


@pytest.mark.parametrize(
    ("threshold", "status", "refusal"),
    [
        (1_000_000_00, "APPROVED", "QUOTE_ALREADY_EXECUTED"),
        (1_00, "PENDING_APPROVAL", "QUOTE_PENDING_APPROVAL"),
    ],
    ids=["auto", "approval"],
)
def test_concurrent_executions_of_an_agent_quote_leave_one_action(
    pair: tuple[SandboxServer, SandboxServer],
    clients: list[SandboxClient],
    threshold: int,
    status: str,
    refusal: str,
) -> None:
    """Sixteen executions of one agent quote at once, eight through each process: one
    AgentAction (APPROVED, or PENDING_APPROVAL above the approval threshold); the fifteen
    others are refused 409 and leave no action."""
    customer = funded_customer(clients[0], usd=1_000_000_00)
    policy = {**_POLICY, "approvalThresholds": {"currency": "USD", "amount": threshold}}
    created = clients[0].post(
        "/agents", {"name": "racer", "customerId": customer["id"], "policy": policy}
    )
    assert created.status_code == 201, created.text
    code = created.json()["deviceCode"]["code"]
    token = httpx.post(f"{pair[0].base_url}/agents/device-codes/{code}/redeem").json()
    headers = {"Authorization": f"Bearer {token['accessToken']}"}
    agents = [httpx.Client(base_url=server.base_url, headers=headers) for server in pair]
    try:
        for _ in range(AGENT_ROUNDS):
            quote = agents[0].post(
                "/agents/me/quotes",
                json={
                    "source": {"sourceType": "ACCOUNT", "accountId": customer["USD"]},
                    "destination": {"destinationType": "ACCOUNT", "accountId": customer["EUR"]},
                    "lockedCurrencySide": "SENDING",
                    "lockedCurrencyAmount": 10_00,
                },
            )
            assert quote.status_code == 201, quote.text
            path = f"/agents/me/quotes/{quote.json()['id']}/execute"
            answers = race([lambda a=a, p=path: a.post(p) for a in agents * 8])
            listed = agents[1].get("/agents/me/actions", params={"limit": 100}).json()["data"]
            mine = [a for a in listed if a["quote"]["id"] == quote.json()["id"]]
            assert Counter(a["status"] for a in mine) == {status: 1}, Counter(
                a["status"] for a in mine
            )
            assert Counter(r.status_code for r in answers) == {200: 1, 409: 15}
            (accepted,) = (r.json() for r in answers if r.status_code == 200)
            assert accepted["id"] == mine[0]["id"] and accepted["status"] == status
            codes = {r.json()["code"] for r in answers if r.status_code == 409}
            assert codes == {refusal}, codes
    finally:
        for agent in agents:
            agent.close()
