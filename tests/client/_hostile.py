"""A hostile stand-in for the service: a real HTTP/1.1 server on a free loopback port that
answers each request with raw bytes a test scripts (broken JSON, a lying Content-Length, a
gzip bomb, a connection closed mid-body, a redirect), in turn, and records what it got (the
request line and headers), so that a test can check what the client sent and what it made of
the answer; and a client of it (``open_client``). The ``hostile`` and ``hostile_client``
fixtures (conftest) are these two."""

from __future__ import annotations

import json
import socket
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from embedded_wallet_crypto.client import RetryPolicy

from ._support import SyncView, make_client

#: An answer: raw bytes, or a callable that writes to the connection itself (slow, endless).
Answer = bytes | Callable[[socket.socket], None]


def response(
    status: int,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    *,
    length: int | None = None,
) -> bytes:
    """Raw HTTP/1.1 answer bytes: ``headers`` as given (Content-Type is not added), a
    Content-Length of ``length`` (default the body's own) unless the headers say chunked,
    and ``Connection: close`` (the stand-in serves one request a connection)."""
    lines = [f"HTTP/1.1 {status} Stand-in", "Connection: close"]
    given = {name.lower() for name in (headers or {})}
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if "transfer-encoding" not in given:
        lines.append(f"Content-Length: {len(body) if length is None else length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def json_answer(status: int, value: Any, headers: dict[str, str] | None = None) -> bytes:
    return response(
        status, json.dumps(value).encode(), {"Content-Type": "application/json", **(headers or {})}
    )


def gzip_bomb(size: int) -> bytes:
    """``size`` zero bytes gzip-compressed (about a thousandth of it), made a MiB at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(2**20)
    parts = [packer.compress(block) for _ in range(size // len(block))]
    return b"".join([*parts, packer.flush()])


@dataclass
class Hostile:
    url: str = ""
    answers: list[Answer] = field(default_factory=list)
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    fallback: Answer = field(default_factory=lambda: json_answer(200, {}))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def script(self, *answers: Answer) -> None:
        """The next requests get ``answers`` in turn; after them, ``fallback``."""
        with self.lock:
            self.answers.extend(answers)

    def next_answer(self) -> Answer:
        with self.lock:
            return self.answers.pop(0) if self.answers else self.fallback


def _read_request(conn: socket.socket) -> tuple[str, dict[str, str]] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for header in header_lines:
        name, _, value = header.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        rest += chunk
    return line, headers


@contextmanager
def hostile_server() -> Iterator[Hostile]:
    """A running :class:`Hostile`; its ``url`` is a base URL (``http://127.0.0.1:PORT/2025-10-13``).
    Each connection serves one request and is closed."""
    hostile = Hostile()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    hostile.url = f"http://127.0.0.1:{listener.getsockname()[1]}/2025-10-13"
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                request = _read_request(conn)
                if request is None:
                    return
                with hostile.lock:
                    hostile.seen.append(request)
                answer = hostile.next_answer()
                if callable(answer):
                    answer(conn)
                else:
                    conn.sendall(answer)
            except OSError:
                pass

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield hostile
    finally:
        stop.set()
        thread.join()
        listener.close()


def open_client(mode: str, hostile: Hostile, **extra: Any) -> Any:
    """A client (``mode``: sync or async) of the stand-in: platform credentials, one retry."""
    options: dict[str, Any] = {
        "platform_credentials": ("platform-id", "platform-secret-1"),
        "retry": RetryPolicy(max_retries=1, backoff=0.01),
        **extra,
    }
    return make_client(mode, hostile.url, **options)


def close_client(client: Any) -> None:
    client.close()
    if isinstance(client, SyncView):
        client._loop.close()
