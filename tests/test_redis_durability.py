"""RedisStore's durability check and replica WAIT (issue D1 and D2), against real redis-server
processes the tests start: a durable server is accepted, Debian's default (RDB snapshots, no
append-only file) and ``appendfsync everysec`` are refused unless ``durability="best-effort"``,
and ``wait_replicas`` succeeds with one real replica and fails closed when it asks for two."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import embedded_wallet_crypto as ewc
import pytest
import redis
from _redis_server import DEBIAN_DEFAULT_PERSISTENCE, RedisServer
from embedded_wallet_crypto import otp, stores
from embedded_wallet_crypto.signed_retry import ChallengeRecord

FAR_FUTURE_MS = 2**53


def record(request_id: str) -> ChallengeRecord:
    return ChallengeRecord(
        request_id=request_id,
        account_id="a",
        operation="EXPORT_WALLET",
        credential_type=None,
        payload_to_sign="{}",
        bound_client_public_key=None,
        expires_at_ms=FAR_FUTURE_MS,
    )


def store_error(call: object, code: str, status: int) -> stores.StoreError:
    with pytest.raises(stores.StoreError) as caught:
        call()  # type: ignore[operator]
    assert (caught.value.code, caught.value.status) == (code, status), repr(caught.value)
    return caught.value


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RedisServer]:
    persistence: tuple[str, ...] = getattr(request, "param", DEBIAN_DEFAULT_PERSISTENCE)
    started = RedisServer(tmp_path, persistence=persistence)
    started.start()
    yield started
    started.stop()


def test_a_durable_redis_is_accepted(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)  # appendonly yes, appendfsync always
    server.start()
    try:
        store = stores.RedisStore(server.url)
        assert store.durability == "strict"
        store.put(record("Request:durable"), 60)
        assert store.claim("Request:durable", 0) is True
        store.close()
    finally:
        server.stop()


def test_debians_default_redis_is_refused(server: RedisServer) -> None:
    error = store_error(lambda: stores.RedisStore(server.url), "STORE_NOT_DURABLE", 500)
    assert "appendonly no" in error.reason and "best-effort" in error.reason
    assert server.url not in str(error)
    # The refusal is both protocols' error, as every store error is.
    assert isinstance(error, ewc.SignedRetryError) and isinstance(error, ewc.OtpError)


@pytest.mark.parametrize(
    "server",
    [("--save", "", "--appendonly", "yes", "--appendfsync", "everysec")],
    indirect=True,
)
def test_appendfsync_everysec_is_refused(server: RedisServer) -> None:
    error = store_error(lambda: otp.RedisStore(server.url), "STORE_NOT_DURABLE", 500)
    assert "appendfsync everysec" in error.reason and "best-effort" in error.reason


def test_best_effort_accepts_a_non_durable_redis(server: RedisServer) -> None:
    store = stores.RedisStore(server.url, durability="best-effort")
    store.put(record("Request:best-effort"), 60)
    assert store.claim("Request:best-effort", 0) is True
    assert store.claim("Request:best-effort", 0) is False
    store.close()


def test_a_redis_without_config_is_refused_in_strict_mode(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, extra=("--rename-command", "CONFIG", ""))
    server.start()
    try:
        error = store_error(lambda: stores.RedisStore(server.url), "STORE_NOT_DURABLE", 500)
        assert "CONFIG GET is disabled" in error.reason and "best-effort" in error.reason
        stores.RedisStore(server.url, durability="best-effort").close()
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"durability": "relaxed"}, "STORE_CONFIG_INVALID"),
        ({"wait_replicas": -1}, "STORE_CONFIG_INVALID"),
        ({"wait_timeout_seconds": float("nan")}, "STORE_CONFIG_INVALID"),
        ({"wait_timeout_seconds": 0}, "STORE_CONFIG_INVALID"),
    ],
)
def test_bad_options_are_config_errors(options: dict[str, object], code: str) -> None:
    store_error(lambda: stores.RedisStore("redis://127.0.0.1:1/0", **options), code, 500)  # type: ignore[arg-type]


def test_wait_replicas_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        stores.RedisStore("redis://127.0.0.1:1/0", wait_replicas=True)
    with pytest.raises(TypeError):
        stores.RedisStore("redis://127.0.0.1:1/0", wait_replicas=1.0)  # type: ignore[arg-type]


# --- WAIT for replicas ----------------------------------------------------------------------


@pytest.fixture
def primary_and_replica(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    (tmp_path / "primary").mkdir()
    (tmp_path / "replica").mkdir()
    primary = RedisServer(tmp_path / "primary")
    primary.start()
    replica = RedisServer(
        tmp_path / "replica", extra=("--replicaof", "127.0.0.1", str(primary.port))
    )
    try:
        replica.start()
        client = redis.Redis(host="127.0.0.1", port=replica.port)
        deadline = time.monotonic() + 30
        while client.info("replication").get("master_link_status") != "up":
            assert time.monotonic() < deadline, "the replica did not connect"
            time.sleep(0.05)
        client.close()
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()


def test_wait_for_one_real_replica_succeeds(
    primary_and_replica: tuple[RedisServer, RedisServer],
) -> None:
    primary, replica = primary_and_replica
    store = stores.RedisStore(primary.url, wait_replicas=1, key_prefix="wait1:")
    store.put(record("Request:w1"), 60)
    assert store.claim("Request:w1", 0) is True
    assert store.claim("Request:w1", 0) is False
    # The claim is on the replica when claim() returns.
    seen = redis.Redis(host="127.0.0.1", port=replica.port)
    assert seen.hget("wait1:signed-retry:Request:w1", "claimed") == b"1"
    seen.close()
    codes = otp.OneTimeCodes(store, hash_key=b"k" * 32)
    issued = codes.issue("AuthMethod:1")
    assert codes.verify("AuthMethod:1", issued.code).credential_id == "AuthMethod:1"
    store.close()


def test_wait_for_two_replicas_with_one_fails_closed(
    primary_and_replica: tuple[RedisServer, RedisServer],
) -> None:
    primary, _ = primary_and_replica
    store = stores.RedisStore(
        primary.url, wait_replicas=2, wait_timeout_seconds=0.2, key_prefix="wait2:"
    )
    store.put(record("Request:w2"), 60)
    started = time.monotonic()
    error = store_error(lambda: store.claim("Request:w2", 0), "STORE_UNAVAILABLE", 503)
    assert "1 of 2" in error.reason
    assert time.monotonic() - started >= 0.15  # it did wait
    # Not granted, and never granted later: the id is used on the primary.
    plain = stores.RedisStore(primary.url, key_prefix="wait2:")
    assert plain.claim("Request:w2", 0) is False
    plain.close()
    codes = otp.OneTimeCodes(store, hash_key=b"k" * 32)
    issued = codes.issue("AuthMethod:2")  # an issue does not wait
    with pytest.raises(ewc.OtpError) as caught:
        codes.verify("AuthMethod:2", issued.code)
    assert caught.value.code == "STORE_UNAVAILABLE"
    store.close()
