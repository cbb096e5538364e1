"""A quote's SCA challenge is used once, decided in the database shared by two ``ewc serve``
processes (SQLite and PostgreSQL): the same proof sent to both at the same moment releases the
held send once; the other authorization is refused, and the source is debited once.

The proof is the sandbox's published code ``123456``, which the code store does not use up:
what decides is the challenge's own single use (``sca_login.claim_pending``), in the
transaction that releases the send. ``EWC_QUOTE_SCA_RACE_ROUNDS`` sets the rounds (10 by
default)."""

from __future__ import annotations

import os
from collections import Counter

from ._client import SandboxClient
from ._pair import pair_fixtures, race
from ._payments import accounts, balance, fund, usd_external
from .test_sca import eu_customer

ROUNDS = int(os.environ.get("EWC_QUOTE_SCA_RACE_ROUNDS", "10"))
FUNDS = 1_000_000
AMOUNT = 10_000


pair = pair_fixtures("quote-sca-races", "qscarace")


def test_one_proof_releases_a_held_send_once_across_two_processes(
    clients: list[SandboxClient],
) -> None:
    outcomes: Counter[str] = Counter()
    doubled = 0
    for _ in range(ROUNDS):
        customer_id = eu_customer(clients[0], currencies=["EUR", "USD"])
        eur = accounts(clients[0], customer_id)["EUR"]["id"]
        fund(clients[0], eur, FUNDS)
        bank = usd_external(clients[0], customer_id, "001")["id"]
        made = clients[0].post(
            "/quotes",
            {
                "source": {"sourceType": "ACCOUNT", "accountId": eur},
                "destination": {"destinationType": "ACCOUNT", "accountId": bank},
                "lockedCurrencySide": "SENDING",
                "lockedCurrencyAmount": AMOUNT,
            },
        )
        assert made.status_code == 201, made.text
        path = f"/quotes/{made.json()['id']}"
        held = clients[0].post(f"{path}/execute")
        assert held.json()["status"] == "PENDING_AUTHORIZATION", held.text
        answers = race(
            [lambda c=c, p=path: c.post(f"{p}/authorize", {"code": "123456"}) for c in clients]
        )
        statuses = sorted(a.status_code for a in answers)
        outcomes.update(f"{a.status_code} {a.json().get('code', '')}" for a in answers)
        debited = FUNDS - balance(clients[0], customer_id, "EUR")
        if statuses == [200, 200] or debited != AMOUNT:
            doubled += 1
            continue
        assert statuses[0] == 200 and statuses[1] in (400, 409), [a.text for a in answers]
        (refused,) = (a.json() for a in answers if a.status_code != 200)
        assert refused["code"] in ("CHALLENGE_NOT_FOUND", "NO_PENDING_CHALLENGE"), refused
    assert doubled == 0, f"{doubled} of {ROUNDS} held sends released twice ({dict(outcomes)})"
