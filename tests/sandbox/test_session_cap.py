"""An account keeps at most ``MAX_ACTIVE_SESSIONS`` active sessions: a login past them ends the
oldest (Turnkey's rule for a user's expiring API keys), decided under the account's lock, so
that concurrent logins through two ``ewc serve`` processes (SQLite and PostgreSQL) never leave
more. Without the cap, every login of a hostile client would grow the list that each signed
request of the account reads.

A session is refreshed once: two refreshes of one session (each its own stamped retry) sent at
once, one to each process, leave one new session (201); the other is refused 401
``UNAUTHORIZED``, its session having ended (decided under the account's lock).
``EWC_RACE_ROUNDS`` sets that race's rounds (10 by default)."""

from __future__ import annotations

import os
from functools import partial
from typing import Any

import embedded_wallet_crypto as ewc
from embedded_wallet_crypto.sandbox.domain.wallet import MAX_ACTIVE_SESSIONS

from ._client import SandboxClient
from ._flows import Wallet
from ._pair import pair_fixtures, race
from ._server import SandboxServer

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "10"))

pair = pair_fixtures("session-cap", "sessioncap")


def _login_body(client: ewc.KeyPair | None = None) -> dict[str, Any]:
    """An EMAIL_OTP login with the sandbox's code and a (fresh) client key."""
    public = (client or ewc.KeyPair.generate()).public_key_hex()
    return {"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": public}


def _active(client: SandboxClient, account_id: str) -> list[str]:
    listed = client.get("/auth/sessions", params={"accountId": account_id})
    assert listed.status_code == 200, listed.text
    return [session["id"] for session in listed.json()["data"]]


def _logins(
    clients: list[SandboxClient], wallet: Wallet, count: int
) -> tuple[list[str], list[ewc.KeyPair]]:
    """``count`` logins of a new EMAIL_OTP credential of ``wallet``, one after another,
    through either process in turn: the sessions' ids and keys, oldest first."""
    credential = wallet.add("EMAIL_OTP")
    path = f"/auth/credentials/{credential['id']}/verify"
    made, keys = [], []
    for n in range(count):
        client = ewc.KeyPair.generate()
        login = clients[n % 2].post(path, _login_body(client))
        assert login.status_code == 200, login.text
        made.append(login.json()["id"])
        keys.append(ewc.open_session_key(login.json()["encryptedSessionSigningKey"], client))
    return made, keys


def test_a_login_past_the_cap_ends_the_oldest_session(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    wallet = Wallet(clients[0], pair[0])
    made, keys = _logins(clients, wallet, MAX_ACTIVE_SESSIONS + 2)
    assert _active(clients[1], wallet.account_id) == made[2:]
    # The ended session no longer signs; the oldest one left still does.
    revoke = f"/auth/sessions/{made[2]}"
    _, refused = clients[0].signed_retry("DELETE", revoke, key=keys[0])
    assert (refused.status_code, refused.json()["code"]) == (401, "UNAUTHORIZED"), refused.text
    _, revoked = clients[1].signed_retry("DELETE", revoke, key=keys[2])
    assert revoked.status_code == 204, revoked.text


def test_a_refresh_at_the_cap_takes_its_own_session_place(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    """Refreshing a session of a full account ends that session, not the oldest one."""
    wallet = Wallet(clients[0], pair[0])
    made, keys = _logins(clients, wallet, MAX_ACTIVE_SESSIONS)
    refresh = f"/auth/sessions/{made[5]}/refresh"
    body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
    _, refreshed = clients[1].signed_retry("POST", refresh, body, key=keys[5])
    assert refreshed.status_code == 201, refreshed.text
    expected = made[:5] + made[6:] + [refreshed.json()["id"]]
    assert _active(clients[0], wallet.account_id) == expected


def test_concurrent_logins_through_two_processes_leave_the_cap(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    """Twice the cap, at once, half through each process: all log in, the cap holds."""
    over = []
    for _ in range(3):
        wallet = Wallet(clients[0], pair[0])
        credential = wallet.add("EMAIL_OTP")
        path = f"/auth/credentials/{credential['id']}/verify"
        answers = race(
            [lambda c=c, p=path: c.post(p, _login_body()) for c in clients * MAX_ACTIVE_SESSIONS]
        )
        assert all(answer.status_code == 200 for answer in answers), [a.text for a in answers]
        active = _active(clients[1], wallet.account_id)
        if len(active) != MAX_ACTIVE_SESSIONS:
            over.append(len(active))
    assert not over, f"active sessions after the race: {over}"


def test_a_session_is_refreshed_once(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    wrong: list[object] = []
    for _ in range(ROUNDS):
        wallet = Wallet(clients[0], pair[0])
        (session,), (key,) = _logins(clients, wallet, 1)
        path = f"/auth/sessions/{session}/refresh"
        retries = []
        for client in clients:
            body = {"clientPublicKey": ewc.KeyPair.generate().public_key_hex()}
            first = client.post(path, body)
            assert first.status_code == 202, first.text
            challenge = first.json()
            retries.append((body, challenge, ewc.create_stamp(challenge["payloadToSign"], key)))
        answers = race(
            [
                partial(c.retry, "POST", path, *retry)
                for c, retry in zip(clients, retries, strict=True)
            ]
        )
        outcomes = sorted(
            "201" if a.status_code == 201 else f"{a.status_code} {a.json().get('code')}"
            for a in answers
        )
        active = _active(clients[1], wallet.account_id)
        if outcomes != ["201", "401 UNAUTHORIZED"] or len(active) != 1:
            wrong.append((outcomes, len(active)))
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds (answers, active sessions): {wrong[:3]}"
