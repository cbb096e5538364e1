"""The ``ewc_sandbox`` pytest plugin, run as a user's suite would run it: pytest in a
subprocess on a small test file, the plugin loaded by name (as its ``pytest11`` entry point
loads it), other plugins' autoloading off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tomllib
from conftest import REPO

SUITE = """
import httpx


def test_first(ewc_sandbox):
    assert ewc_sandbox.base_url.startswith("http://127.0.0.1:")
    assert ewc_sandbox.base_url.endswith("/2025-10-13")
    identifier, secret = ewc_sandbox.platform_credentials
    assert identifier and secret
    made = httpx.post(
        ewc_sandbox.base_url + "/customers",
        json={"customerType": "INDIVIDUAL"},
        auth=ewc_sandbox.platform_credentials,
    )
    assert made.status_code == 201, made.text
    listed = httpx.get(
        ewc_sandbox.base_url + "/customers/internal-accounts", auth=ewc_sandbox.platform_credentials
    )
    assert len(listed.json()["data"]) == 2


def test_second_starts_empty(ewc_sandbox):
    listed = httpx.get(
        ewc_sandbox.base_url + "/customers/internal-accounts", auth=ewc_sandbox.platform_credentials
    )
    assert listed.json()["data"] == []  # reset between tests


def test_the_options_reach_the_service(ewc_sandbox):
    auth = ewc_sandbox.platform_credentials
    large = httpx.post(ewc_sandbox.base_url + "/customers", content=b"x" * 600, auth=auth)
    assert large.status_code == 413  # --max-body-size 500, from ewc_sandbox_options
"""

#: Makes the sandbox extra look uninstalled (``import fastapi`` fails, ``find_spec`` is None).
WITHOUT_EXTRA = """
import sys

sys.modules["fastapi"] = None
sys.modules["uvicorn"] = None
"""


def _pytest(directory: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    environment.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "-p", "embedded_wallet_crypto.pytest_plugin", *arguments,
        ],
        cwd=directory,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip


def test_the_fixture_runs_a_service_and_resets_it(tmp_path: Path) -> None:
    (tmp_path / "test_user_suite.py").write_text(SUITE)
    (tmp_path / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture(scope='session')\n"
        "def ewc_sandbox_options():\n    return ['--max-body-size', '500']\n"
    )
    done = _pytest(tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout


def test_without_the_extra_the_fixture_says_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "test_user_suite.py").write_text(
        "def test_uses_it(ewc_sandbox):\n    pass\n\n\ndef test_does_not(): \n    pass\n"
    )
    (tmp_path / "conftest.py").write_text(WITHOUT_EXTRA)
    done = _pytest(tmp_path)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "1 passed" in done.stdout and "1 error" in done.stdout, done.stdout[-3000:]
    assert 'pip install "embedded-wallet-crypto[sandbox]"' in done.stdout


def test_the_plugin_imports_nothing_heavy() -> None:
    probe = (
        "import sys, embedded_wallet_crypto.pytest_plugin\n"
        "heavy = [m for m in ('fastapi', 'sqlalchemy', 'uvicorn', 'httpx', 'pydantic',"
        " 'starlette', 'embedded_wallet_crypto.sandbox') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_entry_point_is_declared() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    points = project["project"]["entry-points"]["pytest11"]
    assert points == {"ewc_sandbox": "embedded_wallet_crypto.pytest_plugin"}
    assert "fastapi-offline>=1.7.7,<2" in project["project"]["optional-dependencies"]["sandbox"]
