"""Hostile requests to the agent side (agents, policies, invitations, verifications, their
lookups and lists) get the answer the test knows they must get (see ``_hostile``): a refusal
with its code for an invalid variant, the valid request's own answer for one that stays
valid."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ._agents import POLICY, Agent, agents, connect
from ._client import SandboxClient
from ._hostile import HOSTILE, INVALID, NOT_FOUND, Answers, Outcome, send, variants
from ._server import SandboxServer

__all__ = ["agents"]  # the fixture, used here


#: The common hostile values, and ids of the agent side's own kinds.
HOSTILE_IDS: list[Any] = [
    *HOSTILE,
    *("Customer:\ud800", "Agent:\x00", "Customer:" + "x" * 190),
]


def _policy_stays_valid(name: str, value: Any) -> bool:
    """The hostile policy values that are policies still (``policy.`` prefix or not): no
    permission, an empty threshold, a threshold or a limit of 0."""
    name = name.removeprefix("policy.")
    zero = value == 0 and type(value) is int
    return (
        (name == "permissions" and value == [])
        or (name == "approvalThresholds" and value == {})
        or (name in ("approvalThresholds.amount", "spendingLimits.perTransactionLimit") and zero)
    )


#: What a new policy may leave out or null (with or without the ``policy.`` prefix).
POLICY_OMITTABLE = {"approvalThresholds", "approvalThresholds.amount"}
POLICY_NULLABLE = {"approvalThresholds", "approvalThresholds.amount"}
#: What a partial update may leave out: anything but a threshold's currency (with its amount).
PATCH_OMITTABLE = {*POLICY, "spendingLimits.currency", "spendingLimits.perTransactionLimit"}


def _lookup(
    server: SandboxServer, client: SandboxClient, agent: Agent, kind: str, value: str
) -> httpx.Response:
    if kind == "redeem":
        return httpx.post(f"{server.base_url}/agents/device-codes/{value}/redeem")
    if kind in ("agent", "invitation"):
        return client.get(f"/{kind}s/{value}")
    return agent.get(f"/agents/me/{kind}s/{value}")


def _prefixed(names: set[str]) -> set[str]:
    return {*names, *(f"policy.{name}" for name in names)}


@pytest.mark.sqlite_only  # pure validation (see the conftest)
def test_hostile_bodies(server: SandboxServer, client: SandboxClient, agents: list[Agent]) -> None:
    customer = client.create_customer(umaAddress="$hostile@sandbox.test")["id"]
    agent = connect(server, client, agents, customer)
    answers = Answers()
    new = variants(
        POLICY, omittable=POLICY_OMITTABLE, nullable=POLICY_NULLABLE, also=_policy_stays_valid
    )
    update = variants(
        POLICY,
        omittable=PATCH_OMITTABLE | {"approvalThresholds.amount"},
        nullable={"approvalThresholds.amount"},
        also=lambda name, value: (
            _policy_stays_valid(name, value) or (name == "spendingLimits" and value == {})
        ),
    )
    long_id = "Customer:" + "x" * 190
    for value in HOSTILE_IDS:  # an allowed account id: 1 to 200 characters of storable text
        restricted = {**POLICY, "accountRestrictions": {"allowedAccountIds": [value]}}
        label = f"allowedAccountIds=[{value!r:.30}]"
        new.append((label, restricted, value == long_id))
        update.append((label, restricted, value == long_id))
    for label, policy, ok in new:
        body = {"name": "x", "customerId": customer, "policy": policy}
        made = send(client.http, "POST", "/agents", body)
        answers.expect(made, Outcome(201) if ok else INVALID, label)
    for label, policy, ok in update:  # a partial update: what it leaves out stays as it was
        patched = send(client.http, "PATCH", f"/agents/{agent.id}/policy", policy)
        answers.expect(patched, Outcome(200) if ok else INVALID, label)
    for label, body, ok in variants(
        {"name": "x", "customerId": customer, "policy": POLICY},
        omittable=_prefixed(POLICY_OMITTABLE),
        nullable=_prefixed(POLICY_NULLABLE),
        text={"name": (1, 500)},
        also=_policy_stays_valid,
    ):
        made = send(client.http, "POST", "/agents", body)
        answers.expect(made, Outcome(201) if ok else INVALID, label)
    for label, body, ok in variants(
        {"name": "y", "isPaused": False},
        omittable={"name", "isPaused"},
        nullable={"name", "isPaused"},
        text={"name": (1, 500)},
        also=lambda name, value: name == "isPaused" and value is True,
    ):
        renamed = send(client.http, "PATCH", f"/agents/{agent.id}", body)
        answers.expect(renamed, Outcome(200) if ok else INVALID, label)
    # An action that is not there: 404 once the body is valid (the reason is read only for a
    # real action, so any text passes here).
    missing = Outcome(404, "ACTION_NOT_FOUND")
    for label, body, ok in variants(
        {"reason": "no"},
        omittable={"reason"},
        nullable={"reason"},
        text={"reason": 1000},
        also=lambda name, value: name == "reason" and value == "\x00",
    ):
        path = f"/agents/{agent.id}/actions/AgentAction:x/reject"
        ok = ok or body is None  # no body at all: no reason
        answers.expect(send(client.http, "POST", path, body), missing if ok else INVALID, label)
    for label, body, ok in variants(
        {"inviterUma": "$hostile@sandbox.test", "amountToSend": 1},
        omittable={"amountToSend"},
        nullable={"amountToSend"},
    ):
        invited = send(client.http, "POST", "/invitations", body)
        answers.expect(invited, Outcome(201) if ok else INVALID, label)
    for label, body, ok in variants(
        {"customerId": customer, "personalInfo": {"lastName": "Doe"}},
        omittable={"personalInfo", "personalInfo.lastName"},
        nullable={"personalInfo", "personalInfo.lastName"},
        also=lambda name, value: name == "personalInfo" and value == {},
    ):
        verified = send(client.http, "POST", "/verifications", body)
        answers.expect(verified, Outcome(200) if ok else INVALID, label)
    for value in HOSTILE_IDS:  # text of 1 to 300 storable characters, or null
        ok = value is None or value == long_id
        for body in (
            {"customerId": customer, "personalInfo": {"lastName": value}},
            {"customerId": customer, "businessInfo": {"registrationNumber": value}},
            {"customerId": customer, "beneficialOwners": [{"personalInfo": {"lastName": value}}]},
            {"inviterUma": "$hostile@sandbox.test", "firstName": value},
        ):
            path = "/invitations" if "inviterUma" in body else "/verifications"
            wanted = Outcome(201 if "inviterUma" in body else 200) if ok else INVALID
            answers.expect(send(client.http, "POST", path, body), wanted, f"{value!r:.30}")
    # Lookups of what is not there: each kind's own code; a NUL is text no id can hold (400),
    # except in a device code (only its hash is looked up); past the longest id, NOT_FOUND.
    lookups = [
        ("redeem", "DEVICE_CODE_NOT_FOUND", 10**6),
        ("agent", "AGENT_NOT_FOUND", 10**6),
        ("invitation", "INVITATION_NOT_FOUND", 10**6),
        ("action", "ACTION_NOT_FOUND", 10**6),
        ("transaction", "TRANSACTION_NOT_FOUND", 200),
        ("quote", "QUOTE_NOT_FOUND", 200),
    ]
    for value in ("%00", "x" * 5000, "Agent:%ff", "%ED%A0%80"):
        for kind, code, longest in lookups:
            if value == "%00" and kind != "redeem":
                wanted = INVALID
            elif len(value) > longest:
                wanted = NOT_FOUND
            else:
                wanted = Outcome(404, code)
            response = _lookup(server, client, agent, kind, value)
            answers.expect(response, wanted, f"{kind} {value[:20]}")
    # Ids and account identifiers to match: any text of the right length (none matches).
    matched = {"agentId", "customerId", "accountIdentifier", "reference"}
    for name in ("agentId", "customerId", "startDate", "endDate", "limit", "cursor", "sortOrder"):
        for value in ("\x00", "x" * 5000, "-1", "2026-99-99", "%ff"):
            ok = name in matched and value in ("-1", "2026-99-99", "%ff")
            response = client.get("/agents/approvals", params={name: value})
            answers.expect(response, Outcome(200) if ok else INVALID, f"{name}={value[:20]}")
    for value in ("\x00", "x" * 5000, "2026-99-99"):
        for name in ("accountIdentifier", "status", "startDate", "cursor", "reference"):
            ok = name in matched and value == "2026-99-99"
            response = agent.get("/agents/me/transactions", params={name: value})
            answers.expect(response, Outcome(200) if ok else INVALID, f"{name}={value[:20]}")
    answers.done()
    assert agent.get("/agents/me").status_code == 200
