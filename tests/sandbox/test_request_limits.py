"""Request bodies and free-form objects have limits, checked before anything is stored, over
real HTTP on both storage backends.

- A body over the limit (1 MiB by default) is answered 413 ``BODY_TOO_LARGE``, whether its
  ``Content-Length`` says so (answered before the body is read), it is streamed in chunks, or
  a ``Content-Length`` far beyond what is sent announces it; nothing is stored.
- A customer's ``address`` and ``businessInfo`` are the published ``Address`` and
  ``BusinessInfo`` (required fields, bounded strings, published enums): past a bound or without a
  required field the answer is 400 ``INVALID_INPUT`` naming the field and nothing is stored; at
  the bounds they are stored and read back (unknown members dropped).
- The free-form object (an agent's policy) is bounded in depth, members, string length and
  size: past a bound the answer is 400 ``INVALID_INPUT`` and nothing is stored.
- Deep nesting (in those objects, in typed fields, and past the JSON parser's own recursion) is
  a 400, never a 500, and never after the customer was saved.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._server import SandboxServer

MiB = 1024 * 1024
#: The documented bounds of a free-form object (docs/sandbox.md, "Limits").
MAX_DEPTH = 10
MAX_MEMBERS = 200
MAX_STRING = 1000
MAX_KEY = 100
MAX_BYTES = 16 * 1024

POLICY: dict[str, Any] = {
    "permissions": ["CREATE_QUOTES", "EXECUTE_QUOTES"],
    "defaultExecutionMode": "AUTO",
    "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_000},
}


@pytest.fixture(scope="module")
def environment() -> str:
    """Limits do not depend on the environment: the sandbox one only."""
    return "sandbox"


def nested(depth: int, leaf: Any = "x") -> Any:
    """An object ``depth`` levels deep: {"a": {"a": ... leaf}}."""
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def raw(client: SandboxClient, method: str, path: str, content: Any) -> httpx.Response:
    return client.request(
        method, path, content=content, headers={"content-type": "application/json"}
    )


def customers(client: SandboxClient) -> int:
    """How many internal accounts there are: each stored customer adds two here."""
    response = client.get("/customers/internal-accounts", params={"limit": 1})
    assert response.status_code == 200, response.text
    total: int = response.json()["totalCount"]
    return total


def agents(client: SandboxClient) -> int:
    response = client.get("/agents", params={"limit": 1})
    assert response.status_code == 200, response.text
    total: int = response.json()["totalCount"]
    return total


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text[:300]
    body: dict[str, Any] = response.json()
    assert body == {"status": status, "code": code, "reason": body["reason"]}, body
    assert isinstance(body["reason"], str) and body["reason"]
    return body


# --- the request body limit --------------------------------------------------------------------


def test_a_body_over_the_limit_is_413_and_nothing_is_stored(client: SandboxClient) -> None:
    before = customers(client)
    body = {"customerType": "INDIVIDUAL", "address": {"line1": "x" * (2 * MiB)}}
    response = raw(client, "POST", "/customers", json.dumps(body).encode())
    assert_error(response, 413, "BODY_TOO_LARGE")
    assert customers(client) == before


def test_a_streamed_body_is_counted_while_it_is_read(client: SandboxClient) -> None:
    # No Content-Length: chunked transfer, stopped at the limit, not buffered whole.
    before = customers(client)

    def chunks() -> Iterator[bytes]:
        yield b'{"customerType": "INDIVIDUAL", "address": {"line1": "'
        for _ in range(64):
            yield b"y" * 65536  # 4 MiB in all
        yield b'"}}'

    response = raw(client, "POST", "/customers", chunks())
    assert_error(response, 413, "BODY_TOO_LARGE")
    assert customers(client) == before


def test_a_declared_length_over_the_limit_is_answered_before_the_body(
    server: SandboxServer,
) -> None:
    # A Content-Length of 10 GB and no body: the answer comes without waiting for the bytes.
    host, port = server.base_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    token = "cGxhdGZvcm0tdGVzdDpwbGF0Zm9ybS10ZXN0LXNlY3JldA=="  # platform-test:...-secret
    request = (
        "POST /2025-10-13/customers HTTP/1.1\r\n"
        f"Host: {host}\r\nAuthorization: Basic {token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=60) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert json.loads(body)["code"] == "BODY_TOO_LARGE"


def test_a_body_under_the_limit_is_read(client: SandboxClient) -> None:
    # Long typed fields past the free-form bounds are refused for what they are (400), not 413.
    response = raw(
        client, "POST", "/customers", json.dumps({"customerType": "X" * (MiB // 2)}).encode()
    )
    assert_error(response, 400, "INVALID_INPUT")


# --- free-form objects -------------------------------------------------------------------------


def _over_each_bound() -> list[tuple[str, Any]]:
    wide = {f"k{i}": i for i in range(MAX_MEMBERS + 1)}
    spread = {f"k{i}": [0] * 10 for i in range(MAX_MEMBERS // 11 + 1)}  # members in lists
    return [
        ("depth", nested(MAX_DEPTH + 1)),
        ("members", wide),
        ("members in lists", spread),
        ("string", {"line1": "s" * (MAX_STRING + 1)}),
        ("key", {"k" * (MAX_KEY + 1): "v"}),
        ("size", {f"k{i}": "é" * 900 for i in range(10)}),  # ~18 KiB of UTF-8
        ("NUL", {"line1": "a\x00b"}),
        ("lone surrogate", {"line1": "\ud800"}),
    ]


ADDRESS = {"line1": "1 Main St", "postalCode": "94105", "country": "US"}
INFO = {"legalName": "Acme"}


def _customer_objects_past_a_bound() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("address", {"line1": "1 Main St", "country": "US"}),  # no postalCode
        ("address", {**ADDRESS, "line1": "s" * 201}),
        ("address", {**ADDRESS, "postalCode": "9" * 21}),
        ("address", {**ADDRESS, "country": "USA"}),
        ("address", {**ADDRESS, "line1": "a\x00b"}),
        ("address", {**ADDRESS, "city": "\ud800"}),
        ("address", nested(MAX_DEPTH + 1)),
        ("businessInfo", {"taxId": "1"}),  # no legalName
        ("businessInfo", {"legalName": "s" * 201}),
        ("businessInfo", {**INFO, "entityType": "BANK"}),
        ("businessInfo", {**INFO, "incorporatedOn": "yesterday"}),
        ("businessInfo", {**INFO, "countriesOfOperation": ["US"] * 251}),
        ("businessInfo", {**INFO, "naicsCode": "x"}),
    ]


def test_a_customer_object_past_a_bound_is_400_and_not_stored(client: SandboxClient) -> None:
    before = customers(client)
    for field, value in _customer_objects_past_a_bound():
        body = {"customerType": "BUSINESS", field: value}
        response = raw(client, "POST", "/customers", json.dumps(body).encode())
        reason = assert_error(response, 400, "INVALID_INPUT")["reason"]
        assert field in reason, (value, reason)
    assert customers(client) == before


def test_a_customer_object_at_the_bounds_is_stored_and_read_back(client: SandboxClient) -> None:
    address = {**ADDRESS, "line1": "s" * 200, "line2": "é" * 200, "postalCode": "9" * 20}
    info = {
        "legalName": "l" * 200,
        "country": "US",
        "incorporatedOn": "2018-03-14",
        "entityType": "LLC",
        "countriesOfOperation": ["US"] * 250,
        "primaryContactFirstName": "n" * 250,
    }
    made = client.create_customer(
        customerType="BUSINESS", address={**address, "extra": 1}, businessInfo=info
    )
    assert made["address"] == address and made["businessInfo"] == info
    assert client.get(f"/customers/{made['id']}").json()["businessInfo"] == info


def test_a_policy_past_a_bound_is_400_and_not_stored(client: SandboxClient) -> None:
    customer = client.create_customer()["id"]
    before = agents(client)
    created = client.post("/agents", {"name": "bot", "customerId": customer, "policy": POLICY})
    assert created.status_code == 201, created.text
    agent = created.json()["agent"]["id"]
    for bound, value in _over_each_bound():
        policy = {**POLICY, "notes": value}
        body = {"name": "bot", "customerId": customer, "policy": policy}
        response = raw(client, "POST", "/agents", json.dumps(body).encode())
        assert "policy" in assert_error(response, 400, "INVALID_INPUT")["reason"], bound
        patch = raw(client, "PATCH", f"/agents/{agent}/policy", json.dumps(policy).encode())
        assert_error(patch, 400, "INVALID_INPUT")
    assert agents(client) == before + 1
    assert client.get(f"/agents/{agent}").json()["policy"]["permissions"] == POLICY["permissions"]


# --- deep nesting ------------------------------------------------------------------------------


def deep(depth: int) -> bytes:
    """JSON text of an object ``depth`` levels deep (made as text: no recursion here)."""
    return b'{"a":' * depth + b'"x"' + b"}" * depth


@pytest.mark.parametrize("depth", [300, 600, 900])
def test_deep_nesting_is_400_before_anything_is_stored(client: SandboxClient, depth: int) -> None:
    customer = client.create_customer()["id"].encode()
    before_customers, before_agents = customers(client), agents(client)
    for field in (b"address", b"businessInfo"):
        body = b'{"customerType": "INDIVIDUAL", "' + field + b'": ' + deep(depth) + b"}"
        assert_error(raw(client, "POST", "/customers", body), 400, "INVALID_INPUT")
    policy = json.dumps(POLICY).encode()[:-1] + b', "extra": ' + deep(depth) + b"}"
    body = b'{"name": "bot", "customerId": "' + customer + b'", "policy": ' + policy + b"}"
    assert_error(raw(client, "POST", "/agents", body), 400, "INVALID_INPUT")
    # A typed field given a deep value: refused for its type, the value never echoed.
    body = b'{"customerType": ' + deep(depth) + b', "currencies": [' + deep(depth) + b"]}"
    assert_error(raw(client, "POST", "/customers", body), 400, "INVALID_INPUT")
    assert (customers(client), agents(client)) == (before_customers, before_agents)


@pytest.mark.parametrize("depth", [5_000, 150_000])  # both bodies under 1 MiB
def test_nesting_past_the_json_parser_is_400(client: SandboxClient, depth: int) -> None:
    before = customers(client)
    for body in (
        b'{"customerType": "INDIVIDUAL", "address": {"a": ' + b"[" * depth + b"]" * depth + b"}}",
        b'{"customerType": "INDIVIDUAL", "address": ' + b'{"a":' * depth + b"1" + b"}" * depth,
    ):
        response = raw(client, "POST", "/customers", body)
        assert_error(response, 400, "INVALID_INPUT")
    assert customers(client) == before


# --- repeated members --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b'{"customerType": "INDIVIDUAL", "customerType": "BUSINESS"}',
        b'{"customerType": "INDIVIDUAL", "address": {"line1": "a", "line1": "b"}}',
        b'{"customerType": "INDIVIDUAL", "currencies": ["USD"], "\\u0063urrencies": ["EUR"]}',
    ],
    ids=["top", "nested", "escaped"],
)
def test_a_repeated_member_is_400_and_nothing_is_stored(client: SandboxClient, body: bytes) -> None:
    """Which of two values counts is not guessed (``json.loads`` keeps the last, another
    reader the first): 400, naming the member, and nothing is stored."""
    before = customers(client)
    refused = assert_error(raw(client, "POST", "/customers", body), 400, "INVALID_INPUT")
    assert refused["reason"].startswith("The request body repeats the member "), refused
    assert customers(client) == before
