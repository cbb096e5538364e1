"""The server's one-time codes for the plain EMAIL_OTP flow (service interface rule 9,
formats.md section 11) through MemoryStore, SqliteStore and RedisStore (a real redis-server on a
loopback port): CSPRNG codes, keyed hashes only, constant-time checks, 5 attempts, re-issue
limits (429 with retry_after), single use, and 000000 only in sandbox."""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
import threading
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _redis_server import RedisServer, refused_port
from embedded_wallet_crypto import otp, policy

HASH_KEY = b"server otp hash key 0123456789ab"

# --- server-side one-time codes --------------------------------------------------------------


@pytest.fixture
def sequential_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Codes 111111, 222222, ... instead of random ones (only where a test needs them apart)."""
    counter = iter(range(111_111, 10**6, 111_111))
    monkeypatch.setattr(otp._codes.secrets, "randbelow", lambda bound: next(counter))


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def codes_with(store: otp.OtpStore, clock: Clock, **options: Any) -> otp.OneTimeCodes:
    return otp.OneTimeCodes(store, hash_key=HASH_KEY, clock=clock, **options)


def otp_failure(call: Any, code: str, status: int = 401) -> ewc.OtpError:
    with pytest.raises(ewc.OtpError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    return raised.value


def test_issue_and_verify_once(store: otp.OtpStore) -> None:
    clock = Clock()
    codes = codes_with(store, clock)
    issued = codes.issue("AuthMethod:1")
    assert len(issued.code) == 6 and issued.code.isdigit()
    assert issued.expires_at.timestamp() == clock.now + 300
    assert issued.code not in repr(issued)
    assert codes.verify("AuthMethod:1", issued.code) == otp.VerifiedCode("AuthMethod:1", False)
    otp_failure(lambda: codes.verify("AuthMethod:1", issued.code), "OTP_USED")
    otp_failure(lambda: codes.verify("AuthMethod:2", issued.code), "OTP_NOT_ISSUED")


def test_only_a_keyed_hash_is_stored(store: otp.OtpStore, tmp_path: Path) -> None:
    codes = codes_with(store, Clock())
    issued = codes.issue("AuthMethod:1")
    status, state = store.attempt("AuthMethod:1", 0, 5)
    assert status == "ok" and state is not None
    message = b"\x00".join(
        (b"ewc-otp-v1", b"AuthMethod:1", state.issue_id.encode(), issued.code.encode())
    )
    assert state.code_hash == hmac.new(HASH_KEY, message, hashlib.sha256).hexdigest()
    assert issued.code not in repr(state)
    if isinstance(store, otp.SqliteStore):
        row = sqlite3.connect(store.path).execute("SELECT * FROM otp_codes").fetchone()
        assert issued.code not in "|".join(map(str, row))


@pytest.mark.usefixtures("sequential_codes")
def test_wrong_codes_and_the_attempt_limit(store: otp.OtpStore) -> None:
    codes = codes_with(store, Clock())
    issued = codes.issue("AuthMethod:1")
    wrong = f"{(int(issued.code) + 1) % 10**6:06d}"
    for _ in range(4):
        error = otp_failure(lambda: codes.verify("AuthMethod:1", wrong), "OTP_INVALID")
        assert error.reason == "Invalid OTP code"
    assert codes.verify("AuthMethod:1", issued.code).credential_id == "AuthMethod:1"  # the 5th
    second = codes_with(store, Clock(), min_reissue_interval_seconds=0).issue("AuthMethod:3")
    for _ in range(5):
        otp_failure(
            lambda: codes.verify("AuthMethod:3", wrong),
            "OTP_INVALID",
        )
    otp_failure(lambda: codes.verify("AuthMethod:3", second.code), "OTP_ATTEMPTS_EXCEEDED")


def test_malformed_codes_do_not_reach_the_store(store: otp.OtpStore) -> None:
    codes = codes_with(store, Clock())
    issued = codes.issue("AuthMethod:1")
    for code in ("", "12345", "1234567", "12345a", "١٢٣٤٥٦", None, 123456):
        otp_failure(lambda code=code: codes.verify("AuthMethod:1", code), "OTP_INVALID")
    assert codes.verify("AuthMethod:1", issued.code)  # no attempt was used up


def test_expiry(store: otp.OtpStore) -> None:
    clock = Clock()
    codes = codes_with(store, clock, ttl_seconds=60)
    issued = codes.issue("AuthMethod:1")
    clock.now += 60
    otp_failure(lambda: codes.verify("AuthMethod:1", issued.code), "OTP_EXPIRED")


@pytest.mark.usefixtures("sequential_codes")
def test_reissue_limits(store: otp.OtpStore) -> None:
    clock = Clock()
    codes = codes_with(
        store, clock, min_reissue_interval_seconds=30, max_issues=3, issue_window_seconds=600
    )
    first = codes.issue("AuthMethod:1")
    clock.now += 10
    limited = otp_failure(lambda: codes.issue("AuthMethod:1"), "OTP_RATE_LIMITED", 429)
    assert isinstance(limited, otp.OtpRateLimited) and limited.retry_after == 20
    clock.now += 20
    second = codes.issue("AuthMethod:1")
    assert first.code != second.code
    otp_failure(lambda: codes.verify("AuthMethod:1", first.code), "OTP_INVALID")  # replaced
    clock.now += 30
    codes.issue("AuthMethod:1")
    clock.now += 30
    limited = otp_failure(lambda: codes.issue("AuthMethod:1"), "OTP_RATE_LIMITED", 429)
    assert limited.retry_after == 600 - 90  # until the window that began at the first issue ends
    assert codes.issue("AuthMethod:2").credential_id == "AuthMethod:2"  # per credential
    clock.now += 600 - 90
    assert codes.issue("AuthMethod:1")


def test_sandbox_code(store: otp.OtpStore, monkeypatch: pytest.MonkeyPatch) -> None:
    production = codes_with(store, Clock())
    otp_failure(lambda: production.verify("AuthMethod:1", "000000"), "OTP_NOT_ISSUED")
    sandbox = codes_with(store, Clock(), sandbox=True)
    assert sandbox.verify("AuthMethod:1", "000000") == otp.VerifiedCode("AuthMethod:1", True)
    assert codes_with(store, Clock(), sandbox=ewc.Environment.SANDBOX).verify("A", "000000").sandbox
    monkeypatch.setattr(policy, "_default", ewc.Environment.SANDBOX)
    assert production.verify("AuthMethod:1", "000000").sandbox
    otp_failure(
        lambda: codes_with(store, Clock(), sandbox=False).verify("A", "000000"), "OTP_NOT_ISSUED"
    )


def test_one_of_many_concurrent_right_answers_wins(store: otp.OtpStore) -> None:
    codes = codes_with(store, Clock())
    issued = codes.issue("AuthMethod:race")
    outcomes: list[str] = []

    def answer() -> None:
        try:
            codes.verify("AuthMethod:race", issued.code)
            outcomes.append("ok")
        except ewc.OtpError as error:
            outcomes.append(error.code)

    threads = [threading.Thread(target=answer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Exactly one wins; the others were too late (used) or beyond the 5 attempts.
    assert outcomes.count("ok") == 1 and len(outcomes) == 8
    assert set(outcomes) - {"ok"} <= {"OTP_USED", "OTP_ATTEMPTS_EXCEEDED"}


def test_concurrent_guesses_never_exceed_the_attempt_limit(store: otp.OtpStore) -> None:
    codes = codes_with(store, Clock())
    issued = codes.issue("AuthMethod:guess")
    wrong = f"{(int(issued.code) + 1) % 10**6:06d}"
    outcomes: list[str] = []

    def guess() -> None:
        try:
            codes.verify("AuthMethod:guess", wrong)
        except ewc.OtpError as error:
            outcomes.append(error.code)

    threads = [threading.Thread(target=guess) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["OTP_ATTEMPTS_EXCEEDED"] * 7 + ["OTP_INVALID"] * 5


def test_codes_come_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(otp._codes.secrets, "randbelow", lambda bound: 42 if bound == 10**6 else 0)
    assert codes_with(otp.MemoryStore(), Clock()).issue("A").code == "000042"
    monkeypatch.undo()
    issued = {codes_with(otp.MemoryStore(), Clock()).issue("A").code for _ in range(30)}
    assert len(issued) > 20


def test_verification_compares_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(otp._codes.hmac, "compare_digest", spy)
    codes = codes_with(otp.MemoryStore(), Clock())
    codes.verify("A", codes.issue("A").code)
    assert len(compared) == 1 and len(compared[0][0]) == 64


def test_configuration_errors() -> None:
    for options in ({"hash_key": b"short"}, {"hash_key": HASH_KEY, "max_attempts": 0}):
        with pytest.raises(ewc.OtpError) as raised:
            otp.OneTimeCodes(**options)
        assert raised.value.code == "INVALID_PARAMETERS"
    codes = otp.OneTimeCodes(hash_key=HASH_KEY)
    for credential in ("", "x" * 201, None):
        otp_failure(lambda c=credential: codes.issue(c), "INVALID_PARAMETERS", 400)
    with pytest.raises(ewc.OtpError) as raised:
        otp.SqliteStore(":memory:")
    assert raised.value.code == "STORE_CONFIG_INVALID"


def test_sqlite_state_survives_a_new_store(tmp_path: Path) -> None:
    clock = Clock()
    issued = codes_with(otp.SqliteStore(tmp_path / "otp.db"), clock).issue("A")
    reopened = codes_with(otp.SqliteStore(tmp_path / "otp.db"), clock)
    otp_failure(lambda: reopened.issue("A"), "OTP_RATE_LIMITED", 429)
    assert reopened.verify("A", issued.code)


def test_redis_state_survives_a_restart(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)
    server.start()
    try:
        clock = Clock()
        issued = codes_with(otp.RedisStore(server.url), clock).issue("A")
        server.restart()
        reopened = codes_with(otp.RedisStore(server.url), clock)
        assert reopened.verify("A", issued.code)
        otp_failure(lambda: reopened.verify("A", issued.code), "OTP_USED")
    finally:
        server.stop()


def test_an_unreachable_redis_is_store_unavailable() -> None:
    with refused_port() as port:  # a free port could be taken by another server meanwhile
        url = f"redis://127.0.0.1:{port}/0"
        otp_failure(
            lambda: otp.RedisStore(url, socket_timeout_seconds=0.2), "STORE_UNAVAILABLE", 503
        )
        # Without the durability check, the constructor does not connect: each call fails.
        store = otp.RedisStore(url, durability="best-effort", socket_timeout_seconds=0.2)
        codes = codes_with(store, Clock())
        otp_failure(lambda: codes.issue("A"), "STORE_UNAVAILABLE", 503)
        otp_failure(lambda: codes.verify("A", "123456"), "STORE_UNAVAILABLE", 503)
