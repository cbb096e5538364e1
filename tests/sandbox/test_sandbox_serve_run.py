"""How ``ewc serve`` runs: the listening socket (``TCP_NODELAY`` on every accepted connection),
the two ready lines, the request log on standard error and ``--quiet``, and ``--workers``."""

from __future__ import annotations

import asyncio
import base64
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from embedded_wallet_crypto.cli._serve_run import listening_socket

EWC = str(Path(sys.executable).with_name("ewc"))
PLATFORM = ("serve-platform", "serve-platform-secret-value")
STAMP = "c2VjcmV0LXN0YW1wLXZhbHVl"  # a Service-Wallet-Signature header value
LOG_LINE = re.compile(r"\[(\d+)\] ([A-Z]+) (/\S*) (\d{3}) (\d+\.\d) ms")


class Serve:
    """``ewc serve`` with its standard error in a file, stopped (SIGTERM) at the end."""

    def __init__(self, root: Path, *extra: str) -> None:
        self.errors = root / "stderr.txt"
        self.process = subprocess.Popen(
            [
                EWC, "serve", "--port", "0", "--database", f"sqlite:///{root / 'serve.db'}",
                "--mail-dir", str(root / "mail"),
                "--platform-credentials", f"{PLATFORM[0]}:{PLATFORM[1]}", *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=self.errors.open("w"),
            text=True,
            cwd=root,
        )  # fmt: skip
        assert self.process.stdout is not None
        self.ready = self.process.stdout.readline()
        self.page = self.process.stdout.readline()
        match = re.search(r"ready at (http://\S+)", self.ready)
        assert match, (self.ready, self.errors.read_text())
        self.base_url = match.group(1)

    def log(self) -> list[str]:
        return self.errors.read_text().splitlines()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[list[Serve]]:
    started: list[Serve] = []
    yield started
    for one in started:
        one.stop()


def test_every_accepted_connection_has_tcp_nodelay() -> None:
    """Without it, each response on a kept-alive connection waited ~40 ms for the client's
    delayed ACK: asyncio sets the option only on sockets whose proto is IPPROTO_TCP."""
    listener = listening_socket("127.0.0.1", 0)
    assert listener.proto == socket.IPPROTO_TCP
    assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    accepted: list[int] = []

    class Record(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            connection = transport.get_extra_info("socket")
            accepted.append(connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    async def accept_one() -> None:
        server = await asyncio.get_running_loop().create_server(Record, sock=listener)
        async with server:
            port = listener.getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(500):  # bounded: the accept is at most a few loop turns away
                if accepted:
                    break
                await asyncio.sleep(0.01)
            writer.close()

    asyncio.run(accept_one())
    assert accepted and accepted[0] != 0


def test_the_ready_lines_give_the_base_url_and_the_page_on_localhost(
    tmp_path: Path, serve: list[Serve]
) -> None:
    serve.append(Serve(tmp_path))
    port = re.search(r"http://127\.0\.0\.1:(\d+)/2025-10-13$", serve[0].ready.strip())
    assert port, serve[0].ready
    assert serve[0].page.strip() == f"Page: http://localhost:{port.group(1)}/"
    page = httpx.get(serve[0].page.split()[-1])
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_the_request_log_has_one_line_per_request_and_no_secret(
    tmp_path: Path, serve: list[Serve]
) -> None:
    serve.append(Serve(tmp_path))
    device_code = "DEVICECODE7Q"
    with httpx.Client(base_url=serve[0].base_url, auth=PLATFORM, timeout=30) as api:
        assert api.get("/config", headers={"Service-Wallet-Signature": STAMP}).status_code == 200
        listed = api.get("/customers/internal-accounts", params={"customerId": "query-secret"})
        assert listed.status_code in (200, 400, 404)
        status = api.get(f"/agents/device-codes/{device_code}/status")
        api.get("/no-such-path", auth=None)
    assert serve[0].stop() == 0
    lines = serve[0].log()
    parsed = [LOG_LINE.fullmatch(line) for line in lines]
    assert len(parsed) == 4, lines
    assert [(m.group(2), m.group(3), m.group(4)) if m else None for m in parsed] == [
        ("GET", "/2025-10-13/config", "200"),
        ("GET", "/2025-10-13/customers/internal-accounts", str(listed.status_code)),
        ("GET", "/2025-10-13/agents/device-codes/{code}/status", str(status.status_code)),
        ("GET", "/2025-10-13/no-such-path", "404"),
    ]
    text = "\n".join(lines)
    basic = base64.b64encode(f"{PLATFORM[0]}:{PLATFORM[1]}".encode()).decode()
    for secret in (PLATFORM[1], basic, STAMP, "query-secret", device_code, "Authorization"):
        assert secret not in text


def test_quiet_writes_no_request_log(tmp_path: Path, serve: list[Serve]) -> None:
    serve.append(Serve(tmp_path, "--quiet"))
    with httpx.Client(base_url=serve[0].base_url, auth=PLATFORM, timeout=30) as api:
        assert api.get("/config").status_code == 200
    assert serve[0].stop() == 0
    assert serve[0].log() == []


def test_workers_serve_one_port_from_several_processes(tmp_path: Path, serve: list[Serve]) -> None:
    serve.append(Serve(tmp_path, "--workers", "2"))
    server = serve[0]
    assert server.page.startswith("Page: http://localhost:")
    children: set[int] = set()
    with ThreadPoolExecutor(8) as pool:
        for _ in range(50):  # bounded: fresh connections, 8 at a time, until both answered
            answers = pool.map(
                lambda _: httpx.get(f"{server.base_url}/config", auth=PLATFORM, timeout=30),
                range(8),
            )
            assert all(answer.status_code == 200 for answer in answers)
            children = {int(m.group(1)) for m in map(LOG_LINE.fullmatch, server.log()) if m}
            if len(children) == 2:
                break
    assert len(children) == 2, server.log()[-5:]
    for pid in children:  # both are ewc serve's own processes; no secret on their command line
        assert Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(
            server.process.pid
        )
        assert PLATFORM[1].encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
    assert server.stop() == 0
    assert server.process.stdout is not None
    assert "ready at" not in server.process.stdout.read()  # the ready line came once
    for pid in children:  # stopped with it
        for _ in range(100):
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.05)
        assert not Path(f"/proc/{pid}").exists()


@pytest.mark.parametrize("workers", ["0", "33", "two"])
def test_bad_worker_counts_exit_2(tmp_path: Path, workers: str) -> None:
    result = subprocess.run(
        [EWC, "serve", "--port", "0", "--database", f"sqlite:///{tmp_path / 'x.db'}",
         "--workers", workers],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "--workers" in result.stderr and "Traceback" not in result.stderr
