"""A local stand-in in front of ``ewc serve`` for the retry tests: a real HTTP server that
answers scripted failures (429 with Retry-After, 503, 504, a dropped connection) for the
requests that match a rule, in turn, before or after forwarding them to the service, and
passes everything else through. It records every request it gets."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

import httpx

#: Headers not relayed (hop by hop, or recomputed).
_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "date", "server"}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    action: str


@dataclass
class Proxy:
    upstream: str
    url: str = ""
    rules: list[tuple[str, re.Pattern[str], list[str]]] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def script(self, method: str, path: str, *actions: str) -> None:
        """The next requests ``method`` ``path`` (a regex on the path under the base URL)
        get ``actions`` in turn: ``429:SECONDS``, ``503-date:SECONDS`` (Retry-After as an HTTP
        date), ``409-progress``, ``503``, ``500``, ``forward-503``, ``forward-504``,
        ``forward-drop`` (forwarded, then the connection closed unanswered), ``pass``."""
        with self.lock:
            self.rules.append((method, re.compile(path), list(actions)))

    def requests(self, method: str, path: str) -> list[Seen]:
        pattern = re.compile(path)
        with self.lock:
            return [s for s in self.seen if s.method == method and pattern.fullmatch(s.path)]

    def action_for(self, method: str, path: str) -> str:
        with self.lock:
            for rule_method, pattern, actions in self.rules:
                if rule_method == method and pattern.fullmatch(path) and actions:
                    return actions.pop(0)
        return "pass"


def _error(status: int, code: str) -> bytes:
    return json.dumps({"status": status, "code": code, "reason": f"stand-in {status}"}).encode()


@contextmanager
def running_proxy(upstream_base_url: str) -> Iterator[Proxy]:
    """A proxy of ``upstream_base_url`` (``http://host:port/2025-10-13``); its ``url`` is
    the same base path on the proxy."""
    origin, _, base_path = upstream_base_url.partition("//")[2].partition("/")
    proxy = Proxy(upstream=f"http://{origin}")
    forward = httpx.Client(base_url=proxy.upstream, timeout=30)

    class Handler(http.server.BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length) if length else b""
            path = self.path.split("?")[0].removeprefix(f"/{base_path}")
            action = proxy.action_for(self.command, path)
            with proxy.lock:
                proxy.seen.append(Seen(self.command, path, dict(self.headers.items()), action))
            if action.startswith("429:"):
                return self._answer(429, _error(429, "RATE_LIMITED"), {"Retry-After": action[4:]})
            if action.startswith("503-date:"):
                when = datetime.now(timezone.utc) + timedelta(seconds=int(action[9:]))
                date = format_datetime(when, usegmt=True)
                return self._answer(503, _error(503, "UNAVAILABLE"), {"Retry-After": date})
            if action == "409-progress":
                code = "IDEMPOTENCY_REQUEST_IN_PROGRESS"
                return self._answer(409, _error(409, code), {"Retry-After": "1"})
            if action in ("503", "500"):
                text = b"stand-in failure" if action == "500" else _error(503, "UNAVAILABLE")
                kind = "text/plain" if action == "500" else "application/json"
                return self._answer(int(action), text, {"Content-Type": kind})
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
            response = forward.request(self.command, self.path, content=body, headers=headers)
            if action == "forward-drop":
                self.close_connection = True
                return None
            if action.startswith("forward-"):
                status = int(action.removeprefix("forward-"))
                return self._answer(status, _error(status, "UPSTREAM_LOST"), {})
            relayed = {k: v for k, v in response.headers.items() if k.lower() not in _HOP}
            return self._answer(response.status_code, response.content, relayed)

        def _answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            headers.setdefault("Content-Type", "application/json")
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PATCH = do_DELETE = _handle

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}/{base_path}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        forward.close()
