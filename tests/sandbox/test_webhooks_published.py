"""Webhooks with ``ewc serve --names published``, over real HTTP to a receiver started here:
the body as delivered (not renamed by the test) validates against the published webhook schema
of its type, a quote's ``rateDetails`` in it has the published ``gridApi*`` names and none of
the interface's ``serviceApi*``, the ``X-Grid-Signature`` verifies over those bytes, and the
events list (what ``ewc listen`` forwards) has the same body and signature.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from ._client import SandboxClient
from ._server import SandboxServer
from ._webhooks import (
    Hooks,
    event,
    hooked_server,
    hooks_server,
    poll,
    published_errors,
    trigger,
    verify_published,
)

GRID_RATES = {
    "gridApiMultiplier",
    "gridApiFixedFee",
    "gridApiVariableFeeRate",
    "gridApiVariableFeeAmount",
}
SERVICE_RATES = {name.replace("gridApi", "serviceApi") for name in GRID_RATES}


@pytest.fixture(scope="module")
def hooks() -> Iterator[Hooks]:
    with hooks_server() as running:
        yield running


@pytest.fixture(scope="module")
def server(hooks: Hooks, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with hooked_server(
        tmp_path_factory.mktemp("webhooks-published"), hooks, extra=["--names", "published"]
    ) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: SandboxServer) -> Iterator[SandboxClient]:
    api = SandboxClient(server.base_url, server.auth)
    yield api
    api.close()


def delivered(client: SandboxClient, hooks: Hooks, **match: Any) -> list[dict[str, Any]]:
    """Every delivery whose ``data`` has the fields ``match``, each checked as sent: the
    published schema (no renaming here), the published signature over the raw bytes, and the
    events list's copy (body and signature) of it."""
    key = client.get("/sandbox/webhook-public-key").text
    with hooks.lock:
        requests = list(hooks.requests)
    found = []
    for headers, raw in requests:
        body = json.loads(raw)
        if any(body["data"].get(k) != v for k, v in match.items()):
            continue
        assert published_errors(body, rename=False) == [], body
        verify_published(headers["X-Grid-Signature"], raw, key)
        listed = event(client, body["id"])
        assert listed["body"].encode("utf-8") == raw
        assert listed["payload"] == body
        verify_published(listed["signature"], raw, key)
        found.append(body)
    return found


def _names(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_names(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_names(v) for v in value))
    return set()


def test_an_agent_action_with_its_quote_has_the_published_names(
    server: SandboxServer, client: SandboxClient, hooks: Hooks
) -> None:
    from ._agents import Agent, Customer, connect, execute, quote

    made: list[Agent] = []
    try:
        customer = Customer(client, fund=1_000_00)
        agent = connect(server, client, made, customer.id)
        action = execute(agent, quote(agent, customer, 200_00)["id"]).json()  # above the threshold
    finally:
        for each in made:
            each.http.close()
    assert action["status"] == "PENDING_APPROVAL"
    (announced,) = poll(lambda: delivered(client, hooks, id=action["id"]), bool)
    assert announced["type"] == "AGENT_ACTION.PENDING_APPROVAL"
    assert announced["data"] == action  # the resource as the API answers it in this mode
    rates = set(announced["data"]["quote"]["rateDetails"])
    assert GRID_RATES <= rates and not _names(announced) & SERVICE_RATES, rates


@pytest.mark.parametrize(
    "event_type", ["OUTGOING_PAYMENT.COMPLETED", "INCOMING_PAYMENT.COMPLETED", "TEST"]
)
def test_a_triggered_event_is_published_as_sent(
    client: SandboxClient, hooks: Hooks, event_type: str
) -> None:
    event_id = trigger(client, event_type)
    found = poll(
        lambda: [e for e in delivered(client, hooks) if e["id"] == event_id],
        bool,
    )
    assert [e["type"] for e in found] == [event_type]
    assert not _names(found[0]) & SERVICE_RATES
