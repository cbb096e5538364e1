"""Load on the sandbox service: signed retries per second over real HTTP.

One operation is a whole signed retry, the wallet export: ``POST /internal-accounts/{id}/export``
with a fresh ``clientPublicKey`` (202, ``payloadToSign``), the stamp made with the session key,
and the stamped retry (200, the sealed envelope). The service runs as 1 or 2 uvicorn processes
(``--factory`` on :func:`make_app`, one worker each, each on its own port, clients spread over
them as behind a load balancer) on one SQLite or PostgreSQL database; client threads (one
account and session each) run operations back to back for a fixed time.

Reported: operations per second, p50 and p99 of one operation (both requests), the service's
CPU time per operation (all its processes, from ``/proc``), and the share of it spent in the
library: the library calls the service makes for one operation (parse the client key on both
steps, verify the stamp, seal the export envelope), timed alone in-process, over that CPU time.
Everything else (HTTP, FastAPI and pydantic, SQLAlchemy and the database, JSON) is the web stack.

Run directly for the full table: ``python benches/sandbox_load.py [--seconds 10]``
(PostgreSQL rows need Debian's postgresql; they are left out without it).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc

HERE = Path(__file__).resolve().parent
PLATFORM = ("bench-platform", "bench-platform-secret")
BASE_PATH = "/2025-10-13"
MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"


def _settings() -> Any:
    from embedded_wallet_crypto.sandbox import Settings

    return Settings(
        database=os.environ["EWC_BENCH_DATABASE"],
        environment="sandbox",
        platform_credentials=[PLATFORM],
        mail_dir=Path(os.environ["EWC_BENCH_MAIL"]),
    )


def make_app() -> Any:
    """The application factory uvicorn's workers call (settings from the environment)."""
    from embedded_wallet_crypto.sandbox import create_app

    return create_app(_settings())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and all its descendants (Linux ``/proc``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


@contextmanager
def running_service(database: str, workers: int, root: Path) -> Iterator[tuple[str, int]]:
    """uvicorn with ``workers`` processes; yields (base URL, master pid)."""
    import httpx

    environment = {
        **os.environ,
        "EWC_BENCH_DATABASE": database,
        "EWC_BENCH_MAIL": str(root / "mail"),
    }
    # The tables and the platform credentials, once, before the workers start.
    saved = {key: os.environ.get(key) for key in ("EWC_BENCH_DATABASE", "EWC_BENCH_MAIL")}
    os.environ.update({k: environment[k] for k in saved})
    try:
        make_app()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    port = _free_port()
    log = (root / f"uvicorn-{workers}.log").open("a")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "--factory", "sandbox_load:make_app",
            "--app-dir", str(HERE), "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers), "--log-level", "warning", "--no-access-log",
        ],
        env=environment,
        stdout=log,
        stderr=log,
        cwd=root,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}{BASE_PATH}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/openapi.json", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start: {root}")
            time.sleep(0.1)
        if workers > 1:  # every worker up: the master has that many children
            while (
                len(Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split())
                < workers
            ):
                time.sleep(0.1)
        yield base, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@dataclass
class Wallet:
    account_id: str
    session_key: ewc.KeyPair


def prepare(base: str, count: int) -> list[Wallet]:
    """``count`` customers, each with an EMAIL_OTP credential and a session (sandbox OTP)."""
    import httpx

    wallets = []
    with httpx.Client(base_url=base, auth=PLATFORM, timeout=30) as api:
        for n in range(count):
            customer = api.post(
                "/customers",
                json={"customerType": "INDIVIDUAL", "currencies": ["USD"],
                      "platformCustomerId": f"bench-{time.time_ns()}-{n}",
                      "email": f"bench{n}@example.com"},
            )  # fmt: skip
            assert customer.status_code == 201, customer.text
            accounts = api.get(
                "/customers/internal-accounts",
                params={"customerId": customer.json()["id"], "type": "EMBEDDED_WALLET"},
            ).json()["data"]
            account_id = accounts[0]["id"]
            credential = api.post(
                "/auth/credentials", json={"type": "EMAIL_OTP", "accountId": account_id}
            )
            assert credential.status_code == 201, credential.text
            client = ewc.KeyPair.generate()
            session = api.post(
                f"/auth/credentials/{credential.json()['id']}/verify",
                json={"type": "EMAIL_OTP", "otp": "000000",
                      "clientPublicKey": client.public_key_hex()},
            )  # fmt: skip
            assert session.status_code == 200, session.text
            key = ewc.open_session_key(session.json()["encryptedSessionSigningKey"], client)
            wallets.append(Wallet(account_id, key))
    return wallets


def export_once(api: Any, wallet: Wallet) -> None:
    """One signed retry: the export challenge, the stamp, the stamped retry."""
    client = ewc.KeyPair.generate()
    path = f"/internal-accounts/{wallet.account_id}/export"
    body = {"clientPublicKey": client.public_key_hex()}
    first = api.post(path, json=body)
    assert first.status_code == 202, first.text
    challenge = first.json()
    stamp = ewc.create_stamp(challenge["payloadToSign"], wallet.session_key)
    retry = api.post(
        path, json=body,
        headers={"Service-Wallet-Signature": stamp, "Request-Id": challenge["requestId"]},
    )  # fmt: skip
    assert retry.status_code == 200, retry.text


@dataclass
class Result:
    operations: int
    seconds: float
    latencies: list[float]
    server_cpu: float

    @property
    def per_second(self) -> float:
        return self.operations / self.seconds

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load(
    base: str | list[str],
    pid: int | list[int],
    wallets: list[Wallet],
    *,
    seconds: float = 0,
    operations: int = 0,
) -> Result:
    """Each wallet's thread runs exports back to back for ``seconds`` (or ``operations`` in
    all); a few warm-up operations first, not counted. With several services (``base`` and
    ``pid`` lists), wallet ``i`` talks to service ``i mod n``, as behind a load balancer."""
    import httpx

    bases = [base] if isinstance(base, str) else base
    pids = [pid] if isinstance(pid, int) else pid

    latencies: list[list[float]] = [[] for _ in wallets]
    budget = [operations]
    lock = threading.Lock()
    stop_at = [0.0]

    def open_gate() -> None:  # run once, before any thread passes the gate
        stop_at[0] = time.monotonic() + seconds

    start_gate = threading.Barrier(len(wallets) + 1, action=open_gate)

    def worker(index: int) -> None:
        with httpx.Client(base_url=bases[index % len(bases)], auth=PLATFORM, timeout=60) as api:
            for _ in range(2):
                export_once(api, wallets[index])
            start_gate.wait()
            while True:
                if seconds and time.monotonic() >= stop_at[0]:
                    return
                if operations:
                    with lock:
                        if budget[0] <= 0:
                            return
                        budget[0] -= 1
                began = time.perf_counter()
                export_once(api, wallets[index])
                latencies[index].append(time.perf_counter() - began)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(wallets))]
    for thread in threads:
        thread.start()
    start_gate.wait()
    cpu_before = sum(_cpu_seconds(one) for one in pids)
    began = time.monotonic()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    cpu = sum(_cpu_seconds(one) for one in pids) - cpu_before
    flat = [x for per in latencies for x in per]
    if not flat:
        raise RuntimeError("the load ran no operation (see the worker threads' errors above)")
    return Result(len(flat), elapsed, flat, cpu)


def library_seconds_per_operation(rounds: int = 200) -> float:
    """The library calls the service makes for one export, timed alone (best of 3 runs)."""
    session = ewc.KeyPair.generate()
    clients = [ewc.KeyPair.generate().public_key_hex() for _ in range(rounds)]
    payloads = [
        '{"organizationId":"org","parameters":{"targetPublicKey":"' + client + '",'
        '"walletId":"InternalAccount:1"},"timestampMs":"1700000000000",'
        '"type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
        for client in clients
    ]
    stamps = [ewc.create_stamp(payload, session) for payload in payloads]
    session_public = session.public_key_hex()
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for client, payload, stamp in zip(clients, payloads, stamps, strict=True):
            ewc.parse_public_key(client)  # step 1
            ewc.parse_public_key(client)  # step 2
            ewc.verify_stamp(stamp, payload, expected_public_key=session_public)
            ewc.seal_export_bundle(client, MNEMONIC, organization_id="org")
        best = min(best, (time.perf_counter() - began) / rounds)
    return best


def row(database: str, workers: int, result: Result, library: float) -> str:
    cpu_per_op = result.server_cpu / max(result.operations, 1)
    share = library / cpu_per_op if cpu_per_op else 0.0
    return (
        f"| {database} | {workers} | {result.operations} "
        f"| {result.per_second:.0f} | {result.percentile(0.5) * 1e3:.1f} "
        f"| {result.percentile(0.99) * 1e3:.1f} | {cpu_per_op * 1e3:.2f} "
        f"| {library * 1e3:.3f} | {share:.1%} |"
    )


HEADER = (
    "| database | workers | operations | signed retries/s | p50 ms | p99 ms "
    "| service CPU ms/op | library ms/op | library share |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def measure(
    databases: list[tuple[str, str]], root: Path, *, seconds: float, clients: int
) -> list[str]:
    """The table rows: every database with 1 and 2 workers."""
    library = library_seconds_per_operation()
    rows = []
    for name, dsn in databases:
        for workers in (1, 2):
            directory = root / f"{name}-{workers}"
            directory.mkdir()
            with ExitStack() as stack:
                # Separate single-worker processes on one database (each on its own port):
                # uvicorn's own --workers mode adds about 44 ms to every request on this stack
                # (a bare ASGI app too), which would measure uvicorn, not the service.
                for n in range(workers):
                    (directory / str(n)).mkdir()
                running = [
                    stack.enter_context(running_service(dsn, 1, directory / str(n)))
                    for n in range(workers)
                ]
                bases = [base for base, _ in running]
                wallets = prepare(bases[0], clients)
                result = load(bases, [pid for _, pid in running], wallets, seconds=seconds)
            rows.append(row(name, workers, result, library))
            print(rows[-1], flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent / "tests"))
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        databases = [("SQLite", f"sqlite:///{tmp}/bench.db")]
        postgres = None
        try:
            from _postgres_server import PostgresServer

            postgres = PostgresServer()
            postgres.start()
            databases.append(("PostgreSQL", postgres.dsn))
        except BaseException as missing:  # pytest.skip raises a BaseException
            print(f"(PostgreSQL rows left out: {missing})", file=sys.stderr)
        try:
            measure(databases, Path(tmp), seconds=args.seconds, clients=args.clients)
        finally:
            if postgres is not None:
                postgres.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
