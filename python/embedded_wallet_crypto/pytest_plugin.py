"""The ``ewc_sandbox`` pytest fixture: a running sandbox service for a test suite.

Registered as a pytest plugin (the ``pytest11`` entry point ``ewc_sandbox``) by every install of
the package; it imports only the standard library until the fixture is used, so that installs
without the ``sandbox`` extra are not slowed or broken, and a test that uses the fixture without
the extra fails with a message that names it.

>>> def test_a_customer(ewc_sandbox):
...     import httpx
...     created = httpx.post(
...         ewc_sandbox.base_url + "/customers",
...         json={"customerType": "INDIVIDUAL"},
...         auth=ewc_sandbox.platform_credentials,
...     )
...     assert created.status_code == 201

One ``ewc serve`` process per test session, on a free port of 127.0.0.1 and a database in a
temporary directory; before each test that uses the fixture the service is reset
(``POST /sandbox/reset``: every resource and fault removed; the platform's credentials, its
configuration and the test clock stay). Override the ``ewc_sandbox_options`` fixture (session
scope) to add ``ewc serve`` options, for example ``["--seed", "7"]`` or
``["--time-scale", "0.01"]``.
"""

from __future__ import annotations

import base64
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["START_SECONDS", "EwcSandbox", "pytest_configure"]

#: How long the fixture waits for the service to be ready.
START_SECONDS = 120.0
#: The packages of the ``sandbox`` extra the service imports.
_EXTRA = ("fastapi", "fastapi_offline", "sqlalchemy", "uvicorn", "httpx")
_READY = re.compile(r"ready at (http://\S+)")
_CREDENTIALS = re.compile(r"--platform-credentials (\S+?):(\S+)")


class EwcSandbox:
    """A running sandbox service (the ``ewc_sandbox`` fixture's value).

    Attributes:
        base_url: the service's base URL, ending with the version segment
            (``http://127.0.0.1:PORT/2025-10-13``).
        platform_credentials: the platform's HTTP Basic credentials, ``(id, secret)``.
        directory: where its database, mail directory and log are.
    """

    def __init__(self, directory: Path, options: list[str]) -> None:
        self.directory = directory
        self.base_url = ""
        self.platform_credentials: tuple[str, str] = ("", "")
        self._log = (directory / "serve.log").open("w")
        self._process = subprocess.Popen(  # noqa: S603 - this interpreter, fixed arguments
            [
                sys.executable, "-m", "embedded_wallet_crypto", "serve",
                "--port", "0",
                "--database", f"sqlite:///{directory / 'sandbox.db'}",
                "--mail-dir", str(directory / "mail"),
                "--quiet",
                *options,
            ],
            cwd=directory,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        self._wait_ready()

    @property
    def mail_dir(self) -> Path:
        """Where the service writes its emails (one-time codes), one file each."""
        return self.directory / "mail"

    def _wait_ready(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        found: dict[str, Any] = {}

        def read() -> None:
            for line in stdout:
                if match := _CREDENTIALS.search(line):
                    found["credentials"] = (match.group(1), match.group(2))
                if match := _READY.search(line):
                    found["url"] = match.group(1)

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + START_SECONDS
        while "url" not in found:
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = (self.directory / "serve.log").read_text()[-2000:]
                raise RuntimeError(f"ewc serve did not start:\n{log}")
            time.sleep(0.02)
        if "credentials" not in found:
            self.stop()
            raise RuntimeError("ewc serve printed no platform credentials")
        self.base_url = found["url"]
        self.platform_credentials = found["credentials"]

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        """A request to ``base_url + path`` with the platform's credentials (the standard
        library's client); returns the status and the body."""
        token = base64.b64encode(":".join(self.platform_credentials).encode()).decode()
        headers = {"Authorization": f"Basic {token}", "Content-Type": "application/json"}
        made = urllib.request.Request(  # noqa: S310 - the service's own http:// URL
            self.base_url + path, data=body, headers=headers, method=method
        )
        try:
            with urllib.request.urlopen(made, timeout=60) as answer:  # noqa: S310
                return int(answer.status), bytes(answer.read())
        except urllib.error.HTTPError as error:
            return int(error.code), bytes(error.read())

    def reset(self) -> None:
        """``POST /sandbox/reset``: every resource and fault removed."""
        status, body = self.request("POST", "/sandbox/reset")
        if status != 204:
            raise RuntimeError(f"the sandbox reset answered {status}: {body[:300]!r}")

    def stop(self) -> None:
        """Stop the service (SIGTERM, then SIGKILL after 30 seconds)."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._log.close()


def _missing_extra() -> list[str]:
    missing = []
    for name in _EXTRA:
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # a broken install counts as a missing one
            found = None
        if found is None:
            missing.append(name)
    return missing


def pytest_configure(config: Any) -> None:
    """Register the fixtures. pytest is imported here, by pytest's own call: this module, which
    every install registers as a plugin, imports nothing beyond the standard library."""
    import pytest

    class _Fixtures:
        @pytest.fixture(scope="session")
        def ewc_sandbox_options(self) -> list[str]:
            """More ``ewc serve`` options for the session's service (override it in a
            conftest)."""
            return []

        @pytest.fixture(scope="session")
        def _ewc_sandbox_service(self, ewc_sandbox_options: list[str]) -> Iterator[EwcSandbox]:
            missing = _missing_extra()
            if missing:
                pytest.fail(
                    "the ewc_sandbox fixture needs the sandbox extra "
                    f"({', '.join(missing)} missing): "
                    'pip install "embedded-wallet-crypto[sandbox]"',
                    pytrace=False,
                )
            with tempfile.TemporaryDirectory(prefix="ewc-sandbox-") as directory:
                service = EwcSandbox(Path(directory), list(ewc_sandbox_options))
                try:
                    yield service
                finally:
                    service.stop()

        @pytest.fixture
        def ewc_sandbox(self, _ewc_sandbox_service: EwcSandbox) -> EwcSandbox:
            """The session's sandbox service, reset before the test."""
            _ewc_sandbox_service.reset()
            return _ewc_sandbox_service

    config.pluginmanager.register(_Fixtures(), "ewc_sandbox_fixtures")
