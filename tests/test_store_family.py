"""One store family (ewc.stores): each backend's one class serves the signed-retry challenges and
the one-time codes from one object (one SQLite file with two tables, one Redis client with two
key prefixes), the classes are the same under ewc.signed_retry and ewc.otp, store failures are
typed (StoreError, both a SignedRetryError and an OtpError), and the package imports neither
protocol."""

from __future__ import annotations

import ast
import sqlite3
import threading
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
import redis
from _postgres_server import PostgresServer, empty_store, running_postgres
from _redis_server import RedisServer
from embedded_wallet_crypto import otp, signed_retry, stores, totp
from embedded_wallet_crypto.stores import _backends

HASH_KEY = b"store family test hash key 01234"
SESSION = ewc.hpke.derive_key_pair(b"store family test session ikm 01")
STORES_DIR = Path(stores.__file__).parent


class Clock:
    now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def store_error(call: Any, code: str, status: int) -> stores.StoreError:
    with pytest.raises(stores.StoreError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    return raised.value


# --- one class, two faces -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MemoryStore", "SqliteStore", "RedisStore", "PostgresStore"])
def test_the_classes_are_the_same_under_both_faces(name: str) -> None:
    assert getattr(signed_retry, name) is getattr(otp, name) is getattr(stores, name)
    assert getattr(totp, name) is getattr(stores, name)
    assert name in signed_retry.__all__ and name in otp.__all__ and name in stores.__all__
    assert name in totp.__all__


def test_the_protocols_and_records_are_the_stores_ones() -> None:
    assert signed_retry.Store is stores.ChallengeStore
    assert otp.OtpStore is stores.CodeStore
    assert signed_retry.ChallengeRecord is stores.ChallengeRecord
    assert totp.FactorStore is stores.FactorStore


def test_a_store_error_is_caught_by_either_family() -> None:
    assert issubclass(stores.StoreError, ewc.SignedRetryError)
    assert issubclass(stores.StoreError, ewc.OtpError)
    assert issubclass(stores.StoreError, ewc.TotpError)
    for family in (ewc.SignedRetryError, ewc.OtpError, ewc.TotpError):
        with pytest.raises(family) as raised:
            signed_retry.SqliteStore(":memory:")
        assert (raised.value.code, raised.value.status) == ("STORE_CONFIG_INVALID", 500)


def test_stores_imports_no_protocol() -> None:
    """The arrows run one way: signed_retry, otp and totp -> stores."""
    for module in sorted(STORES_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert not name.startswith(("signed_retry", "otp", "totp")), (module.name, name)
                assert not {"signed_retry", "otp", "totp"} & set(name.split("."))


def test_every_stores_module_stays_small() -> None:
    for module in STORES_DIR.glob("*.py"):
        assert len(module.read_text().splitlines()) < 400, module.name


# --- one object serves both protocols -------------------------------------------------------


def serve_both(store: Any, clock: Clock) -> tuple[Any, Any, Any, Any]:
    """Issue a challenge and a code through one store, both pending at once."""
    retry = signed_retry.SignedRetry(store, clock=clock)
    codes = otp.OneTimeCodes(store, hash_key=HASH_KEY, clock=clock)
    challenge = retry.issue(
        account_id="a",
        operation=signed_retry.Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": ["Session:1"], "userId": "u"},
        organization_id="o",
    )
    issued = codes.issue("AuthMethod:1")
    return retry, codes, challenge, issued


def answer_both(retry: Any, codes: Any, challenge: Any, issued: Any) -> None:
    stamp = ewc.create_stamp(challenge.payload_to_sign, SESSION)
    keys = [SESSION.public_key_hex()]
    verified = retry.verify(request_id=challenge.request_id, stamp=stamp, account_session_keys=keys)
    assert verified.request_id == challenge.request_id
    assert codes.verify("AuthMethod:1", issued.code).credential_id == "AuthMethod:1"
    with pytest.raises(ewc.SignedRetryError) as replay:
        retry.verify(request_id=challenge.request_id, stamp=stamp, account_session_keys=keys)
    assert replay.value.code == "REQUEST_ID_USED"
    with pytest.raises(ewc.OtpError) as reuse:
        codes.verify("AuthMethod:1", issued.code)
    assert reuse.value.code == "OTP_USED"


def test_one_store_serves_a_challenge_and_a_code_at_once(store: Any) -> None:
    clock = Clock()
    answer_both(*serve_both(store, clock))


def test_a_request_id_and_a_credential_of_the_same_text_do_not_meet(store: Any) -> None:
    same = "Request:shared-text"
    record = stores.ChallengeRecord(same, "a", "EXPORT_WALLET", None, "{}", None, 2**53)
    store.put(record, 60)
    code = stores.NewCode("hash", "issue-1", 2**53)
    limits = stores.IssueLimits(0, 1, 5, 60_000)
    assert store.issue(same, code, 1_000, limits).issued
    assert store.claim(same, 1_000) is True
    assert store.attempt(same, 1_000, 5)[0] == "ok"
    assert store.consume(same, "issue-1") is True
    assert store.get(same) == record.as_claimed()


def test_one_sqlite_file_holds_both_tables_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "both.db"
    clock = Clock()
    pending = serve_both(stores.SqliteStore(path), clock)
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert {"signed_retry_challenges", "otp_codes"} <= tables
    reopened = stores.SqliteStore(path)
    _, _, challenge, issued = pending
    answer_both(
        signed_retry.SignedRetry(reopened, clock=clock),
        otp.OneTimeCodes(reopened, hash_key=HASH_KEY, clock=clock),
        challenge,
        issued,
    )


def test_one_sqlite_store_uses_one_connection_per_thread_for_both(tmp_path: Path) -> None:
    store = stores.SqliteStore(tmp_path / "both.db")
    first = store._connection()
    serve_both(store, Clock())
    assert store._connection() is first
    seen: list[sqlite3.Connection] = []
    thread = threading.Thread(target=lambda: seen.append(store._connection()))
    thread.start()
    thread.join()
    assert seen[0] is not first


def test_one_redis_store_is_one_client_under_two_prefixes(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)  # its own server, so no other test's client is counted
    server.start()
    try:
        one_client_under_two_prefixes(server.url)
    finally:
        server.stop()


def one_client_under_two_prefixes(url: str) -> None:
    observer = redis.Redis.from_url(url)
    assert observer.info("clients")["connected_clients"] == 1
    store = stores.RedisStore(url)
    assert (store.challenge_prefix, store.code_prefix) == ("ewc:signed-retry:", "ewc:otp:")
    retry, codes, challenge, issued = serve_both(store, Clock())
    assert observer.exists("ewc:signed-retry:" + challenge.request_id)
    assert observer.exists("ewc:otp:AuthMethod:1")
    assert observer.info("clients")["connected_clients"] == 2
    answer_both(retry, codes, challenge, issued)
    store.close()
    observer.close()


def test_one_postgres_database_holds_both_tables_and_survives_a_new_store(
    postgres_server: PostgresServer,
) -> None:
    clock = Clock()
    first = empty_store(postgres_server)
    pending = serve_both(first, clock)
    tables = {
        row[0]
        for row in first._connection().execute(
            "SELECT tablename FROM pg_tables WHERE tablename LIKE 'ewc_%'"
        )
    }
    assert tables == {
        "ewc_signed_retry_challenges",
        "ewc_otp_codes",
        "ewc_totp_steps",
        "ewc_recovery_codes",
    }
    first.close()
    reopened = stores.PostgresStore(postgres_server.dsn)
    _, _, challenge, issued = pending
    answer_both(
        signed_retry.SignedRetry(reopened, clock=clock),
        otp.OneTimeCodes(reopened, hash_key=HASH_KEY, clock=clock),
        challenge,
        issued,
    )
    reopened.close()


def test_one_postgres_store_uses_one_connection_per_thread_for_both(
    postgres_server: PostgresServer,
) -> None:
    store = empty_store(postgres_server)
    first = store._connection()
    serve_both(store, Clock())
    assert store._connection() is first
    seen: list[Any] = []
    thread = threading.Thread(target=lambda: seen.append(store._connection()))
    thread.start()
    thread.join()
    assert seen[0] is not first
    seen[0].close()
    store.close()


# --- typed store errors (issue findings D4, D5, D6) -----------------------------------------


@pytest.mark.parametrize(
    "url",
    ["http://h/0", "redis://:hunter2@h:port/0", "redis://h:99999999/0", "nonsense", ""],
)
def test_a_malformed_redis_url_is_a_config_error(url: str) -> None:
    error = store_error(lambda: stores.RedisStore(url), "STORE_CONFIG_INVALID", 500)
    assert "hunter2" not in str(error) and "h:port" not in str(error)


def test_a_redis_url_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        stores.RedisStore(b"redis://127.0.0.1/0")  # type: ignore[arg-type]


def test_a_corrupt_sqlite_file_is_store_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "not-a-database.db"
    path.write_bytes(b"this is not an SQLite database, only some text long enough" * 50)
    error = store_error(lambda: stores.SqliteStore(path), "STORE_CORRUPT", 500)
    assert "SQLITE_NOTADB" in str(error)
    missing = tmp_path / "missing" / "dir" / "c.db"
    store_error(lambda: stores.SqliteStore(missing), "STORE_UNAVAILABLE", 503)


def test_a_corrupt_sqlite_error_is_classified_without_a_result_code() -> None:
    """Pythons before 3.11 carry no result code; the message decides there."""
    corrupt = _backends.sqlite_failure(sqlite3.DatabaseError("database disk image is malformed"))
    assert (corrupt.code, corrupt.status) == ("STORE_CORRUPT", 500)
    assert "SQLITE_CORRUPT" in str(corrupt)
    busy = _backends.sqlite_failure(sqlite3.OperationalError("database is locked"))
    assert (busy.code, busy.status) == ("STORE_UNAVAILABLE", 503)


def test_sqlite_sets_synchronous_full_on_every_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even where the build's default is NORMAL (simulated here), every connection is FULL."""
    connect = sqlite3.connect

    def normal_by_default(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = connect(*args, **kwargs)
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    monkeypatch.setattr(_backends.sqlite3, "connect", normal_by_default)
    store = stores.SqliteStore(tmp_path / "both.db")
    assert store._connection().execute("PRAGMA synchronous").fetchone() == (2,)
    seen: list[Any] = []
    thread = threading.Thread(
        target=lambda: seen.append(store._connection().execute("PRAGMA synchronous").fetchone())
    )
    thread.start()
    thread.join()
    assert seen == [(2,)]


# --- PostgreSQL: configuration, durability and corruption -----------------------------------


@pytest.mark.parametrize("dsn", ["host=h port", "postgresql://ewc:hunter2@h:port/db", "a=b=c"])
def test_a_malformed_postgres_dsn_is_a_config_error(dsn: str) -> None:
    error = store_error(lambda: stores.PostgresStore(dsn), "STORE_CONFIG_INVALID", 500)
    assert "hunter2" not in str(error)


def test_a_postgres_dsn_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        stores.PostgresStore(b"postgresql://h/db")  # type: ignore[arg-type]


def test_postgres_needs_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "psycopg", None)
    with pytest.raises(ImportError, match=r"embedded-wallet-crypto\[postgres\]"):
        stores.PostgresStore("postgresql://ewc@127.0.0.1:1/postgres")


def test_postgres_with_fsync_off_is_refused_unless_best_effort() -> None:
    with running_postgres(settings=("fsync=off", "synchronous_commit=off")) as server:
        error = store_error(lambda: stores.PostgresStore(server.dsn), "STORE_NOT_DURABLE", 500)
        assert "fsync=off" in error.reason and "best-effort" in error.reason
        store = stores.PostgresStore(server.dsn, durability="best-effort")
        # The server's default synchronous_commit=off is raised to on for the store's commits.
        assert store._connection().execute("SHOW synchronous_commit").fetchone() == ("on",)
        store.close()


def test_postgres_corruption_is_store_corrupt_and_the_rest_unavailable() -> None:
    import psycopg
    from psycopg import errors

    local = threading.local()

    def classify(problem: BaseException) -> stores.StoreError:
        with pytest.raises(stores.StoreError) as raised, _backends.postgres_failure(psycopg, local):
            raise problem
        return raised.value

    corrupt = classify(errors.DataCorrupted("invalid page in block 0"))
    assert (corrupt.code, corrupt.status) == ("STORE_CORRUPT", 500)
    assert "XX001" in corrupt.reason and "invalid page" not in corrupt.reason
    busy = classify(errors.LockNotAvailable("could not obtain lock"))
    assert (busy.code, busy.status) == ("STORE_UNAVAILABLE", 503)
    assert "55P03" in busy.reason


def test_a_corrupt_postgres_row_is_store_corrupt(postgres_server: PostgresServer) -> None:
    store = empty_store(postgres_server)
    record = stores.ChallengeRecord("Request:corrupt", "a", "EXPORT_WALLET", None, "{}", None, 1)
    store.put(record, 60)
    store._connection().execute("UPDATE ewc_signed_retry_challenges SET record = 'nope'")
    store_error(lambda: store.get("Request:corrupt"), "STORE_CORRUPT", 500)
    store.close()


@pytest.mark.parametrize("text", ["\ud800", "a\x00b", "ab\udc80cd"])
def test_postgres_text_it_cannot_hold_is_never_found_nor_stored(
    postgres_server: PostgresServer, text: str
) -> None:
    """PostgreSQL text holds no NUL and no lone surrogate: a lookup finds nothing, a write is
    a typed 400, never a UnicodeEncodeError or a 503 that asks for a retry."""
    store = empty_store(postgres_server)
    assert store.get(text) is None
    assert store.claim(text, 0) is False
    assert store.attempt(text, 0, 5) == ("not_issued", None)
    assert store.consume(text, "issue") is False
    record = stores.ChallengeRecord(text, "a", "EXPORT_WALLET", None, "{}", None, 2**53)
    store_error(lambda: store.put(record, 60), "STORE_KEY_INVALID", 400)
    code = stores.NewCode("hash", "issue", 2**53)
    limits = stores.IssueLimits(0, 1, 5, 60_000)
    store_error(lambda: store.issue(text, code, 0, limits), "STORE_KEY_INVALID", 400)
    store.close()
