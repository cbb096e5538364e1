"""A card funding source has at most one ACTIVE delegated key, decided in the database shared
by two ``ewc serve`` processes (SQLite and PostgreSQL): two keys of one funding source, each
past its second leg, take their third legs at the same moment through the two processes; one
is activated (201), the other refused 409 ``DELEGATED_KEY_ALREADY_ACTIVE``.

``EWC_DELEGATED_RACE_ROUNDS`` sets the rounds (10 by default)."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import embedded_wallet_crypto as ewc

from ._client import SandboxClient
from ._flows import Wallet
from ._pair import pair_fixtures, race
from ._server import SandboxServer

ROUNDS = int(os.environ.get("EWC_DELEGATED_RACE_ROUNDS", "10"))
PATH = "/auth/delegated-keys"


pair = pair_fixtures("delegated-races", "dkrace")


def _to_third_leg(
    client: SandboxClient, body: dict[str, Any], key: ewc.KeyPair
) -> tuple[dict[str, Any], str]:
    """Legs one and two; the third leg's challenge and stamp."""
    first = client.post(PATH, body).json()
    stamp = ewc.create_stamp(first["payloadToSign"], key)
    second = client.retry("POST", PATH, body, first, stamp)
    assert second.status_code == 202, second.text
    challenge = second.json()
    return challenge, ewc.create_stamp(challenge["payloadToSign"], key)


def test_one_active_key_per_funding_source(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    outcomes: Counter[str] = Counter()
    doubled = 0
    for round_number in range(ROUNDS):
        wallet = Wallet(clients[0], pair[0])
        _, key = wallet.first_login()
        body = {
            "cardId": wallet.card()["id"],
            "internalAccountId": wallet.account_id,
            "nickname": f"Card key {round_number}",
        }
        legs = [_to_third_leg(clients[0], body, key) for _ in clients]
        answers = race(
            [
                lambda c=c, leg=leg, b=body: c.retry("POST", PATH, b, leg[0], leg[1])
                for c, leg in zip(clients, legs, strict=True)
            ]
        )
        outcomes.update(f"{a.status_code} {a.json().get('code', '')}" for a in answers)
        statuses = sorted(a.status_code for a in answers)
        if statuses == [201, 201]:
            doubled += 1
            continue
        assert statuses == [201, 409], [a.text for a in answers]
        (refused,) = (a.json() for a in answers if a.status_code == 409)
        assert refused["code"] == "DELEGATED_KEY_ALREADY_ACTIVE"
        listed = clients[1].get(PATH, params={"accountId": wallet.account_id}).json()["data"]
        assert sorted(k["status"] for k in listed) == ["ACTIVE", "PENDING"]
    assert doubled == 0, f"{doubled} of {ROUNDS} funding sources got two ACTIVE keys {outcomes}"
