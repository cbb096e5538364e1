"""``Idempotency-Key`` over real HTTP, on SQLite and PostgreSQL, with two ``ewc serve`` processes
on one database (draft-ietf-httpapi-idempotency-key-header): a repeat gets the stored response
(status and body, ``Idempotent-Replayed: true``); the key with another request (body, path or
operation) is 422 ``IDEMPOTENCY_KEY_REUSED``; concurrent repeats make one resource (the others
replay it or get 409 ``IDEMPOTENCY_REQUEST_IN_PROGRESS``); a key is per caller; after the
retention (``--idempotency-retention``, on the scaled clock) the key is free again."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._pair import race, running_pair
from ._payments import accounts, balance, fund, usd_external, wait_for
from ._server import SandboxServer
from .conftest import database_url

SECOND_PLATFORM = ("platform-two", "platform-two-secret")
REPLAYED = "Idempotent-Replayed"


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    """Two ``ewc serve`` processes on one database, with two platform credentials."""
    with running_pair(
        tmp_path_factory.mktemp(f"idempotency-{backend}"),
        database_url(request, backend, "pair"),
        time_scale=0.05,
        extra=["--platform-credentials", ":".join(SECOND_PLATFORM)],
    ) as servers:
        yield servers


def funded(client: SandboxClient, usd: int = 1_000_000, eur: int = 1_000_000) -> dict[str, str]:
    """A customer with funded USD and EUR accounts and a USD bank account (suffix 010)."""
    customer = client.create_customer(currencies=["USD", "EUR"])
    found = accounts(client, customer["id"])
    fund(client, found["USD"]["id"], usd)
    fund(client, found["EUR"]["id"], eur)
    bank = usd_external(client, customer["id"], "010")
    return {
        "id": customer["id"],
        "USD": found["USD"]["id"],
        "EUR": found["EUR"]["id"],
        "bank": bank["id"],
    }


def quote_body(customer: dict[str, str], amount: int = 1_000) -> dict[str, Any]:
    return {
        "source": {"sourceType": "ACCOUNT", "accountId": customer["EUR"]},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer["USD"]},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": amount,
    }


def transfer(source: str, destination: str, amount: int) -> dict[str, Any]:
    return {
        "source": {"accountId": source},
        "destination": {"accountId": destination},
        "amount": amount,
    }


def keyed(key: str) -> dict[str, str]:
    return {"Idempotency-Key": key}


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["code"] == code, response.text


def transactions_of(client: SandboxClient, customer_id: str) -> int:
    listed = client.get("/transactions", params={"customerId": customer_id, "limit": 100})
    assert listed.status_code == 200, listed.text
    count: int = listed.json()["totalCount"]
    return count


def test_a_repeat_replays_the_stored_response(clients: list[SandboxClient]) -> None:
    one, two = clients
    customer = funded(one)
    key = keyed(f"quote-{customer['id']}")
    first = one.post("/quotes", quote_body(customer), headers=key)
    assert first.status_code == 201, first.text
    assert REPLAYED not in first.headers
    # The same JSON with its members in another order and other spacing is the same request.
    shuffled = json.dumps(dict(reversed(list(quote_body(customer).items()))), indent=2)
    again = two.request(
        "POST",
        "/quotes",
        content=shuffled,
        headers={**key, "Content-Type": "application/json"},
    )
    assert (again.status_code, again.json()) == (201, first.json())
    assert again.headers[REPLAYED] == "true"
    # The stored response, not the resource's state now: the quote has been executed since.
    executed = one.post(f"/quotes/{first.json()['id']}/execute")
    assert executed.status_code == 200, executed.text
    later = two.post("/quotes", quote_body(customer), headers=key)
    assert later.json() == first.json() and later.json()["status"] == "PENDING"
    assert transactions_of(one, customer["id"]) == 1
    # Keys are per caller: another platform credential with the same key makes its own quote.
    other = SandboxClient(str(one.http.base_url), SECOND_PLATFORM)
    theirs = other.post("/quotes", quote_body(customer), headers=key)
    other.close()
    assert theirs.status_code == 201 and REPLAYED not in theirs.headers, theirs.text
    assert theirs.json()["id"] != first.json()["id"]


def test_the_key_with_another_request_is_refused(clients: list[SandboxClient]) -> None:
    one, two = clients
    customer = funded(one)
    tag = customer["id"]
    first = one.post(
        "/transfer-out", transfer(customer["USD"], customer["bank"], 100), headers=keyed(tag)
    )
    assert first.status_code == 201, first.text
    # Another body, another operation, another path: 422 with the code, and nothing happens.
    refused(
        two.post(
            "/transfer-out", transfer(customer["USD"], customer["bank"], 200), headers=keyed(tag)
        ),
        422,
        "IDEMPOTENCY_KEY_REUSED",
    )
    refused(
        one.post(
            "/transfer-in", transfer(customer["bank"], customer["USD"], 100), headers=keyed(tag)
        ),
        422,
        "IDEMPOTENCY_KEY_REUSED",
    )
    refused(
        one.post("/quotes", quote_body(customer), headers=keyed(tag)), 422, "IDEMPOTENCY_KEY_REUSED"
    )
    assert transactions_of(one, customer["id"]) == 1
    assert balance(one, customer["id"], "USD") == 1_000_000 - 100

    # The execution of a quote: the key of one quote's execution on another quote is refused.
    quotes = [one.post("/quotes", quote_body(customer)).json()["id"] for _ in range(2)]
    executed = one.post(f"/quotes/{quotes[0]}/execute", headers=keyed(f"x-{tag}"))
    assert executed.status_code == 200, executed.text
    replayed = two.post(f"/quotes/{quotes[0]}/execute", headers=keyed(f"x-{tag}"))
    assert (replayed.status_code, replayed.json()) == (200, executed.json())
    refused(
        two.post(f"/quotes/{quotes[1]}/execute", headers=keyed(f"x-{tag}")),
        422,
        "IDEMPOTENCY_KEY_REUSED",
    )
    assert balance(one, customer["id"], "EUR") == 1_000_000 - 1_000

    # A refused request stores nothing: its key stays free for a valid one.
    bad = one.post(
        "/transfer-in", transfer(customer["bank"], customer["USD"], 0), headers=keyed(f"b-{tag}")
    )
    refused(bad, 400, "INVALID_INPUT")
    good = one.post(
        "/transfer-in", transfer(customer["bank"], customer["USD"], 300), headers=keyed(f"b-{tag}")
    )
    assert good.status_code == 201 and REPLAYED not in good.headers, good.text


def test_an_agent_key_is_bound_to_its_request(
    pair: tuple[SandboxServer, SandboxServer], clients: list[SandboxClient]
) -> None:
    one = clients[0]
    customer = funded(one)
    created = one.post(
        "/agents",
        {
            "name": "Idempotent bot",
            "customerId": customer["id"],
            "policy": {
                "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES", "CREATE_TRANSFERS"],
                "defaultExecutionMode": "AUTO",
                "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000_000},
            },
        },
    )
    assert created.status_code == 201, created.text
    redeemed = httpx.post(
        f"{pair[0].base_url}/agents/device-codes/{created.json()['deviceCode']['code']}/redeem"
    )
    assert redeemed.status_code == 200, redeemed.text
    token = redeemed.json()["accessToken"]
    with httpx.Client(
        base_url=pair[1].base_url, headers={"Authorization": f"Bearer {token}"}
    ) as agent:
        key = keyed(f"agent-{customer['id']}")
        body = transfer(customer["USD"], customer["bank"], 100)
        first = agent.post("/agents/me/transfer-out", json=body, headers=key)
        assert first.status_code == 201, first.text
        again = agent.post("/agents/me/transfer-out", json=body, headers=key)
        assert (again.status_code, again.json()) == (201, first.json())
        assert again.headers[REPLAYED] == "true"
        other = agent.post("/agents/me/transfer-out", json={**body, "amount": 101}, headers=key)
        refused(other, 422, "IDEMPOTENCY_KEY_REUSED")
        quoted = agent.post("/agents/me/quotes", json=quote_body(customer), headers=key)
        refused(quoted, 422, "IDEMPOTENCY_KEY_REUSED")
    assert balance(one, customer["id"], "USD") == 1_000_000 - 100


def test_concurrent_repeats_make_one_resource(clients: list[SandboxClient]) -> None:
    rounds, customer = 5, funded(clients[0])
    statuses: Counter[tuple[int, str]] = Counter()
    for round_ in range(rounds):
        key = keyed(f"race-{round_}-{customer['id']}")
        bodies = [transfer(customer["USD"], customer["bank"], 100 + i % 2) for i in range(8)]
        answers = race(
            [
                lambda c=c, b=b, k=key: c.post("/transfer-out", b, headers=k)
                for c, b in zip(clients * 4, bodies, strict=True)
            ]
        )
        created = [r for r in answers if r.status_code == 201 and REPLAYED not in r.headers]
        assert len(created) == 1, [(r.status_code, r.text) for r in answers]
        for response, body in zip(answers, bodies, strict=True):
            code = response.json().get("code", "")
            statuses[(response.status_code, code)] += 1
            if response.status_code == 201:  # its own request's answer, never another's
                assert response.json()["sentAmount"]["amount"] == body["amount"], response.text
                assert response.json()["id"] == created[0].json()["id"]
            else:
                assert (response.status_code, code) in (
                    (409, "IDEMPOTENCY_REQUEST_IN_PROGRESS"),
                    (422, "IDEMPOTENCY_KEY_REUSED"),
                ), response.text
    assert transactions_of(clients[1], customer["id"]) == rounds
    spent = 1_000_000 - balance(clients[1], customer["id"], "USD")
    assert rounds * 100 <= spent <= rounds * 101
    assert sum(statuses.values()) == 8 * rounds


@pytest.fixture(scope="module")
def short_retention(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    """A server that keeps keys 60 simulated seconds (0.6 s at the time scale 0.01)."""
    running = SandboxServer(
        tmp_path_factory.mktemp(f"idempotency-retention-{backend}"),
        database=database_url(request, backend, "retention"),
        time_scale=0.01,
        extra=["--idempotency-retention", "60"],
    )
    running.start()
    yield running
    assert running.stop() == 0


def test_an_expired_key_is_free_again(short_retention: SandboxServer) -> None:
    client = SandboxClient(short_retention.base_url, short_retention.auth)
    customer = funded(client)
    key = keyed(f"expiring-{customer['id']}")
    first = client.post("/quotes", quote_body(customer), headers=key)
    assert first.status_code == 201, first.text
    refused(
        client.post("/quotes", quote_body(customer, 2_000), headers=key),
        422,
        "IDEMPOTENCY_KEY_REUSED",
    )

    def repeat() -> dict[str, Any]:
        response = client.post("/quotes", quote_body(customer), headers=key)
        assert response.status_code == 201, response.text
        return {"replayed": REPLAYED in response.headers, **response.json()}

    fresh = wait_for(repeat, lambda answer: not answer["replayed"], timeout=60)
    assert not fresh["replayed"] and fresh["id"] != first.json()["id"]
    # The key is now bound to the new request: it replays that one.
    assert repeat() == {**fresh, "replayed": True}
    client.close()
