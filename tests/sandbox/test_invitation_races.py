"""An invitation is decided once, on SQLite and PostgreSQL, with two ``ewc serve`` processes on
one database: a claim and a cancellation of one PENDING invitation, sent at once one to each
process (which one to which alternates by round), make one decision under the invitation's
lock. One answers 200, the other is refused 400 ``INVITATION_NOT_PENDING``, and the invitation
is stored as the one that answered 200 says: CLAIMED with its invitee, or CANCELLED.

``EWC_INVITATION_RACE_ROUNDS`` sets the rounds (20 by default)."""

from __future__ import annotations

import os
from collections import Counter
from functools import partial

from ._client import SandboxClient
from ._pair import outcome, pair_fixtures, race

ROUNDS = int(os.environ.get("EWC_INVITATION_RACE_ROUNDS", "20"))
INVITER = "$race.inviter@sandbox.test"
INVITEE = "$race.invitee@sandbox.test"


pair = pair_fixtures("invitation-races", "invite")


def test_a_claim_and_a_cancellation_at_once_decide_once(clients: list[SandboxClient]) -> None:
    clients[0].create_customer(umaAddress=INVITER)
    wrong: list[object] = []
    decided: Counter[str] = Counter()
    for round_ in range(ROUNDS):
        created = clients[0].post("/invitations", {"inviterUma": INVITER})
        assert created.status_code == 201, created.text
        path = f"/invitations/{created.json()['code']}"
        claimer, canceller = clients[round_ % 2], clients[1 - round_ % 2]
        claim, cancel = race(
            [
                partial(claimer.post, f"{path}/claim", {"inviteeUma": INVITEE}),
                partial(canceller.post, f"{path}/cancel"),
            ]
        )
        outcomes = (outcome(claim, 200), outcome(cancel, 200))
        stored = clients[1].get(path).json()
        if outcomes == ("200", "400 INVITATION_NOT_PENDING"):
            decided["claimed"] += 1
            ok = stored["status"] == "CLAIMED" and stored.get("inviteeUma") == INVITEE
        elif outcomes == ("400 INVITATION_NOT_PENDING", "200"):
            decided["cancelled"] += 1
            ok = stored["status"] == "CANCELLED"
        else:
            ok = False
        if not ok:
            wrong.append((outcomes, stored["status"]))
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds: {wrong[:4]} ({dict(decided)})"
