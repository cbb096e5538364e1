"""The examples of ``docs/sandbox-control.md`` run as written: each ``bash`` block with curl
against a real ``ewc serve``, the ``python`` block as a user's test suite under pytest with the
``ewc_sandbox`` plugin."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

from ._server import SandboxServer

PAGE = REPO / "docs" / "sandbox-control.md"

pytestmark = pytest.mark.sqlite_only  # the page's examples, not storage


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), flags=re.S)


@pytest.fixture(scope="module")
def docs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    running = SandboxServer(tmp_path_factory.mktemp("control-docs"))
    running.start()
    yield running
    assert running.stop() == 0


def _run(server: SandboxServer, script: str, directory: Path) -> list[str]:
    if shutil.which("curl") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("curl is missing (scripts/setup.sh installs it)")
        pytest.skip("curl is not installed")
    env = {
        **os.environ,
        "EWC_BASE": server.base_url,
        "EWC_AUTH": ":".join(server.auth),
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_the_page_has_its_examples() -> None:
    assert len(_blocks("bash")) == 5
    assert len(_blocks("python")) == 1


def test_the_clock_example(docs_server: SandboxServer, tmp_path: Path) -> None:
    now, moved, refused = _run(docs_server, _blocks("bash")[0], tmp_path)
    assert set(json.loads(now)) == {"now"} and set(json.loads(moved)) == {"now"}
    assert json.loads(moved)["now"] > json.loads(now)["now"]
    assert json.loads(refused)["code"] == "INVALID_INPUT"


def test_the_reset_example(docs_server: SandboxServer, tmp_path: Path) -> None:
    status, listed = _run(docs_server, _blocks("bash")[1], tmp_path)
    assert status == "204"
    assert json.loads(listed)["data"] == []


def test_the_request_log_example(docs_server: SandboxServer, tmp_path: Path) -> None:
    (line,) = _run(docs_server, _blocks("bash")[2], tmp_path)
    (entry,) = json.loads(line)["data"]
    assert entry["path"].endswith("/transactions/Transaction:unknown")
    assert (entry["status"], entry["code"]) == (404, "NOT_FOUND")


def test_the_faults_example(docs_server: SandboxServer, tmp_path: Path) -> None:
    lines = _run(docs_server, _blocks("bash")[3], tmp_path)
    assert lines[0].startswith("HTTP/1.1 503")
    assert lines[1].lower() == "retry-after: 2"
    assert lines[2] == "200"


def test_the_explorer_example(docs_server: SandboxServer, tmp_path: Path) -> None:
    redirect, version = _run(docs_server, _blocks("bash")[4], tmp_path)
    assert redirect.startswith("307 ") and redirect.endswith("/2025-10-13/docs")
    assert version.startswith("3.")


def test_the_pytest_example(tmp_path: Path) -> None:
    (tmp_path / "test_from_the_docs.py").write_text(_blocks("python")[0])
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    environment.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "-p", "embedded_wallet_crypto.pytest_plugin",
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
