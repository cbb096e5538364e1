"""The latency ``ewc serve`` adds: one trivial request through ``ewc serve`` and through the same
application under uvicorn's own runner, this checkout side by side with a baseline checkout.

The request is ``GET /2025-10-13/config`` with the platform credentials (HTTP Basic), sent
``--requests`` times in sequence on one kept-alive connection (httpx) after 20 warm-up
requests; p50 and p99 per service. Each code runs three ways on a fresh SQLite database: plain
uvicorn (``--factory`` on ``sandbox_services:make_app``, the same application and settings),
``ewc serve`` as a user starts it (request log on, written to a file), and ``ewc serve --quiet``
where the code has it. The ratio is each row's p50 over plain uvicorn's p50 with the same code
(target: ``ewc serve`` within 1.5x).

Run: ``python benches/serve_latency.py --baseline PATH [--requests 500]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sandbox_services import PLATFORM, Code, HostLoad, running_service

HEADER = (
    "| code | runner | requests | p50 ms | p99 ms | p50 / plain uvicorn |\n"
    "|---|---|---|---|---|---|"
)
WARM_UP = 20


def latencies(base: str, requests: int) -> list[float]:
    """``requests`` sequential ``GET /config`` on one kept-alive connection (seconds each)."""
    import httpx

    times = []
    with httpx.Client(base_url=base, auth=PLATFORM, timeout=30) as api:
        for n in range(WARM_UP + requests):
            began = time.perf_counter()
            answer = api.get("/config")
            elapsed = time.perf_counter() - began
            assert answer.status_code == 200, answer.text
            if n >= WARM_UP:
                times.append(elapsed)
    return sorted(times)


def _has_quiet(code: Code) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "embedded_wallet_crypto", "serve", "--help"],
        env=code.environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return "--quiet" in done.stdout


def measure(codes: list[Code], root: Path, *, requests: int) -> list[str]:
    rows = []
    for code in codes:
        runners: list[tuple[str, tuple[str, ...]]] = [("uvicorn", ()), ("ewc", ())]
        if _has_quiet(code):
            runners.append(("ewc", ("--quiet",)))
        reference = 0.0
        for index, (runner, flags) in enumerate(runners):
            database = f"sqlite:///{root}/{code.name.replace(' ', '-')}-{index}.db"
            with running_service(
                code, database, root / f"{code.name}-{index}", runner=runner, flags=flags
            ) as service:
                times = latencies(service.bases[0], requests)
            p50, p99 = times[len(times) // 2], times[min(len(times) - 1, int(0.99 * len(times)))]
            reference = reference or p50
            how = "plain uvicorn" if runner == "uvicorn" else " ".join(("ewc serve", *flags))
            rows.append(
                f"| {code.name} | {how} | {requests} | {p50 * 1e3:.2f} | {p99 * 1e3:.2f} "
                f"| {p50 / reference:.2f}x |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline", type=Path, default=None, metavar="PATH", help="an older checkout (built)"
    )
    parser.add_argument("--baseline-name", default=None, help="its name in the table")
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    codes = [Code("this checkout")]
    if args.baseline is not None:
        python = args.baseline.resolve() / "python"
        codes.insert(0, Code(args.baseline_name or args.baseline.name, python))
    host = HostLoad()
    with tempfile.TemporaryDirectory() as tmp:
        rows = measure(codes, Path(tmp), requests=args.requests)
    print(HEADER)
    print("\n".join(rows))
    print(host.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
