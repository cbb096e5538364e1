"""Run the benchmarks once and print the ratio table (Markdown) against the targets.

Usage:
    .venv/bin/python benches/report.py                 # run pytest-benchmark, then report
    .venv/bin/python benches/report.py --json run.json # report on an existing JSON run
    .venv/bin/python benches/report.py --save-json run.json  # run, and keep the JSON

Exit status: 0 when the benchmarks ran (targets missed or not: this is a report), 1 when the
benchmark run failed, 2 when an expected benchmark is missing from the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from report_rows import (
    EXPORT_ROWS,
    IMPORT_GROUP,
    IMPORT_TARGET_SECONDS,
    OIDC_ROWS,
    PASSKEY_ROWS,
    PROTOCOL_ROWS,
    RETRY_GROUP,
    RETRY_ROWS,
    ROWS,
    STAMP_SCHEME_ROWS,
    TOKEN_ROWS,
    Row,
    _thread_rows,
)

REPO = Path(__file__).resolve().parent.parent


def _report_import(by_key: dict[tuple[str, str], dict[str, Any]]) -> list[str]:
    """The import-time table: each import's own cost (process median minus the bare start-up
    median); returns the rows missing."""
    impls = ("ours", "cryptography-ec", "python-startup")
    benches = {impl: by_key.get((IMPORT_GROUP, impl)) for impl in impls}
    missing = [f"{IMPORT_GROUP}/{impl}" for impl, bench in benches.items() if bench is None]
    if missing:
        return missing
    median = {impl: bench["stats"]["median"] for impl, bench in benches.items() if bench}
    start = median["python-startup"]
    ours, peer = median["ours"] - start, median["cryptography-ec"] - start
    met = "yes" if ours < IMPORT_TARGET_SECONDS else "**no**"
    print(
        '\nImport time (fresh `python -c "import X"`, minus the bare interpreter start of '
        f"{_fmt_time(start)}):\n"
    )
    print("| import | own cost (median) | target | met? |")
    print("|---|---:|---|---|")
    print(
        f"| `embedded_wallet_crypto` | {_fmt_time(ours)} "
        f"| < {_fmt_time(IMPORT_TARGET_SECONDS)} | {met} |"
    )
    print(f"| `cryptography.hazmat.primitives.asymmetric.ec` (peer) | {_fmt_time(peer)} | - | - |")
    return []


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


def _fmt_ratio(row: Row, ratio: float) -> str:
    # Near the threshold, two decimals could show "2.00x" for a miss: show three.
    threshold = {"speedup": row.value, "within": 1 / row.value if row.value else 0.0}
    limit = threshold.get(row.kind)
    if limit and abs(ratio - limit) < 0.01 * limit:
        return f"{ratio:.3f}x"
    return f"{ratio:.2f}x"


def _fmt_target(row: Row) -> str:
    if row.kind == "speedup":
        return f">= {row.value:g}x"
    if row.kind == "within":
        return f"ours <= {row.value:g}x peer"
    return "informational"


def _met(row: Row, ours: float, peer: float) -> str:
    if row.kind == "speedup":
        return "yes" if peer / ours >= row.value else "**no**"
    if row.kind == "within":
        return "yes" if ours <= row.value * peer else "**no**"
    return "-"


def _cpu_model() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 0
    return f"{model} ({count} logical CPUs available)"


def _load() -> str | None:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return None


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _versions() -> str:
    parts = [f"Python {platform.python_version()} ({platform.python_implementation()})"]
    ewc_version = _version("embedded-wallet-crypto")
    if ewc_version == "not installed":
        try:
            import embedded_wallet_crypto

            ewc_version = embedded_wallet_crypto.__version__
        except ImportError:
            pass
    parts.append(f"embedded-wallet-crypto {ewc_version}")
    crypto = f"cryptography {_version('cryptography')}"
    try:
        from cryptography.hazmat.backends.openssl import backend

        crypto += f" ({backend.openssl_version_text()})"
    except Exception:  # version text is cosmetic only
        pass
    parts.append(crypto)
    peers = ("pyhpke", "base58", "webauthn", "PyJWT", "pytest-benchmark")
    parts += [f"{d} {_version(d)}" for d in peers]
    return ", ".join(parts)


def _busy_ticks() -> int | None:
    """System-wide non-idle CPU time in clock ticks, from /proc/stat (None where unavailable)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal (guest time is already inside user)
    values = [int(v) for v in fields[:8]]
    return sum(values) - values[3] - values[4]


def run_benchmarks(json_path: Path, notes: list[str]) -> int:
    """Run pytest-benchmark once; append notes on how quiet the machine was to ``notes``."""
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "benches",
        "-q",
        "--benchmark-only",
        f"--benchmark-json={json_path}",
    ]
    print("running:", " ".join(cmd), file=sys.stderr, flush=True)
    load = _load()
    if load is not None:
        notes.append(f"Load average (1/5/15 min) just before the run: {load}")
        if os.getloadavg()[0] > 0.5:
            print(
                "warning: the machine is busy (load average > 0.5); medians will be noisy, "
                "the thread-scaling rows most of all",
                file=sys.stderr,
                flush=True,
            )
    busy_before = _busy_ticks()
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    # pytest's own output (progress and pytest-benchmark's table) goes to stderr, keeping
    # stdout for the Markdown report.
    proc = subprocess.run(cmd, cwd=REPO, stdout=sys.stderr, check=False)
    elapsed = time.monotonic() - started
    busy_after = _busy_ticks()
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if busy_before is not None and busy_after is not None:
        busy = (busy_after - busy_before) / os.sysconf("SC_CLK_TCK")
        ours = (children_after.ru_utime - children_before.ru_utime) + (
            children_after.ru_stime - children_before.ru_stime
        )
        other = max(0.0, busy - ours)
        notes.append(
            f"Run time {elapsed:.0f} s; CPU used by other processes meanwhile: {other:.1f} s "
            f"({'quiet' if other < 0.05 * elapsed else 'NOT quiet: treat the medians with care'})"
        )
    if proc.returncode != 0 or not json_path.is_file():
        print(f"benchmark run failed (pytest exit status {proc.returncode})", file=sys.stderr)
        return 1
    return 0


def report(data: dict[str, Any], notes: list[str] | None = None) -> int:
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    batch = None
    for bench in data.get("benchmarks", []):
        impl = bench.get("extra_info", {}).get("impl")
        if impl is not None:
            by_key[(bench["group"], impl)] = bench
        if str(bench.get("group")).startswith("threads-"):
            batch = bench.get("extra_info", {}).get("batch", batch)
    thread_rows = _thread_rows(batch or 2000)
    rows = ROWS + thread_rows + PROTOCOL_ROWS + OIDC_ROWS + EXPORT_ROWS + PASSKEY_ROWS + TOKEN_ROWS
    rows += STAMP_SCHEME_ROWS

    when = data.get("datetime", "unknown date")
    print("### Results\n")
    print(f"- Date: {when}")
    print(f"- CPU: {_cpu_model()}")
    for note in notes or []:
        print(f"- {note}")
    print(f"- Versions: {_versions()}")
    print(
        "- Medians from one pytest-benchmark run; speed-up = peer median / ours median "
        "(for thread rows: 1-thread batch median / 2-thread batch median)\n"
    )
    print("| operation | ours median | peer median | speed-up (peer/ours) | target | met? |")
    print("|---|---:|---:|---:|---|---|")
    missing = []
    for row in rows:
        ours = by_key.get((row.group, row.ours))
        peer = by_key.get((row.group, row.peer))
        if ours is None or peer is None:
            missing += [
                f"{row.group}/{i}" for i, b in ((row.ours, ours), (row.peer, peer)) if not b
            ]
            print(f"| {row.label} | n/a | n/a | n/a | {_fmt_target(row)} | missing |")
            continue
        o, p = ours["stats"]["median"], peer["stats"]["median"]
        print(
            f"| {row.label} | {_fmt_time(o)} | {_fmt_time(p)} | {_fmt_ratio(row, p / o)} "
            f"| {_fmt_target(row)} | {_met(row, o, p)} |"
        )

    thread_lines = []
    for row in thread_rows:
        for impl in (row.peer, row.ours):
            bench = by_key.get((row.group, impl))
            if bench:
                n = bench.get("extra_info", {}).get("batch", batch or 2000)
                ops = n / bench["stats"]["median"]
                thread_lines.append(f"{row.group} {impl}: {ops:,.0f} ops/s")
    for row in PROTOCOL_ROWS + STAMP_SCHEME_ROWS[-1:]:
        for impl in (row.peer, row.ours):
            bench = by_key.get((row.group, impl))
            n = bench.get("extra_info", {}).get("ops") if bench else None
            if n:
                ops = n / bench["stats"]["median"]
                thread_lines.append(f"{row.group} {impl}: {ops:,.0f} ops/s")
    if thread_lines:
        print("\nThroughput: " + "; ".join(thread_lines) + ".")

    missing += _report_retry(by_key)
    missing += _report_import(by_key)
    if missing:
        print("\nmissing benchmarks: " + ", ".join(sorted(set(missing))), file=sys.stderr)
        return 2
    return 0


def _report_retry(by_key: dict[tuple[str, str], dict[str, Any]]) -> list[str]:
    """The SignedRetry.verify table (ops/s, no target); returns the required rows missing."""
    print(
        "\nSignedRetry.verify (EXPORT_WALLET, challenge issued and stamped before the timing; "
        "each round verifies and claims one request id), no target:\n"
    )
    print("| store | median | ops/s |")
    print("|---|---:|---:|")
    missing = []
    for label, impl, required in RETRY_ROWS:
        bench = by_key.get((RETRY_GROUP, impl))
        if bench is None:
            if required:
                missing.append(f"{RETRY_GROUP}/{impl}")
                print(f"| {label} | n/a | missing |")
            else:
                why = "pytest -rs says why: no redis-server or postgresql?"
                print(f"| {label} | skipped | ({why}) |")
            continue
        median = bench["stats"]["median"]
        print(f"| {label} | {_fmt_time(median)} | {1 / median:,.0f} |")
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="report on this pytest-benchmark JSON")
    parser.add_argument("--save-json", type=Path, help="keep the JSON of this run here")
    args = parser.parse_args(argv)

    if args.json is not None:
        return report_file(args.json)
    notes: list[str] = []
    if args.save_json is not None:
        json_path = args.save_json.resolve()
        return run_benchmarks(json_path, notes) or report_file(json_path, notes)
    with tempfile.TemporaryDirectory(prefix="ewc-bench-") as tmpdir:
        json_path = Path(tmpdir) / "bench.json"
        return run_benchmarks(json_path, notes) or report_file(json_path, notes)


def report_file(json_path: Path, notes: list[str] | None = None) -> int:
    try:
        data = json.loads(json_path.read_text())
    except (OSError, ValueError) as exc:
        print(f"cannot read {json_path}: {exc}", file=sys.stderr)
        return 1
    if not data.get("benchmarks"):
        print(f"no benchmarks in {json_path}", file=sys.stderr)
        return 1
    return report(data, notes)


if __name__ == "__main__":
    sys.exit(main())
