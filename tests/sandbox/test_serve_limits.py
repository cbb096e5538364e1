"""The limits ``ewc serve``'s options set: idle and half-sent connections are closed (over raw
sockets), and a body over ``--max-body-size`` is refused.

The server runs with ``--request-timeout 1 --keep-alive-timeout 1 --max-body-size 4096``.
Each timeout test opens a connection, sends nothing, part of a request or a whole one, and then
waits for the server to end the connection. Nothing here measures speed: the client's socket
timeout (60 s) is only a bound after which the server is deemed never to close (a failure). A
request whose headers arrived but whose body did not is answered 408 ``REQUEST_TIMEOUT`` before
the close.
"""

from __future__ import annotations

import base64
import json
import socket
from collections.abc import Iterator

import httpx
import pytest

from ._server import PLATFORM_ID, PLATFORM_SECRET, SandboxServer

pytestmark = pytest.mark.sqlite_only  # nothing stored: SQLite only (see the conftest)

BASIC = base64.b64encode(f"{PLATFORM_ID}:{PLATFORM_SECRET}".encode()).decode()
#: Far beyond both timeouts: reaching it means the server never closed the connection.
NEVER = 60.0


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    running = SandboxServer(
        tmp_path_factory.mktemp("timeouts"),
        extra=["--request-timeout", "1", "--keep-alive-timeout", "1", "--max-body-size", "4096"],
    )
    running.start()
    yield running
    assert running.stop() == 0


def _connect(server: SandboxServer) -> socket.socket:
    host, port = server.base_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=NEVER)


def _until_closed(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes; fails if it never does."""
    received = b""
    while True:
        try:
            chunk = connection.recv(65536)
        except TimeoutError:
            pytest.fail(f"the server kept the connection open; it sent {received[:200]!r}")
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def _head(path: str = "/2025-10-13/customers", length: int | None = None) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines.append(f"Authorization: Basic {BASIC}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_connection_that_sends_nothing_is_closed(timed: SandboxServer) -> None:
    with _connect(timed) as connection:
        assert _until_closed(connection) == b""


@pytest.mark.parametrize("sent", [b"PO", b"POST /2025-10-13/customers HTTP/1.1\r\nHost: x"])
def test_half_sent_headers_are_closed(timed: SandboxServer, sent: bytes) -> None:
    with _connect(timed) as connection:
        connection.sendall(sent)
        assert _until_closed(connection) == b""


def test_a_half_sent_body_is_answered_408_and_closed(timed: SandboxServer) -> None:
    with _connect(timed) as connection:
        connection.sendall(_head(length=100) + b'{"customerType": ')
        answer = _until_closed(connection)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 "), answer[:300]
    assert json.loads(body)["code"] == "REQUEST_TIMEOUT"


def test_a_slow_trickle_does_not_keep_a_request_open(timed: SandboxServer) -> None:
    # One byte of headers every 0.1 s or more, each well within a read timeout that restarted
    # with every byte: the deadline covers the whole request, so the server closes the
    # connection long before the 200 bytes (20 s or more) are all sent.
    sent = b"POST /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 150
    with _connect(timed) as connection:
        for byte in sent:
            try:
                connection.sendall(bytes([byte]))
                connection.settimeout(0.1)
                if connection.recv(1) == b"":
                    return  # closed while trickling
            except TimeoutError:
                connection.settimeout(NEVER)
            except (BrokenPipeError, ConnectionResetError):
                return
    pytest.fail("the server accepted a request trickled over 20 s or more")


def test_an_idle_keep_alive_connection_is_closed(timed: SandboxServer) -> None:
    with _connect(timed) as connection:
        connection.sendall(b"GET /2025-10-13/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = _until_closed(connection)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


def test_the_body_limit_is_the_option(timed: SandboxServer) -> None:
    with httpx.Client(base_url=timed.base_url, auth=timed.auth, timeout=NEVER) as http:
        for size, status in ((4096, 201), (4097, 413)):
            body = b'{"customerType": "INDIVIDUAL", "fullName": "' + b"n" * 300 + b'", "x": "'
            body += b"p" * (size - len(body) - 2) + b'"}'
            assert len(body) == size
            response = http.post(
                "/customers", content=body, headers={"content-type": "application/json"}
            )
            assert response.status_code == status, response.text
        assert response.json() == {
            "status": 413,
            "code": "BODY_TOO_LARGE",
            "reason": "The request body is larger than 4096 bytes.",
        }


@pytest.mark.parametrize(
    "sent",
    [
        b"G\x00T /2025-10-13/customers HTTP/1.1\r\nHost: x\r\n\r\n",  # a broken request line
        b"GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nX A: b\r\n\r\n",  # a broken header
        b"GET /2025-10-13/customers HTTP/1.1\r\n\r\n",  # no Host
        _head(length=2)[:-2] + b"Content-Length: 3\r\n\r\n{}",  # two lengths
        _head()[:-2] + b"Transfer-Encoding: gzip\r\n\r\n",  # a coding h11 does not know
        _head()[:-2] + b"Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",  # a bad chunk
    ],
    ids=["request-line", "header", "no-host", "two-lengths", "coding", "chunk"],
)
def test_a_request_that_is_not_http_is_400_in_the_error_shape(
    timed: SandboxServer, sent: bytes
) -> None:
    """What the HTTP parser refuses is answered like any refusal (JSON, a stable code), not
    in the server's plain text, and the connection is closed."""
    with _connect(timed) as connection:
        connection.sendall(sent)
        answer = _until_closed(connection)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), answer[:300]
    assert b"content-type: application/json" in head.lower(), head
    assert json.loads(body) == {
        "status": 400,
        "code": "INVALID_INPUT",
        "reason": "The request is not valid HTTP/1.1.",
    }


def test_a_broken_request_after_an_answered_one_is_400_too(timed: SandboxServer) -> None:
    """On a kept-alive connection, the request after an answered one is refused in the error
    shape as a first one is (the earlier request's answer is not taken for this one's)."""
    answered = b"GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\n\r\n"
    with _connect(timed) as connection:
        connection.sendall(answered + b"GET /2025-10-13/customers HTTP/1.1\r\nX A: b\r\n\r\n")
        answer = _until_closed(connection)
    first, found, second = answer.partition(b"}HTTP/1.1 ")
    assert first.startswith(b"HTTP/1.1 401 ") and found, answer
    head, _, body = second.partition(b"\r\n\r\n")
    assert head.startswith(b"400 "), answer
    assert json.loads(body)["code"] == "INVALID_INPUT"
