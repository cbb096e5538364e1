"""A TOTP code is accepted once, decided in the database shared by two ``ewc serve``
processes (SQLite and PostgreSQL): the same code sent to both at the same moment logs in
once; the other login is refused ``TOTP_REPLAYED``.

``EWC_SCA_RACE_ROUNDS`` sets the rounds (10 by default)."""

from __future__ import annotations

import os
import time
from collections import Counter

from ._client import SandboxClient
from ._pair import pair_fixtures, race
from .test_sca import IP, enroll_totp, eu_customer, rfc6238

ROUNDS = int(os.environ.get("EWC_SCA_RACE_ROUNDS", "10"))


pair = pair_fixtures("sca-races", "scarace")


def test_one_totp_code_logs_in_once_across_two_processes(clients: list[SandboxClient]) -> None:
    """Each round: a new customer's TOTP factor (its first code confirms it), then the code of
    the next time step (inside the window of one step) through both processes at once."""
    outcomes: Counter[str] = Counter()
    doubled = 0
    for _ in range(ROUNDS):
        customer_id = eu_customer(clients[0])
        key = enroll_totp(clients[0], customer_id)
        params = {"customerId": customer_id}
        for client in clients:
            started = client.post("/sca/login/start", {"factor": "TOTP"}, params=params)
            assert started.status_code == 200, started.text
        code = rfc6238(key, time.time() + 30)
        body = {"factor": "TOTP", "code": code, "endUserIpAddress": IP}
        answers = race(
            [
                lambda c=c, b=body, p=params: c.post("/sca/login/complete", b, params=p)
                for c in clients
            ]
        )
        statuses = sorted(a.status_code for a in answers)
        outcomes.update(f"{a.status_code} {a.json().get('code', '')}" for a in answers)
        if statuses == [200, 200]:
            doubled += 1
            continue
        assert statuses == [200, 400], [a.text for a in answers]
        (refused,) = (a.json() for a in answers if a.status_code == 400)
        assert refused["code"] == "TOTP_REPLAYED", refused
    assert doubled == 0, f"{doubled} of {ROUNDS} codes logged in twice ({dict(outcomes)})"
