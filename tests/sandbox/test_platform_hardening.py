"""The platform side's hardening, over real HTTP on SQLite and PostgreSQL (the sandbox
environment): an API token grants no permission it lacks and reaches the control plane only
with ``MANAGE``; codes in request paths stay out of the request log and the server's standard
error whoever answers (the gate's 401 and 413, an injected fault, a 405); the bounds of
``POST /sandbox/events/trigger``'s ``data``; the token list's out-of-range date bounds."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ._client import SandboxClient
from ._server import SandboxServer

BASE = "/2025-10-13"
INVITATION = "INVSECRET999"
DEVICE_CODE = "DEVSECRET-9"


@pytest.fixture(scope="module")
def environment() -> str:
    """The control plane and its logs are the sandbox's: that environment only."""
    return "sandbox"


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["code"]


def _token(client: SandboxClient, *permissions: str) -> dict[str, Any]:
    response = client.post("/tokens", {"name": "hardening", "permissions": list(permissions)})
    assert response.status_code == 201, response.text
    token: dict[str, Any] = response.json()
    return token


@pytest.fixture
def as_token(client: SandboxClient, server: SandboxServer) -> Iterator[Any]:
    """A client of a new token with the given permissions (closed afterwards)."""
    made: list[SandboxClient] = []

    def make(*permissions: str) -> SandboxClient:
        token = _token(client, *permissions)
        user = SandboxClient(server.base_url, (token["clientId"], token["clientSecret"]))
        made.append(user)
        return user

    yield make
    for user in made:
        user.close()
    client.request("DELETE", "/sandbox/faults")


# --- 1. permissions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("held", "asked"),
    [
        (["MANAGE"], ["VIEW", "TRANSACT", "MANAGE"]),
        (["MANAGE"], ["TRANSACT"]),
        (["VIEW", "MANAGE"], ["VIEW", "TRANSACT"]),
    ],
)
def test_a_token_grants_only_permissions_it_holds(
    client: SandboxClient, as_token: Any, held: list[str], asked: list[str]
) -> None:
    manager = as_token(*held)
    before = client.get("/tokens").json()["totalCount"]
    refused = manager.post("/tokens", {"name": "escalated", "permissions": asked})
    assert _code(refused) == (403, "PERMISSION_NOT_HELD")
    assert "TRANSACT" in refused.json()["reason"]
    assert client.get("/tokens").json()["totalCount"] == before  # nothing made
    # What it holds it may grant; the platform's own credentials grant anything.
    for grantable in (held, ["VIEW"]):  # every token reads: VIEW is every token's
        granted = manager.post("/tokens", {"name": "ok", "permissions": grantable})
        assert granted.status_code == 201, granted.text
    assert client.post("/tokens", {"name": "all", "permissions": asked}).status_code == 201


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/sandbox/reset", None),
        ("POST", "/sandbox/faults", {"operation": "POST /tokens", "status": 503, "count": 10000}),
        ("DELETE", "/sandbox/faults", None),
        ("POST", "/sandbox/clock/advance", {"seconds": 5 * 365 * 86400}),
    ],
)
def test_the_control_plane_needs_manage(
    client: SandboxClient, as_token: Any, method: str, path: str, body: Any
) -> None:
    payer = as_token("TRANSACT")
    viewer = as_token("VIEW")
    marker = _token(client, "VIEW")["id"]  # a reset would delete it
    year = client.get("/sandbox/clock").json()["now"][:4]
    for user in (payer, viewer):
        refused = user.request(method, path, json=body)
        assert _code(refused) == (403, "FORBIDDEN"), refused.text
        assert "MANAGE" in refused.json()["reason"]
    assert client.get(f"/tokens/{marker}").status_code == 200
    assert client.get("/sandbox/faults").json()["data"] == []
    assert client.get("/sandbox/clock").json()["now"][:4] <= str(int(year) + 1)
    # A simulation still needs TRANSACT only (past the gate: the body is checked).
    assert _code(payer.post("/sandbox/send", {})) == (400, "INVALID_INPUT")
    # MANAGE reaches the control plane.
    manager = as_token("MANAGE")
    if path != "/sandbox/reset":  # (a reset would wipe the module's other tests' data)
        allowed = {"seconds": 1} if path.startswith("/sandbox/clock") else body
        assert manager.request(method, path, json=allowed).status_code < 300


# --- 2. codes stay out of the logs -----------------------------------------------------------


def _raw(server: SandboxServer, request: bytes) -> tuple[int, dict[str, Any]]:
    host, port = server.base_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=60) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


def _oversize(server: SandboxServer, path: str) -> tuple[int, dict[str, Any]]:
    """``path`` with a declared body of 99,999,999 bytes and none sent."""
    host = server.base_url.split("//", 1)[1].split("/", 1)[0]
    return _raw(
        server,
        (
            f"POST {BASE}{path} HTTP/1.1\r\nHost: {host}\r\n"
            "Authorization: Basic cGxhdGZvcm0tdGVzdDpwbGF0Zm9ybS10ZXN0LXNlY3JldA==\r\n"
            "Content-Type: application/json\r\nContent-Length: 99999999\r\n\r\n"
        ).encode(),
    )


def _logged(client: SandboxClient, server: SandboxServer) -> str:
    listed = client.get("/sandbox/requests", params={"limit": 1000})
    assert listed.status_code == 200
    return json.dumps(listed.json()) + server.log_path.read_text()


CLAIM = f"/invitations/{INVITATION}/claim"
REDEEM = f"/agents/device-codes/{DEVICE_CODE}/redeem"
STATUS = f"/agents/device-codes/{DEVICE_CODE}/status"


def test_codes_are_hidden_in_the_gates_own_answers(
    client: SandboxClient, server: SandboxServer
) -> None:
    wrong = SandboxClient(server.base_url, ("platform-test", "wrong"))
    try:
        # 401 from the gate (before any route is reached).
        assert _code(wrong.post(CLAIM, {"inviteeUmaAddress": "$a@b.example"})) == (
            401,
            "UNAUTHORIZED",
        )
        assert _code(wrong.get(STATUS)) == (401, "UNAUTHORIZED")
    finally:
        wrong.close()
    # 413 from the gate (the declared length, before the body).
    for path in (CLAIM, REDEEM):
        status, body = _oversize(server, path)
        assert (status, body["code"]) == (413, "BODY_TOO_LARGE")
    # An injected fault (answered by the gate, the route never reached).
    for operation, path in (
        ("POST /invitations/{invitationCode}/claim", CLAIM),
        ("POST /agents/device-codes/{code}/redeem", REDEEM),
    ):
        armed = client.post("/sandbox/faults", {"operation": operation, "status": 503})
        assert armed.status_code == 201, armed.text
        assert _code(client.post(path, {})) == (503, "SERVICE_UNAVAILABLE")
    # 405: the path matches a route, the method none.
    assert client.request("PUT", CLAIM).status_code == 405
    logged = _logged(client, server)
    for secret in (INVITATION, DEVICE_CODE):
        assert secret not in logged
    listed = client.get("/sandbox/requests", params={"limit": 1000}).json()["data"]
    shown = {(row["path"], row["status"], row["code"]) for row in listed}
    assert (f"{BASE}/invitations/{{invitationCode}}/claim", 401, "UNAUTHORIZED") in shown
    assert (f"{BASE}/invitations/{{invitationCode}}/claim", 413, "BODY_TOO_LARGE") in shown
    assert (f"{BASE}/agents/device-codes/{{code}}/redeem", 503, "SERVICE_UNAVAILABLE") in shown
    assert (f"{BASE}/agents/device-codes/{{code}}/status", 401, "UNAUTHORIZED") in shown


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/invitations/LEAKA/", 307, None),  # a trailing slash: redirected
        ("POST", "/agents/device-codes/LEAKB/redeem/", 307, None),
        ("POST", "/invitations/LEAKC/claim/more", 404, "NOT_FOUND"),  # past the route
        ("GET", "//invitations/LEAKD", 404, "NOT_FOUND"),  # a doubled slash
        ("POST", "/invitations/LEAKE%2Fx/claim", 404, "NOT_FOUND"),  # a slash in the code
        ("GET", "/agents%2Fdevice-codes/LEAKF/status", 401, "UNAUTHORIZED"),  # in a literal
        ("GET", "/invitations%2FLEAKG", 404, "INVITATION_NOT_FOUND"),  # the route reached
    ],
)
def test_codes_are_hidden_in_paths_that_miss_the_route(
    client: SandboxClient,
    server: SandboxServer,
    method: str,
    path: str,
    status: int,
    code: str | None,
) -> None:
    """A code in a path the client got a little wrong stays out of the logs too."""
    auth = None if code == "UNAUTHORIZED" else server.auth
    answer = httpx.request(method, server.base_url + path, auth=auth, timeout=30)
    assert answer.status_code == status, answer.text
    if code is not None:
        assert _code(answer) == (status, code)
    secret = path.split("LEAK", 1)[1][:1]
    assert f"LEAK{secret}" not in _logged(client, server)


# --- 3. the trigger's data -------------------------------------------------------------------


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "data",
    [
        {"x": "\ud800"},
        {"\udfff": "x"},
        {"x": "a\x00b"},
        {"x": "y" * 1001},
        {f"k{i}": "v" * 900 for i in range(30)},  # ~27 KB of JSON
        {f"k{i}": i for i in range(201)},
        _nested(11),
    ],
    ids=["surrogate", "surrogate-key", "nul", "long-string", "large", "members", "deep"],
)
def test_trigger_data_is_bounded(client: SandboxClient, data: Any) -> None:
    before = client.get("/sandbox/events", params={"limit": 1}).json()["totalCount"]
    content = json.dumps({"type": "CUSTOMER.KYC_APPROVED", "data": data})
    response = client.request(
        "POST",
        "/sandbox/events/trigger",
        content=content,
        headers={"content-type": "application/json"},
    )
    assert _code(response) == (400, "INVALID_INPUT"), response.text
    after = client.get("/sandbox/events", params={"limit": 1})
    assert after.status_code == 200
    assert after.json()["totalCount"] == before


def test_trigger_data_within_the_bounds_is_used(client: SandboxClient) -> None:
    made = client.post(
        "/sandbox/events/trigger", {"type": "CUSTOMER.KYC_APPROVED", "data": {"x": "é"}}
    )
    assert made.status_code == 201, made.text
    assert made.json()["payload"]["data"]["x"] == "é"


# --- 4. the token list's date bounds ---------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"createdAfter": "0001-01-01T00:00:00+14:00"},
        {"createdBefore": "9999-12-31T23:59:59-14:00"},
        {"updatedAfter": "0001-01-01T00:00:00+14:00"},
        {"updatedBefore": "9999-12-31T23:59:59.999999-00:01"},
    ],
)
def test_token_list_dates_out_of_range_are_400(
    client: SandboxClient, params: dict[str, str]
) -> None:
    assert _code(client.get("/tokens", params=params)) == (400, "INVALID_INPUT")
    assert _code(client.get("/customers", params=params)) == (400, "INVALID_INPUT")


def test_token_list_dates_in_range(client: SandboxClient) -> None:
    made = client.post("/tokens", {"name": "dated", "permissions": ["VIEW"]}).json()
    for params in (
        {"createdAfter": "0001-01-01T00:00:00Z", "createdBefore": made["createdAt"]},
        {"updatedAfter": made["updatedAt"], "updatedBefore": "9999-12-31T23:59:59Z"},
    ):
        params["name"] = "dated"  # (the list is oldest first, paged)
        listed = client.get("/tokens", params=params)
        assert listed.status_code == 200, listed.text
        assert made["id"] in {item["id"] for item in listed.json()["data"]}
