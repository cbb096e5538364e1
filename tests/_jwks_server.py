"""A real identity provider on loopback for the JWKS tests: http.server in a thread, with
routes, counted requests, an outage mode (every answer 500), a real stop and restart on the same
port, and a gate that withholds every response until the test releases it."""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: How long a gated response waits for its release at most (a safety net, never a verdict).
GATE_LIMIT_SECONDS = 30.0


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


class JwksServer:
    """Routes by path (query included), a hit count per path, and three ways to misbehave:
    ``failing`` (answer 500), ``stop()`` (nothing listens; the port stays reserved so that no
    one else takes it) and ``gated`` (each response waits for ``release``)."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: dict[str, int] = {}
        self.lock = threading.Lock()
        self.failing = False
        self.gated = False
        self.received = threading.Event()  # set when a gated request has arrived
        self.release = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._reserved: socket.socket | None = None
        self._start(0)
        assert self._server is not None
        self.port = self._server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with owner.lock:
                    owner.hits[self.path] = owner.hits.get(self.path, 0) + 1
                    route = owner.routes.get(self.path, Route(404, b"not found"))
                    if owner.failing:
                        route = Route(500, b"internal error")
                    gated = owner.gated
                if gated:
                    owner.received.set()
                    owner.release.wait(GATE_LIMIT_SECONDS)
                self.send_response(route.status)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def _start(self, port: int) -> None:
        server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop listening: connections are refused. The port is held by a socket that never
        listens, so the restart gets it back."""
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
        self._server = None
        reserved = socket.socket()
        reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        reserved.bind(("127.0.0.1", self.port))
        self._reserved = reserved

    def restart(self) -> None:
        assert self._reserved is not None
        self._reserved.close()
        self._reserved = None
        self._start(self.port)

    def close(self) -> None:
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._reserved is not None:
            self._reserved.close()

    def serve_jwks(
        self,
        document: Any,
        cache_control: str | None = "max-age=100",
        path: str = "/jwks.json",
    ) -> None:
        headers = {"Content-Type": "application/json"}
        if cache_control is not None:
            headers["Cache-Control"] = cache_control
        self.routes[path] = Route(200, json.dumps(document).encode(), headers)

    def serve_discovery(self, issuer: str | None = None, jwks_uri: str | None = None) -> None:
        document = {
            "issuer": issuer or self.base,
            "jwks_uri": jwks_uri or f"{self.base}/jwks.json",
        }
        self.routes["/.well-known/openid-configuration"] = Route(200, json.dumps(document).encode())


class Clock:
    """An injected monotonic clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now
