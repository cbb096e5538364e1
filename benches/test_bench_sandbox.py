"""The sandbox service under load (benches/sandbox_load.py): signed retries per second over
real HTTP, 1 and 2 uvicorn workers, SQLite and PostgreSQL, p50/p99, and the library's share of
the service's CPU time.

With ``--benchmark-disable`` (the normal test run) it is a smoke test: one SQLite service with
one worker, five signed retries. With benchmarks on, pytest-benchmark times sequential signed
retries on SQLite with one worker, and the whole table is printed and kept in ``extra_info``
(``EWC_BENCH_SANDBOX_SECONDS`` per row, default 10).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _test_helper(name: str) -> Any:
    """A module of tests/ (``_postgres_server``, ``_ci``), loaded by its path."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "tests" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


# A missing extra skips locally and fails under CI=true.
_test_helper("_ci").require_module("fastapi", "the sandbox extra is not installed")
sys.path.insert(0, str(HERE))  # sandbox_load, also the module uvicorn's workers import

import sandbox_load  # noqa: E402

SECONDS = float(os.environ.get("EWC_BENCH_SANDBOX_SECONDS", "10"))


def _postgres_helper() -> Any:
    return _test_helper("_postgres_server")


@pytest.fixture
def postgres_dsn(benchmark: Any) -> Iterator[str | None]:
    """A throwaway PostgreSQL for the full run (skips without it; none for the smoke test)."""
    if benchmark.disabled:
        yield None
        return
    server = _postgres_helper().PostgresServer()
    server.start()
    try:
        yield server.dsn
    finally:
        server.destroy()


def test_sandbox_signed_retry_load(
    benchmark: Any, tmp_path: Path, postgres_dsn: str | None
) -> None:
    import httpx

    benchmark.group = "sandbox-signed-retry"
    benchmark.extra_info["impl"] = "ours"
    sqlite = f"sqlite:///{tmp_path}/bench.db"
    (tmp_path / "timed").mkdir()
    with (
        sandbox_load.running_service(sqlite, 1, tmp_path / "timed") as (base, pid),
        httpx.Client(base_url=base, auth=sandbox_load.PLATFORM, timeout=60) as api,
    ):
        wallets = sandbox_load.prepare(base, 1)
        # Disabled: one call, untimed. Enabled: 50 sequential signed retries.
        benchmark.pedantic(
            sandbox_load.export_once, args=(api, wallets[0]), rounds=50, warmup_rounds=5
        )
        if benchmark.disabled:  # the smoke test: the load loop and the CPU count work
            result = sandbox_load.load(base, pid, wallets, operations=5)
            assert result.operations == 5 and len(result.latencies) == 5
            assert result.server_cpu > 0
            return
    databases = [("SQLite", f"sqlite:///{tmp_path}/matrix.db")]
    if postgres_dsn is not None:
        databases.append(("PostgreSQL", postgres_dsn))
    print("\n" + sandbox_load.HEADER)
    rows = sandbox_load.measure(databases, tmp_path, seconds=SECONDS, clients=4)
    benchmark.extra_info["table"] = "\n".join([sandbox_load.HEADER, *rows])
