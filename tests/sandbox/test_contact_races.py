"""The contact changes tied to a wallet's OTP credentials (``domain.customer_contact``) under
concurrency, on SQLite and PostgreSQL, with two ``ewc serve`` processes on one database, the two
requests of each race sent one to each:

- an email change (a signed retry, stamped by a session of the wallet's passkey) and the revoke
  of the EMAIL_OTP credential it updates (stamped by the same session), at once: both are made
  (200, 204), the customer has the new email and the wallet keeps only its passkey. The change
  updates the credentials it finds under the account's lock, which the revoke takes: never one
  the revoke deleted meanwhile (that was a 500 of an UPDATE matching no row);
- an SMS_OTP reset to a new number and the revoke of the wallet's SMS_OTP credential (stamped
  by a session of its passkey), at once: both are made (204, 204), the customer has the new
  number and the wallet keeps only its passkey (the same lock, the same re-read);
- two customers each completing an SMS_OTP reset to one new number at once (each wallet has an
  SMS_OTP credential): one is made (204), the other is refused 409 ``CONFLICT``, and one
  credential has the number (decided under the contact lock, the platform's row, which every
  contact change takes).

On SQLite each of these requests has the database's write lock from its first write (the
customer's lock, the reset's own update) on, so the lock under test adds nothing there: without
it these races break on PostgreSQL only.

``EWC_CONTACT_RACE_ROUNDS`` sets the rounds (20 by default).
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
from .test_sca import eu_customer

ROUNDS = int(os.environ.get("EWC_CONTACT_RACE_ROUNDS", "20"))

pair = pair_fixtures("contact-races", "contacts")


def _signed(
    client: SandboxClient, method: str, path: str, body: Any, key: ewc.KeyPair
) -> partial[Any]:
    """The retry of a signed request (its first leg sent now), to be sent later."""
    first = client.request(method, path, json=body)
    assert first.status_code == 202, first.text
    challenge = first.json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], key)
    return partial(client.retry, method, path, body, challenge, stamp)


def _wrong_after(
    reader: SandboxClient, wallet: Wallet, answers: str, expected: str, field: str, new: str
) -> tuple[str, bool, list[str]] | None:
    """What is wrong after a contact change raced a revoke of its credential (None: nothing):
    the answers unless they are ``expected``, the customer's ``field`` not ``new``, or any
    credential kept but the passkey. As ``(answers, field is new, credentials kept)``."""
    customer = reader.get(f"/customers/{wallet.customer_id}").json()
    listed = reader.get("/auth/credentials", params={"accountId": wallet.account_id})
    kept = [credential["type"] for credential in listed.json()["data"]]
    if answers != expected or customer[field] != new or kept != ["PASSKEY"]:
        return answers, customer[field] == new, kept
    return None


def test_an_email_change_and_a_revoke_of_its_credential_at_once(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    outcomes: Counter[str] = Counter()
    wrong: list[object] = []
    for round_ in range(ROUNDS):
        wallet = Wallet(clients[0], pair[0])
        email = wallet.add("EMAIL_OTP")
        _, email_key = wallet.login(email)
        passkey = wallet.add("PASSKEY", signer=email_key)
        _, key = wallet.login(passkey)
        new = f"{uuid.uuid4().hex[:12]}@example.com"
        changing, revoking = clients[round_ % 2], clients[1 - round_ % 2]
        change = _signed(
            changing,
            "PATCH",
            f"/customers/{wallet.customer_id}",
            {"customerType": "INDIVIDUAL", "email": new},
            key,
        )
        revoke = _signed(revoking, "DELETE", f"/auth/credentials/{email['id']}", None, key)
        changed, revoked = race([change, revoke])
        answers = f"{outcome(changed, 200)} / {outcome(revoked, 204)}"
        outcomes[answers] += 1
        if found := _wrong_after(clients[1], wallet, answers, "200 / 204", "email", new):
            wrong.append(found)
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds: {wrong[:3]} {dict(outcomes)}"


class _EuWallet(Wallet):
    """A wallet of a customer of the EEA with a phone number (SCA applies: 2FA resets)."""

    def new_customer(self, client: SandboxClient) -> str:
        return eu_customer(client, email=self.email, phoneNumber=_number())


def _number() -> str:
    return f"+49151{uuid.uuid4().int % 10**8:08d}"


def _start_reset(client: SandboxClient, customer_id: str) -> str:
    """An SMS_OTP reset of the customer, ready to complete: its completion's path."""
    started = client.post(
        "/sca/factors/reset", {"factor": "SMS_OTP"}, params={"customerId": customer_id}
    )
    assert started.status_code == 201, started.text
    return f"/sca/factors/reset/{started.json()['resetId']}/complete?customerId={customer_id}"


def test_an_sms_reset_and_a_revoke_of_its_credential_at_once(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    outcomes: Counter[str] = Counter()
    wrong: list[object] = []
    for round_ in range(ROUNDS):
        wallet = _EuWallet(clients[0], pair[0])
        _, key = wallet.login(wallet.add("PASSKEY"))
        sms = {"type": "SMS_OTP", "accountId": wallet.account_id}
        _, made = clients[0].signed_retry("POST", "/auth/credentials", sms, key=key)
        assert made.status_code == 201, made.text
        path = _start_reset(clients[0], wallet.customer_id)
        completing, revoking = clients[round_ % 2], clients[1 - round_ % 2]
        new = _number()
        mobile = {"countryCode": new[:3], "number": new[3:]}
        revoke = _signed(revoking, "DELETE", f"/auth/credentials/{made.json()['id']}", None, key)
        completed, revoked = race([partial(completing.post, path, {"mobile": mobile}), revoke])
        answers = f"{outcome(completed, 204)} / {outcome(revoked, 204)}"
        outcomes[answers] += 1
        if found := _wrong_after(clients[1], wallet, answers, "204 / 204", "phoneNumber", new):
            wrong.append(found)
    assert not wrong, f"{len(wrong)} of {ROUNDS} rounds: {wrong[:3]} {dict(outcomes)}"


def _sms_reset(client: SandboxClient) -> tuple[str, str]:
    """A customer of the EEA whose wallet has an SMS_OTP credential, with an SMS_OTP reset
    ready to complete: the reset's path and the wallet's id."""
    customer_id = eu_customer(client, phoneNumber=_number())
    wallet = client.wallet_of(customer_id)
    made = client.post("/auth/credentials", {"type": "SMS_OTP", "accountId": wallet})
    assert made.status_code == 201, made.text
    return _start_reset(client, customer_id), wallet


def test_two_sms_resets_to_one_number_at_once(clients: list[SandboxClient]) -> None:
    outcomes: Counter[str] = Counter()
    doubled: list[object] = []
    for _ in range(ROUNDS):
        resets = [_sms_reset(clients[0]) for _ in clients]
        number = _number()
        mobile = {"countryCode": number[:3], "number": number[3:]}
        answers = race(
            [
                partial(client.post, path, {"mobile": mobile})
                for client, (path, _) in zip(clients, resets, strict=True)
            ]
        )
        outcomes.update(outcome(answer, 204) for answer in answers)
        holders = [
            wallet
            for _, wallet in resets
            if any(
                credential["nickname"] == number
                for credential in clients[1]
                .get("/auth/credentials", params={"accountId": wallet})
                .json()["data"]
            )
        ]
        if len(holders) != 1:
            doubled.append(sorted(outcome(answer, 204) for answer in answers))
    assert not doubled, f"{len(doubled)} of {ROUNDS} numbers went to two wallets: {doubled[:3]}"
    assert outcomes == {"204": ROUNDS, "409 CONFLICT": ROUNDS}, outcomes
