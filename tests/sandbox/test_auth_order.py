"""Authentication comes before anything else, over real HTTP in both environments.

Every sandbox-only route (found from the app's routes: those with the sandbox-only check)
answers 401 ``UNAUTHORIZED`` without or with wrong platform credentials, in production too;
with the right ones it is 403 ``FORBIDDEN`` in production and not refused in the sandbox. Every
route that takes platform credentials answers 401 without them, whatever else is wrong with the
request (an unknown id, a body that is not valid JSON, a body that is too large).
"""

from __future__ import annotations

import re

import httpx
import pytest
from embedded_wallet_crypto.sandbox import BASE_PATH
from embedded_wallet_crypto.sandbox.app import ROUTERS
from embedded_wallet_crypto.sandbox.deps import require_agent, require_platform, require_sandbox
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from ._server import SandboxServer

pytestmark = pytest.mark.sqlite_only  # nothing stored: SQLite only (see the conftest)


def _calls(dependant: Dependant) -> set[object]:
    """Every dependency callable under ``dependant``."""
    found: set[object] = set()
    stack = list(dependant.dependencies)
    while stack:
        child = stack.pop()
        found.add(child.call)
        stack.extend(child.dependencies)
    return found


def _routes() -> list[tuple[APIRoute, set[object]]]:
    found = []
    for _prefix, router in ROUTERS:
        for route in router.routes:
            if isinstance(route, APIRoute):
                found.append((route, _calls(route.dependant)))
    return found


def _requests(check: object) -> list[tuple[str, str]]:
    """(method, path) of each route with ``check`` among its dependencies; path ids made up."""
    out = []
    for route, calls in _routes():
        if check in calls:
            path = BASE_PATH + re.sub(r"\{[^}]+\}", "Unknown:1", route.path)
            out.extend((method, path) for method in sorted(route.methods))
    return out


SANDBOX_ONLY = _requests(require_sandbox)
PLATFORM = _requests(require_platform)
AGENT = _requests(require_agent)


def test_the_routes_were_found() -> None:
    # Every route under /sandbox is sandbox-only, but the key the webhooks verify with.
    under_sandbox = {
        (method, path)
        for method, path in PLATFORM
        if path.startswith(f"{BASE_PATH}/sandbox/") and not path.endswith("/webhook-public-key")
    }
    assert set(SANDBOX_ONLY) == under_sandbox, set(SANDBOX_ONLY) ^ under_sandbox
    assert len(SANDBOX_ONLY) >= 14, SANDBOX_ONLY  # simulations, control plane, events
    assert len(PLATFORM) > 30, len(PLATFORM)
    assert set(SANDBOX_ONLY) <= set(PLATFORM)
    assert len(AGENT) >= 10, AGENT
    assert not set(AGENT) & set(PLATFORM)


def _origin(server: SandboxServer) -> str:
    return server.base_url.removesuffix(BASE_PATH)


def _unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401, (response.request.url, response.text[:300])
    body = response.json()
    assert body == {"status": 401, "code": "UNAUTHORIZED", "reason": body["reason"]}
    assert response.headers["www-authenticate"].startswith("Basic")


#: Sandbox-only routes that answer before their (empty) body is checked: the test webhook
#: needs an endpoint configured first, an unknown event is not found.
_ANSWERED_FIRST = {
    "/sandbox/webhooks/test": (400, "WEBHOOK_ENDPOINT_NOT_SET"),
    "/sandbox/events/Unknown:1/resend": (404, "EVENT_NOT_FOUND"),
}


@pytest.mark.parametrize(("method", "path"), SANDBOX_ONLY)
def test_sandbox_only_routes_authenticate_first(
    server: SandboxServer, method: str, path: str
) -> None:
    with httpx.Client(base_url=_origin(server), timeout=30) as http:
        for auth in (None, ("platform-test", "wrong"), ("nobody", "x")):
            _unauthorized(http.request(method, path, json={}, auth=auth))
        right = http.request(method, path, json={}, auth=server.auth)
    if server.environment == "production":
        assert right.status_code == 403, right.text
        assert right.json() == {
            "status": 403,
            "code": "FORBIDDEN",
            "reason": "Sandbox-only endpoints are not available in production.",
        }
    elif path.removeprefix(BASE_PATH) in _ANSWERED_FIRST:
        status, code = _ANSWERED_FIRST[path.removeprefix(BASE_PATH)]
        assert (right.status_code, right.json()["code"]) == (status, code), right.text
    elif method in ("GET", "DELETE") or path.endswith("/sandbox/reset"):  # no body to check
        assert right.status_code in (200, 204), right.text
    else:  # reaches validation: the empty body is missing its fields
        assert right.status_code == 400, right.text
        assert right.json()["code"] == "INVALID_INPUT"


BODIES = {
    "empty object": (b"{}", {"content-type": "application/json"}),
    "not JSON": (b"{not json", {"content-type": "application/json"}),
    "too deep": (b"[" * 100_000 + b"]" * 100_000, {"content-type": "application/json"}),
    "too large": (b"{}", {"content-type": "application/json", "content-length": "9" * 12}),
}


def test_every_platform_route_authenticates_before_anything_else(server: SandboxServer) -> None:
    with httpx.Client(base_url=_origin(server), timeout=30) as http:
        for method, path in PLATFORM:
            for name, (content, headers) in BODIES.items():
                if name == "too large":
                    _unauthorized(_raw_request(server, method, path, headers))
                    continue
                response = http.request(method, path, content=content, headers=headers)
                _unauthorized(response)


def _agent_unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401, (response.request.url, response.text[:300])
    body = response.json()
    assert body == {"status": 401, "code": "UNAUTHORIZED", "reason": body["reason"]}
    assert "Bearer" in body["reason"] or "agent access token" in body["reason"], body


def test_every_agent_route_authenticates_before_anything_else(server: SandboxServer) -> None:
    """The agents' own routes (``/agents/me``, a Bearer token) likewise: without a token, with
    another scheme or with an unknown token, 401 before the body is read or checked."""
    tokens: list[dict[str, str]] = [
        {},
        {"authorization": "Basic cGxhdGZvcm0tdGVzdDpwbGF0Zm9ybS10ZXN0LXNlY3JldA=="},
        {"authorization": "Bearer not-a-token"},
    ]
    with httpx.Client(base_url=_origin(server), timeout=30) as http:
        for method, path in AGENT:
            for token in tokens:
                for name, (content, headers) in BODIES.items():
                    if name == "too large":
                        _agent_unauthorized(
                            _raw_request(server, method, path, {**headers, **token})
                        )
                        continue
                    response = http.request(
                        method, path, content=content, headers={**headers, **token}
                    )
                    _agent_unauthorized(response)


def _raw_request(
    server: SandboxServer, method: str, path: str, headers: dict[str, str]
) -> httpx.Response:
    """A request whose Content-Length promises more than is sent (httpx would refuse)."""
    import socket

    host, port = _origin(server).split("//", 1)[1].rsplit(":", 1)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    with socket.create_connection((host, int(port)), timeout=60) as connection:
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n{}").encode())
        answer = b""
        while True:
            head, _, rest = answer.partition(b"\r\n\r\n")
            length = re.search(rb"(?i)content-length: *(\d+)", head)
            if length and len(rest) >= int(length.group(1)):
                break
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    status = int(head.split(b" ", 2)[1])
    fields = [line.split(b":", 1) for line in head.split(b"\r\n")[1:]]
    return httpx.Response(
        status,
        headers=[(k.strip().decode(), v.strip().decode()) for k, v in fields],
        content=rest,
        request=httpx.Request(method, _origin(server) + path),
    )


_BASIC = "Basic cGxhdGZvcm0tdGVzdDpwbGF0Zm9ybS10ZXN0LXNlY3JldA=="  # the right credentials


def test_a_repeated_authorization_header_is_401(server: SandboxServer) -> None:
    """Two ``Authorization`` headers are refused, never one of them taken (a proxy in front
    may have read the other), whether the right credentials come first, last or twice."""
    twice = "The request has more than one Authorization header."
    with httpx.Client(base_url=_origin(server), timeout=30) as http:
        for pair in ((_BASIC, "Basic eDp5"), ("Basic eDp5", _BASIC), (_BASIC, _BASIC)):
            headers = [("authorization", value) for value in pair]
            answer = http.get(f"{BASE_PATH}/customers", headers=headers)
            _unauthorized(answer)
            assert answer.json()["reason"] == twice
        bearer = [("authorization", "Bearer a"), ("authorization", "Bearer b")]
        answer = http.get(f"{BASE_PATH}/agents/me", headers=bearer)
        assert answer.status_code == 401, answer.text
        assert answer.json() == {"status": 401, "code": "UNAUTHORIZED", "reason": twice}
        assert answer.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "name", ["Idempotency-Key", "Request-Id", "Service-Wallet-Signature", "Content-Type"]
)
def test_a_repeated_header_the_service_reads_once_is_400(server: SandboxServer, name: str) -> None:
    """Which of two values would count is not guessed: 400, and nothing is made."""
    values = ["application/json", "text/plain"] if name == "Content-Type" else ["one", "two"]
    body = b'{"name": "twice", "permissions": ["VIEW"]}'
    with httpx.Client(base_url=_origin(server), timeout=30, auth=server.auth) as http:
        before = http.get(f"{BASE_PATH}/tokens").json()["totalCount"]
        headers = [("content-type", "application/json")] if name != "Content-Type" else []
        headers += [(name, value) for value in values]
        answer = http.post(f"{BASE_PATH}/tokens", content=body, headers=headers)
        assert answer.status_code == 400, answer.text
        assert answer.json() == {
            "status": 400,
            "code": "INVALID_INPUT",
            "reason": f"The request has more than one {name} header.",
        }
        assert http.get(f"{BASE_PATH}/tokens").json()["totalCount"] == before
