"""Load on the sandbox service: signed retries per second over real HTTP, this checkout side by
side with a baseline checkout in the same run.

One operation is a whole signed retry, the wallet export: ``POST /internal-accounts/{id}/export``
with a fresh ``clientPublicKey`` (202, ``payloadToSign``), the stamp made with the session key,
and the stamped retry (200, the sealed envelope). Client threads (one account and session each)
run operations back to back for a fixed time (and at most a fixed count), each on one keep-alive
connection through ``http.client`` (:class:`LightClient`; ``--client httpx`` for httpx, the
client of the earlier tables, which spent about three times the CPU per operation on the same
cores as the services).

Rows: one process on SQLite, two processes on PostgreSQL (one database each row). Both commits
run under plain uvicorn (``--factory``, one process per port, the client threads spread over the
ports as behind a load balancer: how several processes of the baseline's ``ewc serve`` are run),
with the same client and the same load loop; this checkout also runs through ``ewc serve``
itself (``--workers 2`` on PostgreSQL, ``--quiet``), the way its users start it.

Reported: operations per second, p50 and p99 of one operation (both requests), the service's
CPU time per operation (all its processes, from ``/proc``), the load client's (this process's
threads: it shares the cores with the services and the database), the share spent in the library
(the library calls the service makes for one operation, timed alone in a process of that code,
over that CPU time), and the ratio of each row's rate to the baseline's on the same row.

Run: ``python benches/sandbox_load.py --baseline PATH [--seconds 10] [--rounds 1]``, PATH a
checkout of the older commit with its native extension built into ``PATH/python`` (without
``--baseline``: this checkout alone). PostgreSQL rows need Debian's postgresql; they are left
out without it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
from sandbox_services import (
    PLATFORM,
    Code,
    HostLoad,
    LightClient,
    cpu_seconds,
    postgres_database,
    running_service,
)

HERE = Path(__file__).resolve().parent
MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"


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
    client_cpu: float = 0.0  # the load's own threads (this process), same cores

    @property
    def per_second(self) -> float:
        return self.operations / self.seconds

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def __add__(self, other: Result) -> Result:  # rounds pooled
        return Result(
            self.operations + other.operations,
            self.seconds + other.seconds,
            self.latencies + other.latencies,
            self.server_cpu + other.server_cpu,
            self.client_cpu + other.client_cpu,
        )


def load(
    base: str | list[str],
    pid: int | list[int],
    wallets: list[Wallet],
    *,
    seconds: float = 0,
    operations: int = 0,
    client: str = "light",
) -> Result:
    """Each wallet's thread runs exports back to back until ``seconds`` have passed or
    ``operations`` were run in all (either bound, or both: the first reached ends it); a few
    warm-up operations first, not counted. With several services (``base`` and ``pid`` lists),
    wallet ``i`` talks to service ``i mod n``, as behind a load balancer. ``client``: the
    threads' HTTP client, ``"light"`` (:class:`LightClient`) or ``"httpx"``."""
    import httpx

    if not (seconds > 0 or operations > 0):
        raise ValueError("the load needs a time or a count bound")
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
        url = bases[index % len(bases)]
        api_client: Any = (
            LightClient(url)
            if client == "light"
            else httpx.Client(base_url=url, auth=PLATFORM, timeout=60)
        )
        with api_client as api:
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
    cpu_before = sum(cpu_seconds(one) for one in pids)
    client_before = time.process_time()
    began = time.monotonic()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    cpu = sum(cpu_seconds(one) for one in pids) - cpu_before
    client_cpu = time.process_time() - client_before
    flat = [x for per in latencies for x in per]
    if not flat:
        raise RuntimeError("the load ran no operation (see the worker threads' errors above)")
    return Result(len(flat), elapsed, flat, cpu, client_cpu)


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


def library_seconds(code: Code) -> float:
    """:func:`library_seconds_per_operation` in a process running ``code``."""
    return float(
        code.run("import sandbox_load; print(sandbox_load.library_seconds_per_operation())")
    )


HEADER = (
    "| database | processes | code | runner | operations | signed retries/s | p50 ms | p99 ms "
    "| service CPU ms/op | client CPU ms/op | library ms/op | library share | x baseline |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def row(label: str, result: Result, library: float, baseline: Result | None) -> str:
    cpu_per_op = result.server_cpu / max(result.operations, 1)
    client_per_op = result.client_cpu / max(result.operations, 1)
    share = library / cpu_per_op if cpu_per_op else 0.0
    ratio = f"{result.per_second / baseline.per_second:.2f}x" if baseline else "1.00x"
    return (
        f"| {label} | {result.operations} | {result.per_second:.0f} "
        f"| {result.percentile(0.5) * 1e3:.1f} | {result.percentile(0.99) * 1e3:.1f} "
        f"| {cpu_per_op * 1e3:.2f} | {client_per_op * 1e3:.2f} | {library * 1e3:.3f} "
        f"| {share:.1%} | {ratio} |"
    )


@dataclass(frozen=True)
class Run:
    """One row: a database, a number of processes, the code, how it is started."""

    database: str
    processes: int
    code: Code
    runner: str = "uvicorn"  # or "ewc": ewc serve with ``flags``
    flags: tuple[str, ...] = ()

    def label(self) -> str:
        how = "uvicorn" if self.runner == "uvicorn" else " ".join(("ewc serve", *self.flags))
        return f"{self.database} | {self.processes} | {self.code.name} | {how}"


def measure(
    codes: list[Code],
    databases: list[tuple[str, Callable[[], str], int]],
    root: Path,
    *,
    seconds: float,
    max_operations: int,
    clients: int,
    rounds: int = 1,
    client: str = "light",
) -> list[str]:
    """The table's rows. ``codes``: the baseline first (the ratios' reference), then this
    checkout; ``databases``: (name, a function giving a fresh database URL, processes). Each
    round runs every row once, in turn, each on a fresh database; the rounds are pooled."""
    library = {code: library_seconds(code) for code in codes}
    fresh = {name: make for name, make, _ in databases}
    runs = []
    for name, _, processes in databases:
        runs += [Run(name, processes, code) for code in codes]
        workers = ("--workers", str(processes)) if processes > 1 else ()
        runs.append(Run(name, processes, codes[-1], "ewc", ("--quiet", *workers)))
    results: dict[Run, Result] = {}
    for round_ in range(rounds):
        for index, run in enumerate(runs):
            with running_service(
                run.code, fresh[run.database](), root / f"r{round_}-{index}",
                processes=run.processes, runner=run.runner, flags=run.flags,
            ) as service:  # fmt: skip
                wallets = prepare(service.bases[0], clients)
                result = load(
                    service.bases, service.pids, wallets,
                    seconds=seconds, operations=max_operations, client=client,
                )  # fmt: skip
            results[run] = results[run] + result if run in results else result
            print(
                f"round {round_ + 1}: {run.label()}: {result.per_second:.0f}/s",
                file=sys.stderr,
                flush=True,
            )
    rows = []
    for run in runs:
        reference = Run(run.database, run.processes, codes[0])
        baseline = results[reference] if run != reference else None
        rows.append(row(run.label(), results[run], library[run.code], baseline))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="PATH",
        help="a checkout of the older commit, its native extension built (without: this "
        "checkout alone, the ratios to its own plain-uvicorn rows)",
    )
    parser.add_argument("--baseline-name", default=None, help="its name in the table")
    parser.add_argument("--seconds", type=float, default=10.0, help="per row and round")
    parser.add_argument("--max-operations", type=int, default=20000, help="per row and round")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument(
        "--client",
        choices=("light", "httpx"),
        default="light",
        help="the load threads' HTTP client: http.client (light, the default) or httpx (the "
        "client of the earlier tables)",
    )
    args = parser.parse_args()
    codes = [Code("this checkout")]
    if args.baseline is not None:
        python = args.baseline.resolve() / "python"
        if not list((python / "embedded_wallet_crypto").glob("_native*")):
            parser.error(f"no native extension in {python}/embedded_wallet_crypto: build it")
        codes.insert(0, Code(args.baseline_name or args.baseline.name, python))
    sys.path.insert(0, str(HERE.parent / "tests"))
    host = HostLoad()
    with tempfile.TemporaryDirectory() as tmp:
        databases: list[tuple[str, Callable[[], str], int]] = [
            ("SQLite", lambda: f"sqlite:///{tmp}/{uuid.uuid4().hex}.db", 1)
        ]
        postgres = None
        try:
            from _postgres_server import PostgresServer

            postgres = PostgresServer()
            postgres.start()
            dsn = postgres.dsn
            databases.append(
                ("PostgreSQL", lambda: postgres_database(dsn, f"b{uuid.uuid4().hex[:12]}"), 2)
            )
        except BaseException as missing:  # pytest.skip raises a BaseException
            print(f"(PostgreSQL rows left out: {missing})", file=sys.stderr)
        try:
            rows = measure(
                codes, databases, Path(tmp), seconds=args.seconds,
                max_operations=args.max_operations, clients=args.clients, rounds=args.rounds,
                client=args.client,
            )  # fmt: skip
        finally:
            if postgres is not None:
                postgres.destroy()
    print(HEADER)
    print("\n".join(rows))
    print(host.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
