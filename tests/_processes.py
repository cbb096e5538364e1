"""The parent's side of the multi-process races (claims, OTP issues, factors, payload
challenges): spawned workers released together, one report each."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from typing import Any

__all__ = ["run_spawned"]


def run_spawned(count: int, target: Callable[..., None], *args: Any) -> tuple[list[Any], float]:
    """Run ``count`` spawned processes of ``target(worker, *args, barrier, results)``, each
    of which waits at ``barrier`` with the others and puts one report on ``results``. Returns
    the reports (each awaited at most 240 s) and the seconds from the first start to the last
    report; a worker still alive 30 s after that is killed."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(count)
    results = context.Queue()
    workers = [
        context.Process(target=target, args=(worker, *args, barrier, results))
        for worker in range(count)
    ]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    try:
        reports = [results.get(timeout=240) for _ in workers]
    finally:
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
    return reports, time.perf_counter() - started
