"""Shared test helpers: where the upstream vectors are, and how their absence is reported."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import core as hypothesis_core

# The store fixtures (redis_server, postgres_server, store) shared by the store test files; the
# signed-retry fixtures (clock, retry) shared by the signed-retry test files; the fixed P-256 key
# (kp, crypto_pub) shared by the key test files; the HPKE recipient (recipient) shared by the
# HPKE test files.
pytest_plugins = ["_store_fixtures", "_signed_retry_support", "_p256_support", "_hpke_support"]

REPO = Path(__file__).resolve().parent.parent
VECTORS_DIR = REPO / "vectors"

# Hypothesis (and Schemathesis, which runs on it), project-wide (a test's own settings(...)
# override only what they name):
# - no deadline and no too_slow health check: both are wall-clock limits, which a loaded 2-core
#   machine misses without anything being wrong;
# - one seed per run, drawn anew each time (CI too: a rerun looks somewhere else) and printed in
#   the header and the summary; EWC_TEST_SEED=N replays a run's examples;
# - under CI=true no example database (HYPOTHESIS_PROFILE=ci or =dev picks one explicitly);
#   print_blob lets one failure be replayed on its own.
settings.register_profile(
    "dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("ci", settings.get_profile("dev"), database=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE")
    or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
)


def _run_seed() -> int:
    """``$EWC_TEST_SEED``, or one drawn now and put there, so that the pytest-xdist workers,
    started after this, use the same one."""
    text = os.environ.get("EWC_TEST_SEED", "").strip()
    if not text.isdigit():
        text = str(secrets.randbelow(2**32))
        os.environ["EWC_TEST_SEED"] = text
    return int(text)


SEED = _run_seed()
hypothesis_core.global_force_seed = SEED  # as --hypothesis-seed does


def pytest_report_header() -> str:
    return f"EWC_TEST_SEED={SEED} (Hypothesis and Schemathesis; set it to replay this run)"


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
    failed = terminalreporter.stats.get("failed") or terminalreporter.stats.get("error")
    terminalreporter.write_line(
        f"EWC_TEST_SEED={SEED}"
        + (": run again with it to replay the generated examples" if failed else "")
    )
    if _COUNTS:
        terminalreporter.section("vector counts")
        for line in sorted(_COUNTS):  # one order whichever worker ran a test
            terminalreporter.write_line(line)
