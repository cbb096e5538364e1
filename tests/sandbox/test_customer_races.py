"""The customer side's invariants under concurrency, on SQLite and PostgreSQL, with two ``ewc
serve`` processes on one database, each request of a race sent to either:

- a 2FA reset completes once: completions at once leave one 204, the others 409
  ``RESET_ALREADY_COMPLETED``;
- a customer's beneficial owners stop at the cap: with one place left, inserts at once store
  exactly one (the others 409 ``COLLECTION_LIMIT_REACHED``);
- a business's owners never hold more than 100%, also when an owner's share is raised while
  another owner is added: a 40% owner raised to 60% and a new 50% owner, at once, one through
  each process: one is made, the other refused 400 ``INVALID_INPUT`` (both decided under the
  business's lock);
- two customers taking one email address at once (each by the signed retry its EMAIL_OTP
  credential needs): one does, the other is 409 ``EMAIL_OTP_EMAIL_ALREADY_EXISTS``.
- two customers updated to one new UMA address at once, one through each process: one gets it
  (200), the other is refused 409 ``UMA_ADDRESS_EXISTS`` (decided under the platform's lock:
  each update locks only its own customer's row);
- two creations with one new UMA address at once, one through each process: one customer is
  made (201), the other request is refused 409 ``UMA_ADDRESS_EXISTS``, and one customer has it;
- four updates of one customer at once, each of another detail (its full name, birth date,
  nationality, address), two through each process: all are made (200) and the customer keeps
  each (each rewrites the stored details under the customer's lock, so none loses another's).

``EWC_RACE_ROUNDS`` sets the rounds (10 by default; three times as many for the shares' race).
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from functools import partial
from typing import Any

import embedded_wallet_crypto as ewc

from ._client import SandboxClient
from ._flows import Wallet
from ._pair import outcome, pair_fixtures, race
from ._server import SandboxServer
from .test_kyc import PERSON, _owner
from .test_sca import enroll_totp, eu_customer

ROUNDS = int(os.environ.get("EWC_RACE_ROUNDS", "10"))
CAP = 25  # beneficial owners per customer


pair = pair_fixtures("customer-races", "cust")


def test_a_reset_completes_once(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    for _ in range(ROUNDS):
        customer_id = eu_customer(clients[0])
        enroll_totp(clients[0], customer_id)
        params = {"customerId": customer_id}
        started = clients[0].post("/sca/factors/reset", {"factor": "TOTP"}, params=params)
        assert started.status_code == 201, started.text
        path = f"/sca/factors/reset/{started.json()['resetId']}/complete"
        answers = race([partial(clients[i % 2].post, path, params=params) for i in range(4)])
        outcomes.update(outcome(answer, 204) for answer in answers)
    assert outcomes == {"204": ROUNDS, "409 RESET_ALREADY_COMPLETED": 3 * ROUNDS}, outcomes


def test_beneficial_owners_stop_at_the_cap(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    totals: Counter[int] = Counter()
    for _ in range(ROUNDS):
        business = clients[0].create_customer(customerType="BUSINESS")["id"]
        body = {
            "customerId": business,
            "roles": ["DIRECTOR"],
            "ownershipPercentage": 0,
            "personalInfo": PERSON,
        }
        for _ in range(CAP - 1):
            made = clients[0].post("/beneficial-owners", body)
            assert made.status_code == 201, made.text
        answers = race([partial(clients[i % 2].post, "/beneficial-owners", body) for i in range(4)])
        outcomes.update(outcome(answer, 201) for answer in answers)
        listed = clients[0].get("/beneficial-owners", params={"customerId": business, "limit": 100})
        totals[listed.json()["totalCount"]] += 1
    assert totals == {CAP: ROUNDS}, (totals, outcomes)
    assert outcomes == {"201": ROUNDS, "409 COLLECTION_LIMIT_REACHED": 3 * ROUNDS}, outcomes


def test_one_uma_address_goes_to_one_customer(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    doubled = 0
    for _ in range(ROUNDS):
        paths = [f"/customers/{clients[0].create_customer()['id']}" for _ in clients]
        body = {"customerType": "INDIVIDUAL", "umaAddress": f"$r{uuid.uuid4().hex[:8]}@uma.test"}
        answers = race(
            [
                partial(c.request, "PATCH", path, json=body)
                for c, path in zip(clients, paths, strict=True)
            ]
        )
        outcomes.update(outcome(answer, 200) for answer in answers)
        holders = [p for p in paths if clients[1].get(p).json()["umaAddress"] == body["umaAddress"]]
        doubled += len(holders) > 1
    assert doubled == 0, f"{doubled} of {ROUNDS} addresses went to two customers ({outcomes})"
    assert outcomes == {"200": ROUNDS, "409 UMA_ADDRESS_EXISTS": ROUNDS}, outcomes


def test_one_uma_address_is_created_once(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    holders: Counter[int] = Counter()
    for _ in range(ROUNDS):
        address = f"$c{uuid.uuid4().hex[:8]}@uma.test"
        body = {"customerType": "INDIVIDUAL", "currencies": ["USD"], "umaAddress": address}
        answers = race([partial(c.post, "/customers", body) for c in clients])
        outcomes.update(outcome(answer, 201) for answer in answers)
        listed = clients[1].get("/customers", params={"umaAddress": address})
        holders[listed.json()["totalCount"]] += 1
    assert holders == {1: ROUNDS}, (holders, outcomes)
    assert outcomes == {"201": ROUNDS, "409 UMA_ADDRESS_EXISTS": ROUNDS}, outcomes


def test_a_raised_share_and_a_new_owner_stay_within_100(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    over = []
    for round_ in range(3 * ROUNDS):  # short rounds, a narrow window on SQLite
        business = clients[0].create_customer(customerType="BUSINESS")["id"]
        first = _owner(clients[0], business, 40)
        assert first.status_code == 201, first.text
        raise_to_60 = {"ownershipPercentage": 60}
        raised, added = race(
            [
                partial(
                    clients[round_ % 2].request,
                    "PATCH",
                    f"/beneficial-owners/{first.json()['id']}",
                    json=raise_to_60,
                ),
                partial(_owner, clients[1 - round_ % 2], business, 50),
            ]
        )
        outcomes[f"{outcome(raised, 200)} / {outcome(added, 201)}"] += 1
        listed = clients[1].get("/beneficial-owners", params={"customerId": business}).json()
        total = sum(owner["ownershipPercentage"] for owner in listed["data"])
        if total > 100:
            over.append(total)
    assert not over, f"{len(over)} of {3 * ROUNDS} businesses over 100%: {over} {dict(outcomes)}"
    assert set(outcomes) <= {"200 / 400 INVALID_INPUT", "400 INVALID_INPUT / 201"}, outcomes


def test_updates_at_once_keep_each_change(clients: list[SandboxClient]) -> None:
    changes = {
        "fullName": "Jane Roe",
        "birthDate": "1980-02-03",
        "nationality": "FR",
        "address": {"line1": "2 Rue Neuve", "postalCode": "75001", "country": "FR"},
    }
    wrong: list[object] = []
    for _ in range(ROUNDS):
        path = f"/customers/{clients[0].create_customer(fullName='Jane Doe')['id']}"
        answers = race(
            [
                partial(
                    clients[n % 2].request,
                    "PATCH",
                    path,
                    json={"customerType": "INDIVIDUAL", name: value},
                )
                for n, (name, value) in enumerate(changes.items())
            ]
        )
        stored = clients[1].get(path).json()
        lost = sorted(name for name, value in changes.items() if stored.get(name) != value)
        statuses = [outcome(answer, 200) for answer in answers]
        if statuses != ["200"] * len(changes) or lost:
            wrong.append((statuses, lost))
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds (answers, changes lost): {wrong[:3]}"


def _patched(
    wallet: Wallet, key: ewc.KeyPair, email: str
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """The path, body and headers of the signed retry that gives ``wallet`` ``email``."""
    path = f"/customers/{wallet.customer_id}"
    body = {"customerType": "INDIVIDUAL", "email": email}
    first = wallet.client.request("PATCH", path, json=body)
    assert first.status_code == 202, first.text
    challenge = first.json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    return path, body, {"Service-Wallet-Signature": stamp, "Request-Id": challenge["requestId"]}


def test_one_email_goes_to_one_customer(
    clients: list[SandboxClient], pair: tuple[SandboxServer, SandboxServer]
) -> None:
    outcomes: Counter[str] = Counter()
    doubled = 0
    for _ in range(ROUNDS):
        wallets = [Wallet(clients[i], pair[i]) for i in range(2)]
        keys = [wallet.first_login("EMAIL_OTP")[1] for wallet in wallets]
        shared = f"{uuid.uuid4().hex[:12]}@example.com"
        retries = [_patched(w, k, shared) for w, k in zip(wallets, keys, strict=True)]
        answers = race(
            [
                partial(w.client.request, "PATCH", r[0], json=r[1], headers=r[2])
                for w, r in zip(wallets, retries, strict=True)
            ]
        )
        outcomes.update(outcome(answer, 200) for answer in answers)
        holders = [
            w.customer_id
            for w in wallets
            if clients[0].get(f"/customers/{w.customer_id}").json()["email"] == shared
        ]
        doubled += len(holders) > 1
    assert doubled == 0, outcomes
    assert outcomes == {"200": ROUNDS, "409 EMAIL_OTP_EMAIL_ALREADY_EXISTS": ROUNDS}, outcomes


def test_an_email_is_taken_whatever_its_case(
    clients: list[SandboxClient], pair: tuple[SandboxServer, SandboxServer]
) -> None:
    wallets = [Wallet(clients[i], pair[i]) for i in range(2)]
    key = wallets[0].first_login("EMAIL_OTP")[1]
    wallets[1].first_login("EMAIL_OTP")
    shared = f"{uuid.uuid4().hex[:12]}@Example.com"
    path, body, headers = _patched(wallets[0], key, shared)
    taken = wallets[0].client.request("PATCH", path, json=body, headers=headers)
    assert taken.status_code == 200, taken.text
    again = {"customerType": "INDIVIDUAL", "email": shared.lower()}
    refused = clients[1].request("PATCH", f"/customers/{wallets[1].customer_id}", json=again)
    assert outcome(refused, 202) == "409 EMAIL_OTP_EMAIL_ALREADY_EXISTS", refused.text
