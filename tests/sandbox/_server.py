"""``ewc serve`` as a real subprocess on a free loopback port, for the sandbox tests.

:class:`SandboxServer` starts the command with a temporary database (SQLite file, or a
PostgreSQL DSN) and mail directory, waits for the line with the base URL, and stops it with
SIGTERM (it must exit 0). ``restart()`` keeps the database; ``start_another()`` starts a second
process on the same database (and Redis), for the multi-process tests.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

PLATFORM_ID = "platform-test"
PLATFORM_SECRET = "platform-test-secret"
_READY = re.compile(r"ready at (http://\S+)")
_EWC = str(Path(sys.executable).with_name("ewc"))


class SandboxServer:
    """One ``ewc serve`` process.

    Args:
        root: a directory of its own (database file, mail dir, log).
        database: ``--database`` (default: a SQLite file in ``root``).
        environment: ``sandbox`` or ``production``.
        extra: more ``ewc serve`` arguments (``--oidc-issuer``, ``--redis``, ...).
    """

    def __init__(
        self,
        root: Path,
        *,
        database: str | None = None,
        environment: str = "sandbox",
        extra: Sequence[str] = (),
        time_scale: float = 1.0,
    ) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.database = database or f"sqlite:///{root / 'sandbox.db'}"
        self.environment = environment
        self.mail_dir = root / "mail"
        self.extra = list(extra)
        self.time_scale = time_scale
        self.auth = (PLATFORM_ID, PLATFORM_SECRET)
        self.process: subprocess.Popen[str] | None = None
        self.base_url = ""
        self.origin = ""
        self._log: IO[str] | None = None

    @property
    def log_path(self) -> Path:
        return self.root / "serve.log"

    def command(self) -> list[str]:
        return [
            _EWC,
            "serve",
            "--port", "0",
            "--database", self.database,
            "--environment", self.environment,
            "--platform-credentials", f"{PLATFORM_ID}:{PLATFORM_SECRET}",
            "--mail-dir", str(self.mail_dir),
            "--rp-id", "localhost",
            "--origin", "http://localhost:8000",
            "--time-scale", str(self.time_scale),
            *self.extra,
        ]  # fmt: skip

    def start(self, timeout: float = 60) -> str:
        """Start and wait for the ready line; returns the base URL."""
        self._log = self.log_path.open("a")
        self.process = subprocess.Popen(
            self.command(),
            cwd=self.root,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        found: list[str] = []
        stdout = self.process.stdout
        assert stdout is not None

        def read() -> None:
            for line in stdout:
                if not found:
                    match = _READY.search(line)
                    if match:
                        found.append(match.group(1))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        deadline = time.monotonic() + timeout
        while not found:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"ewc serve did not start; see {self.log_path}:\n"
                    + self.log_path.read_text()[-3000:]
                )
            time.sleep(0.02)
        self.base_url = found[0]
        self.origin = "http://localhost:8000"
        return self.base_url

    def stop(self) -> int | None:
        """SIGTERM, then wait; returns the exit status."""
        status = None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    status = self.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    status = self.process.wait()
            else:
                status = self.process.returncode
            self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None
        return status

    def restart(self) -> str:
        assert self.stop() == 0
        return self.start()

    def start_another(self, name: str = "second") -> SandboxServer:
        """A second process on the same database and settings (its own mail dir and log)."""
        other = SandboxServer(
            self.root / name,
            database=self.database,
            environment=self.environment,
            extra=self.extra,
            time_scale=self.time_scale,
        )
        other.mail_dir = self.mail_dir  # one mailbox: a code sent by either process lands here
        other.start()
        return other
