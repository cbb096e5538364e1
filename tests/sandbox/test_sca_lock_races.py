"""The SCA decisions made under a row lock, under concurrency, on SQLite and PostgreSQL, with two
``ewc serve`` processes on one database, the requests of each race sent to either:

- every failed proof counts toward the lockout: four wrong TOTP codes at once are each refused
  400 ``TOTP_INVALID``, and the next failure recorded is the fifth (``failedAttempts`` 5), which
  locks the customer (the counter is read and written under the SCA profile's lock);
- two confirmations of one beneficiary's trust, each with the challenge of one of two starts
  sent at once, decide one after the other: each is 200 ``{"trusted": true}``, or 400
  ``CHALLENGE_NOT_FOUND`` when the other start replaced its challenge, never a 500 of a trust
  stored twice. The customer's one factor is a passkey, so that no SMS code's rate limit stops
  the second start; two starts at once leave two outstanding challenges only where neither
  sees the other's (PostgreSQL). What serializes the two confirmations is the beneficiary's
  lock, and also the SCA profile's lock and the passkey's sign count written by each proof.

- a customer starts at most five 2FA resets a day, counted under the SCA profile's lock: with
  four started, four more at once leave one 201, the others 429 ``RATE_LIMITED``;
- an address is VERIFIED only by a code sent to it: the confirmation of a code sent to the
  email racing a change of the email, each through one process, leaves the new address
  unverified (the confirmation 200 before the change, 409 ``CONTACT_CHANGED`` when the change
  commits while it is decided, 400 ``OTP_NOT_ISSUED`` when it starts after; a code asked for the
  new address afterwards is sent, 204, never 409 ``ALREADY_VERIFIED``), decided under the
  customer's lock. (Not with the sandbox's published code: it verifies any address, so a
  confirmation that starts after the change rightly verifies the new one.)

``EWC_SCA_LOCK_RACE_ROUNDS`` sets the rounds of each race (10 by default; twice as many for the
contact's, whose rounds are short).
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from functools import partial

from ._client import SandboxClient, read_otp
from ._identity import ORIGIN, RP_ID
from ._pair import outcome, pair_fixtures, race
from ._payments import usd_external
from ._server import SandboxServer
from .test_sca import IP, enroll_totp, eu_customer
from .test_sca_flows import _b64, enroll_passkey

ROUNDS = int(os.environ.get("EWC_SCA_LOCK_RACE_ROUNDS", "10"))
WRONG = 4  # below the first lockout (5)


pair = pair_fixtures("sca-lock-races", "scalock")


def test_failed_proofs_at_once_all_count(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    counted: Counter[tuple[int, bool]] = Counter()
    for _ in range(ROUNDS):
        customer_id = eu_customer(clients[0])
        enroll_totp(clients[0], customer_id)
        params = {"customerId": customer_id}
        for client in clients:
            started = client.post("/sca/login/start", {"factor": "TOTP"}, params=params)
            assert started.status_code == 200, started.text
        body = {"factor": "TOTP", "code": "000001", "endUserIpAddress": IP}
        answers = race(
            [
                partial(clients[n % 2].post, "/sca/login/complete", body, params=params)
                for n in range(WRONG)
            ]
        )
        outcomes.update(outcome(answer, 200) for answer in answers)
        event = clients[1].post(
            "/sca/record-event", {"eventType": "FAILED_LOGIN_ATTEMPT"}, params=params
        )
        assert event.status_code == 200, event.text
        counted[(event.json()["failedAttempts"], event.json()["lockedUntil"] is not None)] += 1
    assert outcomes == {"400 TOTP_INVALID": WRONG * ROUNDS}, outcomes
    assert counted == {(WRONG + 1, True): ROUNDS}, f"(failedAttempts, locked) after 5: {counted}"


def test_two_trust_confirmations_at_once_trust_once(clients: list[SandboxClient]) -> None:
    """Each round: a new customer whose one factor is a passkey (a trust start sends no SMS
    code, so nothing rate-limits two starts at once), two starts at once, then each start's
    challenge confirmed by its own assertion, at once, one through each process."""
    outcomes: Counter[str] = Counter()
    both_outstanding = 0
    for round_ in range(ROUNDS):
        customer_id = clients[0].create_customer(region="DE", email="erika@example.com")["id"]
        device = enroll_passkey(clients[0], customer_id)
        account = usd_external(clients[0], customer_id, f"{round_:03d}")["id"]
        path = f"/customers/external-accounts/{account}/trust"
        starts = race([partial(c.post, path) for c in clients])
        assert all(s.status_code == 200 for s in starts), [s.text for s in starts]
        proofs = []
        for start in starts:
            challenge = start.json()["scaChallenge"]
            raw = _b64(challenge["passkeyAssertionOptions"]["challenge"])
            assertion = device.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=raw)
            proofs.append(
                {"challengeId": challenge["id"], "passkeyAssertion": assertion, "origin": ORIGIN}
            )
        answers = race(
            [partial(c.post, f"{path}/confirm", p) for c, p in zip(clients, proofs, strict=True)]
        )
        round_outcomes = Counter(outcome(answer, 200) for answer in answers)
        outcomes.update(round_outcomes)
        both_outstanding += round_outcomes["200"] == 2
        assert all(a.json() == {"trusted": True} for a in answers if a.status_code == 200)
    assert set(outcomes) <= {"200", "400 CHALLENGE_NOT_FOUND"}, (outcomes, both_outstanding)
    assert outcomes["200"] >= ROUNDS, (outcomes, both_outstanding)


def test_resets_at_once_stop_at_the_daily_limit(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    for _ in range(ROUNDS):
        customer_id = eu_customer(clients[0])
        enroll_totp(clients[0], customer_id)
        start = ("/sca/factors/reset", {"factor": "TOTP"})
        params = {"customerId": customer_id}
        for n in range(4):
            started = clients[n % 2].post(*start, params=params)
            assert started.status_code == 201, started.text
        answers = race([partial(clients[n % 2].post, *start, params=params) for n in range(4)])
        outcomes[str(sorted(outcome(answer, 201) for answer in answers))] += 1
    assert outcomes == {str(["201", *["429 RATE_LIMITED"] * 3]): ROUNDS}, outcomes


def test_a_confirmation_racing_a_contact_change_verifies_the_old_contact_only(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    outcomes: Counter[str] = Counter()
    wrong: list[object] = []
    for round_ in range(2 * ROUNDS):
        tag = uuid.uuid4().hex[:10]
        customer_id = eu_customer(clients[0], email=f"old-{tag}@example.com")
        path = f"/customers/{customer_id}"
        sent = clients[0].post(f"{path}/verify-email")
        assert sent.status_code == 204, sent.text
        code, _ = read_otp(pair[0].mail_dir, f"old-{tag}@example.com")
        change = {"customerType": "INDIVIDUAL", "email": f"new-{tag}@example.com"}
        confirm, changed = race(
            [
                partial(clients[round_ % 2].post, f"{path}/verify-email/confirm", {"code": code}),
                partial(clients[1 - round_ % 2].request, "PATCH", path, json=change),
            ]
        )
        assert changed.status_code == 200, changed.text
        outcomes[outcome(confirm, 200)] += 1
        again = clients[1].post(f"{path}/verify-email")
        if outcome(again, 204) != "204":
            wrong.append((outcome(confirm, 200), outcome(again, 204)))
    assert set(outcomes) <= {"200", "409 CONTACT_CHANGED", "400 OTP_NOT_ISSUED"}, outcomes
    assert not wrong, (
        f"{len(wrong)} of {2 * ROUNDS} new addresses left VERIFIED: {wrong[:3]} {outcomes}"
    )
