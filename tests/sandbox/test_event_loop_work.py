"""The work the event loop does itself, and why it can.

A wallet export (both legs) and the control plane's read before every request run on the event
loop, without a hop to the thread pool (a hop and back cost more than the work: see the load
bench). That is safe only while nothing the loop waits for waits for the loop: a synchronous
route that raises after writing ends its transaction in its own thread (``api.routing``), so
SQLite's write lock is free before the loop runs again; and the loop reads on a connection no
worker thread holds (``Database.loop_reads``)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto.sandbox import Settings, create_app
from embedded_wallet_crypto.sandbox import gate as gate_module
from embedded_wallet_crypto.sandbox.api.routing import ThreadEndedRoute
from embedded_wallet_crypto.sandbox.app import BASE_PATH, ROUTERS
from embedded_wallet_crypto.sandbox.control import ensure_state
from embedded_wallet_crypto.sandbox.db.engine import Database
from embedded_wallet_crypto.sandbox.db.tables_control import ControlState
from embedded_wallet_crypto.sandbox.deps import rolled_back_on_error
from embedded_wallet_crypto.sandbox.domain import export as export_module
from embedded_wallet_crypto.sandbox.domain.errors import Refusal
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

AUTH = ("loop-platform", "loop-secret")


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # a worker thread: no loop runs there
        return False
    return True


def test_an_export_and_the_control_read_run_on_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, list[bool]] = {"refresh": [], "seal": []}
    refresh, seal = gate_module.refresh, export_module.seal_export_bundle

    def noted_refresh(*args: Any, **kwargs: Any) -> Any:
        seen["refresh"].append(_on_loop())
        return refresh(*args, **kwargs)

    def noted_seal(*args: Any, **kwargs: Any) -> Any:
        seen["seal"].append(_on_loop())
        return seal(*args, **kwargs)

    monkeypatch.setattr(gate_module, "refresh", noted_refresh)
    monkeypatch.setattr(export_module, "seal_export_bundle", noted_seal)
    app = create_app(
        Settings(
            database=f"sqlite:///{tmp_path / 'loop.db'}",
            platform_credentials=[AUTH],
            mail_dir=tmp_path / "mail",
        )
    )
    with TestClient(app, base_url=f"http://sandbox{BASE_PATH}") as api:
        api.auth = AUTH
        customer = api.post(
            "/customers",
            json={"customerType": "INDIVIDUAL", "currencies": ["USD"],
                  "platformCustomerId": "loop-1", "email": "loop@example.com"},
        )  # fmt: skip
        assert customer.status_code == 201, customer.text
        account = api.get(
            "/customers/internal-accounts",
            params={"customerId": customer.json()["id"], "type": "EMBEDDED_WALLET"},
        ).json()["data"][0]["id"]
        credential = api.post(
            "/auth/credentials", json={"type": "EMAIL_OTP", "accountId": account}
        ).json()
        client = ewc.KeyPair.generate()
        session = api.post(
            f"/auth/credentials/{credential['id']}/verify",
            json={"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": client.public_key_hex()},
        )
        assert session.status_code == 200, session.text
        key = ewc.open_session_key(session.json()["encryptedSessionSigningKey"], client)
        receiver = ewc.KeyPair.generate()
        body = {"clientPublicKey": receiver.public_key_hex()}
        path = f"/internal-accounts/{account}/export"
        challenge = api.post(path, json=body)
        assert challenge.status_code == 202, challenge.text
        stamp = ewc.create_stamp(challenge.json()["payloadToSign"], key)
        headers = {"Service-Wallet-Signature": stamp, "Request-Id": challenge.json()["requestId"]}
        sealed = api.post(path, json=body, headers=headers)
        assert sealed.status_code == 200, sealed.text
    assert seen["refresh"] and all(seen["refresh"]), seen
    assert seen["seal"] == [True], seen


def test_every_route_ends_its_transaction_in_its_own_thread() -> None:
    routes = [r for _, router in ROUTERS for r in router.routes if isinstance(r, APIRoute)]
    assert len(routes) > 150
    assert all(isinstance(route, ThreadEndedRoute) for route in routes)
    synchronous = [r for r in routes if not asyncio.iscoroutinefunction(r.endpoint)]
    assert synchronous
    assert all(hasattr(route.dependant.call, "__wrapped__") for route in synchronous)


def _write_lock_free(path: Path) -> bool:
    probe = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:  # database is locked
        return False
    finally:
        probe.close()


@pytest.fixture
def sqlite_database(tmp_path: Path) -> Iterator[tuple[Database, Path]]:
    """A SQLite database with its tables and the control row (what :func:`_refused` writes)."""
    path = tmp_path / "lock.db"
    database = Database(f"sqlite:///{path}")
    database.create_tables()
    ensure_state(database)
    try:
        yield database, path
    finally:
        database.dispose()


def _refused(db: Session) -> None:
    """A route that writes, then refuses."""
    db.execute(update(ControlState).values(ordinal=ControlState.ordinal + 1))
    raise Refusal(409, "SOME_CONFLICT", "refused after a write")


def test_a_route_that_raises_after_writing_frees_sqlite_write_lock_in_its_thread(
    sqlite_database: tuple[Database, Path],
) -> None:
    """Unwrapped, the refused route's write lock outlives its call (until the request's session
    is closed, back on the loop): the loop's own claim would wait for it."""
    database, path = sqlite_database
    for endpoint, freed in ((_refused, False), (rolled_back_on_error(_refused), True)):
        db = database.sessions()
        with pytest.raises(Refusal):
            endpoint(db=db)
        assert _write_lock_free(path) is freed
        db.close()
        assert _write_lock_free(path)


def test_a_rollback_that_fails_keeps_the_first_error_and_frees_the_lock(
    sqlite_database: tuple[Database, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database that fails the rollback too: the route's own error is what leaves (its
    answer), and the connection is dropped, which frees the lock."""
    database, path = sqlite_database

    def gone() -> None:
        raise OperationalError("ROLLBACK", {}, Exception("the database went away"))

    db = database.sessions()
    monkeypatch.setattr(db, "rollback", gone)
    with pytest.raises(Refusal):
        rolled_back_on_error(_refused)(db=db)
    assert _write_lock_free(path)
    db.close()
