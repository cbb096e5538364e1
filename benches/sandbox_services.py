"""The sandbox services the load benchmarks start: under plain uvicorn (``--factory`` on
:func:`make_app`) or through ``ewc serve``, from this checkout or from another one (a baseline
commit, its native extension built), on 127.0.0.1 only, always stopped at the end; and the
load loop's lean HTTP client (:class:`LightClient`).

Used by ``sandbox_load.py`` and ``serve_latency.py``.
"""

from __future__ import annotations

import base64
import http.client
import json as json_module
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
PLATFORM = ("bench-platform", "bench-platform-secret")
BASE_PATH = "/2025-10-13"
START_SECONDS = 120.0
STOP_SECONDS = 30.0


def _settings() -> Any:
    from embedded_wallet_crypto.sandbox import Settings

    return Settings(
        database=os.environ["EWC_BENCH_DATABASE"],
        environment="sandbox",
        platform_credentials=[PLATFORM],
        mail_dir=Path(os.environ["EWC_BENCH_MAIL"]),
    )


def make_app() -> Any:
    """The application factory plain uvicorn calls (settings from the environment)."""
    from embedded_wallet_crypto.sandbox import create_app

    return create_app(_settings())


@dataclass(frozen=True)
class Code:
    """The code a service runs: ``name`` in the tables; ``python``, the ``python`` directory of
    another checkout (None: the code this interpreter imports)."""

    name: str
    python: Path | None = None

    def environment(self, **extra: str) -> dict[str, str]:
        environment = {**os.environ, **extra}
        if self.python is not None:
            environment["PYTHONPATH"] = str(self.python)
        return environment

    def run(self, source: str, **extra: str) -> str:
        """Run Python ``source`` with this code (and the benches directory) importable."""
        done = subprocess.run(
            [sys.executable, "-c", source],
            env=self.environment(**extra),
            cwd=HERE,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{self.name}: {source!r} failed:\n{done.stderr[-3000:]}")
        return done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and all its descendants (Linux ``/proc``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


@dataclass
class Service:
    """A running service: its base URLs (one per port) and the pids of its top processes."""

    bases: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)


def _stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def _uvicorn(
    code: Code, environment: dict[str, str], log: Any, root: Path
) -> Iterator[tuple[str, int]]:
    import httpx

    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "--factory", "sandbox_services:make_app",
            "--app-dir", str(HERE), "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "warning", "--no-access-log",
        ],
        env=environment, stdout=log, stderr=log, cwd=root,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}{BASE_PATH}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                if httpx.get(base + "/openapi.json", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{code.name}: uvicorn did not start; see {root}")
            time.sleep(0.1)
        yield base, process.pid
    finally:
        _stop(process)


@contextmanager
def _ewc_serve(
    code: Code, environment: dict[str, str], log: Any, root: Path, database: str, flags: list[str]
) -> Iterator[tuple[str, int]]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable, "-m", "embedded_wallet_crypto", "serve", "--port", str(port),
            "--database", database, "--mail-dir", str(root / "mail"),
            "--platform-credentials", f"{PLATFORM[0]}:{PLATFORM[1]}", *flags,
        ],
        env=environment, stdout=subprocess.PIPE, stderr=log, cwd=root, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        for line in process.stdout:  # ends at its exit; the ready line comes when all answer
            if "ready at" in line:
                break
        else:
            raise RuntimeError(f"{code.name}: ewc serve did not start; see {root}")
        yield f"http://127.0.0.1:{port}{BASE_PATH}", process.pid
    finally:
        _stop(process)


@contextmanager
def running_service(
    code: Code, database: str, root: Path, *, processes: int = 1, runner: str = "uvicorn",
    flags: tuple[str, ...] = (),
) -> Iterator[Service]:  # fmt: skip
    """The service on ``database``: ``processes`` plain uvicorn processes, one port each
    (``runner="uvicorn"``), or one ``ewc serve`` with ``flags`` (``runner="ewc"``). The tables
    and the platform credentials are made first, once, by ``code``."""
    root.mkdir(parents=True, exist_ok=True)
    environment = code.environment(EWC_BENCH_DATABASE=database, EWC_BENCH_MAIL=str(root / "mail"))
    code.run(
        "import sandbox_services; sandbox_services.make_app()",
        EWC_BENCH_DATABASE=database,
        EWC_BENCH_MAIL=str(root / "mail"),
    )
    service = Service()
    with ExitStack() as stack:
        log = stack.enter_context((root / "service.log").open("a"))
        for n in range(processes if runner == "uvicorn" else 1):
            (root / str(n)).mkdir(exist_ok=True)
            if runner == "uvicorn":
                started = _uvicorn(code, environment, log, root / str(n))
            else:
                started = _ewc_serve(code, environment, log, root, database, list(flags))
            base, pid = stack.enter_context(started)
            service.bases.append(base)
            service.pids.append(pid)
        yield service


def postgres_database(dsn: str, name: str) -> str:
    """A new empty database on the server of ``dsn``; its DSN."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return dsn.rsplit("/", 1)[0] + "/" + name


class HostLoad:
    """How busy the host was around a run: the load average before and after, and the CPU time
    other processes used meanwhile (system-wide busy time minus this process and its
    children)."""

    def __init__(self) -> None:
        self.before = os.getloadavg()
        self.busy = self._busy()
        self.ours = self._ours()
        self.started = time.monotonic()

    @staticmethod
    def _busy() -> float:
        values = [int(v) for v in Path("/proc/stat").read_text().split()[1:9]]
        return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _ours() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def report(self) -> str:
        elapsed = time.monotonic() - self.started
        other = max(0.0, (self._busy() - self.busy) - (self._ours() - self.ours))
        after = os.getloadavg()
        return (
            f"host: load average {self.before[0]:.2f} before, {after[0]:.2f} after; "
            f"{elapsed:.0f} s run, other processes used {other:.0f} CPU s "
            f"({other / elapsed:.2f} cores on average)"
        )


class Answer:
    """One answer of :class:`LightClient`: the status and the body."""

    def __init__(self, status_code: int, content: bytes) -> None:
        self.status_code = status_code
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json_module.loads(self.content)


class LightClient:
    """The load loop's HTTP client: one keep-alive connection (``http.client``), the platform's
    Basic credentials on every request, JSON bodies. The load threads share the host's cores
    with the services, so the client is kept lean; ``prepare`` still uses httpx."""

    def __init__(self, base: str, timeout: float = 60) -> None:
        parts = urlsplit(base)
        self.prefix = parts.path
        self.connection = http.client.HTTPConnection(
            parts.hostname or "", parts.port, timeout=timeout
        )
        token = base64.b64encode(f"{PLATFORM[0]}:{PLATFORM[1]}".encode()).decode()
        self.headers = {"Authorization": f"Basic {token}", "Content-Type": "application/json"}

    def post(self, path: str, json: Any, headers: dict[str, str] | None = None) -> Answer:
        body = json_module.dumps(json).encode()
        self.connection.request(
            "POST", self.prefix + path, body, {**self.headers, **(headers or {})}
        )
        response = self.connection.getresponse()
        return Answer(response.status, response.read())

    def __enter__(self) -> LightClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.connection.close()
