"""A throwaway ``redis-server`` on a free loopback port, for the store tests.

The tests skip when the binary is missing (and say so), except under ``CI=true``, where a
missing binary is a failure: ``.ci/run`` installs Debian's ``redis-server``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry


def redis_server_binary() -> str:
    """The path of ``redis-server``; skips visibly when absent, fails under CI."""
    binary = shutil.which("redis-server")
    if binary is None:
        message = "redis-server not found on PATH (Debian: apt-get install redis-server)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + "; CI=true requires it")
        pytest.skip(message)
    return binary


def free_port() -> int:
    """A loopback port free right now (another process may take it before it is bound again:
    ``RedisServer.start`` retries on another port when that happens)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port where connections are refused for as long as the block runs: it is bound
    here and never listened on, so no other process can start a server on it meanwhile."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as reserved:
        reserved.bind(("127.0.0.1", 0))
        port: int = reserved.getsockname()[1]
        yield port


# Debian's packaged default: RDB snapshots, no append-only file (a crash forgets recent writes).
DEBIAN_DEFAULT_PERSISTENCE = ("--save", "3600 1 300 100 60 10000", "--appendonly", "no")
DURABLE_PERSISTENCE = ("--save", "", "--appendonly", "yes", "--appendfsync", "always")


class RedisServer:
    """One ``redis-server`` process in ``directory``: durable by default (append-only file,
    ``appendfsync always``); ``persistence`` replaces those options (for example
    :data:`DEBIAN_DEFAULT_PERSISTENCE`), ``extra`` adds others (``--replicaof``, ...)."""

    def __init__(
        self,
        directory: Path,
        *,
        persistence: tuple[str, ...] = DURABLE_PERSISTENCE,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.binary = redis_server_binary()
        self.persistence = persistence
        self.extra = extra
        self.directory = directory
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start on a free port; if another process takes that port first (our server exits, or
        the port answers with another server's process id), try again on another port."""
        for _ in range(5):
            if self._start_on(free_port()):
                return
        raise RuntimeError(f"redis-server did not start on a free port; see {self.directory}")

    def _start_on(self, port: int) -> bool:
        self.port = port
        command = [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            *self.persistence,
            "--dir", str(self.directory),
            "--daemonize", "no",
            *self.extra,
        ]  # fmt: skip
        log = self._log = (self.directory / "redis.log").open("ab")
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(
            host="127.0.0.1",
            port=self.port,
            socket_connect_timeout=0.2,
            socket_timeout=2,
            retry=Retry(NoBackoff(), 0),  # one try per loop: the loop is the retry
        )
        deadline = time.monotonic() + 30
        try:
            while self.process.poll() is None:
                try:
                    if client.info("server")["process_id"] == self.process.pid:
                        return True
                    break  # another process's server answers on this port
                except (redis.ConnectionError, redis.TimeoutError):  # not up yet: wait
                    if time.monotonic() > deadline:
                        self.stop()
                        raise RuntimeError(f"redis-server did not start; see {log.name}") from None
                    time.sleep(0.02)
                except redis.RedisError:  # a server that is not ours answers
                    break
        finally:
            client.close()
        self.stop()  # ours exited (the port was taken) or is not the one answering
        return False

    def stop(self) -> None:
        """Shut down cleanly (SIGTERM: Redis flushes the append-only file and exits)."""
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()
