"""Shared test helpers: where the upstream vectors are, and how their absence is reported."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# The store fixtures (redis_server, postgres_server, store) shared by the store test files.
pytest_plugins = ["_store_fixtures"]

REPO = Path(__file__).resolve().parent.parent
VECTORS_DIR = REPO / "vectors"

# Hypothesis, project-wide (a test's own settings(...) override only what they name):
# - no deadline and no too_slow health check: both are wall-clock limits, which a loaded 2-core
#   machine misses without anything being wrong;
# - under CI=true, derandomized (examples from a fixed seed per test, no example database), so
#   a CI verdict is the same on every rerun; locally the examples stay random, to keep looking.
# HYPOTHESIS_PROFILE=ci (or =dev) picks one explicitly; print_blob lets a failure be replayed.
settings.register_profile(
    "dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", settings.get_profile("dev"), derandomize=True, database=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE")
    or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
)


def upstream_dir() -> Path:
    """``$EWC_UPSTREAM_VECTORS`` or ``../shared/upstream-vectors`` next to the checkout."""
    override = os.environ.get("EWC_UPSTREAM_VECTORS")
    return Path(override) if override else REPO.parent / "shared" / "upstream-vectors"


def upstream_file(relative: str) -> Path:
    """The path of one upstream vector file; skips visibly when absent, fails under CI."""
    path = upstream_dir() / relative
    if not path.is_file():
        message = f"upstream vector file {relative} not found under {upstream_dir()}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true: upstream vectors are required)")
        pytest.skip(message + " (set EWC_UPSTREAM_VECTORS)")
    return path


def load_upstream_json(relative: str) -> Any:
    return json.loads(upstream_file(relative).read_text())


_COUNTS: list[str] = []


def report_counts(name: str, **counts: int) -> None:
    """Record the counts a test ran; they are printed in the run's closing summary."""
    detail = ", ".join(f"{key}={value}" for key, value in counts.items())
    _COUNTS.append(f"{name}: {detail}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist, a worker hands its counts to the controller, which prints them."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["vector_counts"] = list(_COUNTS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    _COUNTS.extend(getattr(node, "workeroutput", {}).get("vector_counts", []))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _COUNTS:
        terminalreporter.section("vector counts")
        for line in sorted(_COUNTS):  # one order whichever worker ran a test
            terminalreporter.write_line(line)
