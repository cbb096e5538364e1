"""A throwaway PostgreSQL server on a free loopback port, for the store tests.

It uses Debian's ``postgresql`` package (``/usr/lib/postgresql/<version>/bin``): ``initdb`` a
temporary data directory, then ``postgres`` itself in the foreground on 127.0.0.1 only (no
Unix socket), with trust authentication for a superuser ``ewc``. PostgreSQL refuses to run as
root, so under root the server runs as ``nobody`` (``subprocess.Popen(user=...)``: the process
id is the server's own, so a test can ``kill -9`` it), with its data directory outside pytest's
root-only tmp dir.

The tests skip when the binaries (or psycopg) are missing, and say so, except under
``CI=true``, where that is a failure: ``scripts/setup.sh`` installs Debian's ``postgresql``.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

RUN_AS_WHEN_ROOT = "nobody"


def free_port() -> int:
    """A loopback port free right now (``PostgresServer.start`` tries another if it is taken
    before the server binds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def postgres_bin_dir() -> Path:
    """The newest ``/usr/lib/postgresql/*/bin`` with ``initdb`` and ``postgres``; skips (or
    fails under CI) when absent or when psycopg is not installed."""
    message = ""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parent.parent.name.split(".")[0]),
    )
    if not candidates:
        message = "PostgreSQL not found (Debian: apt-get install postgresql)"
    else:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            message = "psycopg not installed (pip install 'embedded-wallet-crypto[postgres]')"
    if message:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + "; CI=true requires it")
        pytest.skip(message)
    return Path(candidates[-1]).parent


class PostgresServer:
    """One ``postgres`` process on a temporary data directory; :meth:`stop` removes neither
    (``restart`` reuses it), :meth:`destroy` does."""

    def __init__(self, *, settings: tuple[str, ...] = ()) -> None:
        self.bin_dir = postgres_bin_dir()
        self.settings = settings  # extra "name=value" server settings
        self.user = RUN_AS_WHEN_ROOT if os.geteuid() == 0 else None
        self.root = Path(tempfile.mkdtemp(prefix="ewc-postgres-"))
        self.data = self.root / "data"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        if self.user is not None:
            shutil.chown(self.root, self.user)
        subprocess.run(
            [
                str(self.bin_dir / "initdb"),
                "-D", str(self.data),
                "-U", "ewc",
                "--auth=trust",
                "-E", "UTF8",
                "--locale=C",
                "--no-sync",  # the data directory is throwaway; the server itself fsyncs
            ],
            check=True,
            capture_output=True,
            user=self.user,
        )  # fmt: skip

    @property
    def dsn(self) -> str:
        return f"postgresql://ewc@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        """Start on a free port (on the same port again after a stop, so that a store's DSN
        stays valid); try another when a new one was taken meanwhile."""
        if self.port and self._start_on(self.port):
            return
        for _ in range(5):
            if self._start_on(free_port()):
                return
        raise RuntimeError(f"postgres did not start; see {self.root / 'postgres.log'}")

    def _start_on(self, port: int) -> bool:
        import psycopg

        self.port = port
        log = self._log = (self.root / "postgres.log").open("ab")
        self.process = subprocess.Popen(
            [
                str(self.bin_dir / "postgres"),
                "-D", str(self.data),
                "-p", str(port),
                "-h", "127.0.0.1",
                "-k", "",  # no Unix socket
                "-c", "fsync=on",
                "-c", "synchronous_commit=on",
                "-c", "max_connections=100",
                *(part for setting in self.settings for part in ("-c", setting)),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            user=self.user,
            start_new_session=True,  # kill() takes the whole server, as a crash would
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while self.process.poll() is None:
            try:
                with psycopg.connect(self.dsn, connect_timeout=2) as connection:
                    row = connection.execute("SELECT pg_backend_pid()").fetchone()
                    assert row is not None
                    return True
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError(f"postgres did not start; see {log.name}") from None
                time.sleep(0.05)
        self._close_log()
        self.process = None
        return False  # it exited: most likely the port was taken

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        """Fast shutdown (SIGINT): the server checkpoints and exits."""
        self._close_log()
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
        self.process = None

    def kill(self) -> None:
        """``kill -9`` of the server and all its processes, as a power cut would stop them."""
        self._close_log()
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        # The backends die with the postmaster's group; wait until none is left.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def empty_store(server: PostgresServer) -> Any:
    """A ``PostgresStore`` on ``server`` with its tables emptied (tests share one server)."""
    from embedded_wallet_crypto.stores import PostgresStore

    store = PostgresStore(server.dsn)
    store._connection().execute(
        "TRUNCATE ewc_signed_retry_challenges, ewc_otp_codes, ewc_totp_steps, ewc_recovery_codes"
    )
    return store


@contextmanager
def running_postgres(**options: Any) -> Iterator[PostgresServer]:
    server = PostgresServer(**options)
    try:
        server.start()
        yield server
    finally:
        server.destroy()
