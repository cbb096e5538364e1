"""``SignedRetry.issue_payload`` / ``verify_payload``: a challenge over a caller-given payload
that only one expected signer may answer (the OTP login's second leg), on every store: single
use, expiring, atomic across processes; a stamp by any other key, or an answer through the
other kind of verify, fails with the existing 401 codes; records of the previous release (and
its SQLite and PostgreSQL tables) still open."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import _claim_race
import embedded_wallet_crypto as ewc
import pytest
from _postgres_server import PostgresServer, empty_store
from _processes import run_spawned
from _redis_server import RedisServer
from conftest import report_counts
from embedded_wallet_crypto import stores
from embedded_wallet_crypto.signed_retry import (
    ChallengeRecord,
    MemoryStore,
    Operation,
    PayloadChallenge,
    SignedRetry,
    VerifiedPayload,
)
from hypothesis import given, settings
from hypothesis import strategies as st

T0 = 1_700_000_000.0
TEK = ewc.hpke.derive_key_pair(b"payload test target key ikm 0001")
SESSION = ewc.hpke.derive_key_pair(b"payload test session key ikm 001")
STRANGER = ewc.hpke.derive_key_pair(b"payload test stranger key ikm 01")
TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJleHAiOiIxNzAwMDAwMzAwMDAwIn0.c2ln"
RACE_WORKERS = 8
RACE_ROUNDS = 300


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def fails(call: Any, code: str, status: int = 401) -> ewc.WalletCryptoError:
    with pytest.raises(ewc.WalletCryptoError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    return raised.value


def engine(store: Any, clock: Clock | None = None) -> SignedRetry:
    return SignedRetry(store, clock=clock or Clock(), ttl_seconds=300, sandbox=False)


def issue(protocol: SignedRetry, payload: str = TOKEN) -> PayloadChallenge:
    return protocol.issue_payload(
        account_id="acct", payload_to_sign=payload, signer_public_key=TEK.public_key_hex(),
        credential_type="EMAIL_OTP",
    )  # fmt: skip


def test_the_expected_signer_answers_once(store: Any) -> None:
    protocol = engine(store)
    challenge = issue(protocol)
    assert challenge.to_response() == {
        "payloadToSign": TOKEN,
        "requestId": challenge.request_id,
        "expiresAt": "2023-11-14T22:18:20.000Z",
        "type": "EMAIL_OTP",
    }
    assert challenge.signer_public_key == ewc.compress_public_key(TEK.public_key_hex()).hex()
    stored = store.get(challenge.request_id)
    assert (stored.payload_to_sign, stored.expected_signer) == (TOKEN, challenge.signer_public_key)
    stamp = ewc.create_stamp(TOKEN, TEK)
    verified = protocol.verify_payload(
        request_id=challenge.request_id, stamp=stamp, account_id="acct"
    )
    assert verified == VerifiedPayload(
        challenge.request_id, "acct", "EMAIL_OTP", TOKEN, challenge.signer_public_key
    )
    replay = lambda: protocol.verify_payload(request_id=challenge.request_id, stamp=stamp)  # noqa: E731
    fails(replay, "REQUEST_ID_USED")


def test_another_key_or_payload_fails_and_leaves_the_id_usable(store: Any) -> None:
    protocol = engine(store)
    challenge = issue(protocol)

    def answer(stamp: str, **changes: Any) -> Any:
        arguments = {"request_id": challenge.request_id, "stamp": stamp, **changes}
        return lambda: protocol.verify_payload(**arguments)

    for key in (SESSION, STRANGER):  # a session key of the account is no better than a stranger
        fails(answer(ewc.create_stamp(TOKEN, key)), "WALLET_SIGNATURE_KEY_MISMATCH")
    fails(answer(ewc.create_stamp(TOKEN + "x", TEK)), "WALLET_SIGNATURE_INVALID")
    fails(answer("sandbox-valid-signature"), "WALLET_SIGNATURE_MALFORMED")
    fails(answer(""), "WALLET_SIGNATURE_MISSING")
    fails(answer(ewc.create_stamp(TOKEN, TEK), account_id="other"), "REQUEST_ID_ACCOUNT_MISMATCH")
    fails(lambda: protocol.verify_payload(request_id=None, stamp="x"), "REQUEST_ID_MISSING")
    fails(
        lambda: protocol.verify_payload(request_id="Request:none", stamp="x"), "REQUEST_ID_UNKNOWN"
    )
    assert (
        protocol.verify_payload(
            request_id=challenge.request_id, stamp=ewc.create_stamp(TOKEN, TEK)
        ).signer_public_key
        == challenge.signer_public_key
    )


def test_the_two_kinds_of_challenge_do_not_answer_each_other(store: Any) -> None:
    protocol = engine(store)
    payload = issue(protocol)
    stamp = ewc.create_stamp(TOKEN, TEK)
    keys = [TEK.public_key_hex(), SESSION.public_key_hex()]
    as_operation = lambda: protocol.verify(  # noqa: E731
        request_id=payload.request_id, stamp=stamp, account_session_keys=keys
    )
    fails(as_operation, "REQUEST_ID_UNKNOWN")
    operation = protocol.issue(
        account_id="acct",
        operation=Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": ["Session:1"], "userId": "u"},
        organization_id="org",
    )
    by_tek = ewc.create_stamp(operation.payload_to_sign, TEK)
    as_payload = lambda: protocol.verify_payload(request_id=operation.request_id, stamp=by_tek)  # noqa: E731
    fails(as_payload, "REQUEST_ID_UNKNOWN")
    # both stay usable for their own kind of answer
    assert (
        protocol.verify_payload(request_id=payload.request_id, stamp=stamp).payload_to_sign == TOKEN
    )
    session_stamp = ewc.create_stamp(operation.payload_to_sign, SESSION)
    assert (
        protocol.verify(
            request_id=operation.request_id, stamp=session_stamp, account_session_keys=keys
        ).operation
        is Operation.REVOKE_SESSION
    )


def test_a_payload_challenge_expires(store: Any) -> None:
    clock = Clock()
    protocol = engine(store, clock)
    challenge = issue(protocol)
    clock.now += 300
    fails(
        lambda: protocol.verify_payload(
            request_id=challenge.request_id, stamp=ewc.create_stamp(TOKEN, TEK)
        ),
        "REQUEST_ID_EXPIRED",
    )


def test_issue_payload_refuses_bad_parameters() -> None:
    protocol = engine(MemoryStore())
    key = TEK.public_key_hex()

    def issue_with(**changes: Any) -> Any:
        arguments = {"account_id": "a", "payload_to_sign": "p", "signer_public_key": key}
        return lambda: protocol.issue_payload(**{**arguments, **changes})

    for payload in ("", "\ud800", "x" * (64 * 1024 + 1)):
        fails(issue_with(payload_to_sign=payload), "INVALID_PARAMETERS", 400)
    fails(issue_with(account_id=""), "INVALID_PARAMETERS", 400)
    fails(issue_with(credential_type="SMS"), "INVALID_PARAMETERS", 400)
    with pytest.raises(ewc.InvalidKey):
        protocol.issue_payload(
            account_id="a", payload_to_sign="p", signer_public_key="04" + "00" * 64
        )


@settings(max_examples=40, deadline=None, database=None)
@given(payload=st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=300))
def test_any_text_payload_round_trips(payload: str) -> None:
    protocol = engine(MemoryStore())
    challenge = issue(protocol, payload)
    assert challenge.payload_to_sign == payload
    verified = protocol.verify_payload(
        request_id=challenge.request_id, stamp=ewc.create_stamp(payload, TEK)
    )
    assert verified.payload_to_sign == payload


# --- a store written by the previous release ------------------------------------------------

# The previous release's tables, exactly as it created them.
OLD_SQLITE_SCHEMA = """
CREATE TABLE signed_retry_challenges (
    request_id    TEXT PRIMARY KEY,
    record        TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    forget_at     REAL NOT NULL,
    claimed       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX signed_retry_challenges_forget_at ON signed_retry_challenges (forget_at);
"""
OLD_POSTGRES_SCHEMA = """
CREATE TABLE ewc_signed_retry_challenges (
    request_id    TEXT PRIMARY KEY,
    record        TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    forget_at     DOUBLE PRECISION NOT NULL,
    claimed       BOOLEAN NOT NULL DEFAULT FALSE
)
"""


def old_record(protocol: SignedRetry) -> tuple[str, str, str]:
    """(request id, record text as the previous release wrote it, expires_at_ms as text)."""
    challenge = protocol.issue(
        account_id="acct",
        operation=Operation.REVOKE_SESSION,
        parameters={"apiKeyIds": ["Session:1"], "userId": "u"},
        organization_id="org",
    )
    record = protocol.store.get(challenge.request_id)
    assert record is not None
    text = record.to_json()
    assert "expected_signer" not in text  # an operation record is written as before
    return challenge.request_id, text, str(record.expires_at_ms)


def check_old_and_new(store: Any, request_id: str) -> None:
    protocol = engine(store)
    stamp = ewc.create_stamp(store.get(request_id).payload_to_sign, SESSION)
    verified = protocol.verify(
        request_id=request_id, stamp=stamp, account_session_keys=[SESSION.public_key_hex()]
    )
    assert verified.operation is Operation.REVOKE_SESSION
    challenge = issue(protocol)
    assert (
        protocol.verify_payload(
            request_id=challenge.request_id, stamp=ewc.create_stamp(TOKEN, TEK)
        ).request_id
        == challenge.request_id
    )


def test_sqlite_opens_a_database_of_the_previous_release(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    request_id, text, expires = old_record(engine(MemoryStore()))
    with sqlite3.connect(path) as connection:
        connection.executescript(OLD_SQLITE_SCHEMA)
        connection.execute(
            "INSERT INTO signed_retry_challenges (request_id, record, expires_at_ms, forget_at) "
            "VALUES (?, ?, ?, ?)",
            (request_id, text, int(expires), time.time() + 600),
        )
    connection.close()
    store = stores.SqliteStore(path)
    try:
        check_old_and_new(store, request_id)
    finally:
        store.close()


def test_postgres_opens_a_database_of_the_previous_release(postgres_server: PostgresServer) -> None:
    empty_store(postgres_server).close()
    import psycopg

    request_id, text, expires = old_record(engine(MemoryStore()))
    with psycopg.connect(postgres_server.dsn, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS ewc_signed_retry_challenges")
        connection.execute(OLD_POSTGRES_SCHEMA)
        connection.execute(
            "INSERT INTO ewc_signed_retry_challenges "
            "(request_id, record, expires_at_ms, forget_at) VALUES (%s, %s, %s, %s)",
            (request_id, text, int(expires), time.time() + 600),
        )
    store = stores.PostgresStore(postgres_server.dsn)
    try:
        check_old_and_new(store, request_id)
    finally:
        store.close()


def test_a_record_of_the_previous_release_reads_without_a_signer() -> None:
    old = '{"account_id":"a","bound_client_public_key":null,"credential_type":null,"expires_at_ms":5,"operation":"EXPORT_WALLET","payload_to_sign":"{}","request_id":"r"}'  # noqa: E501
    record = ChallengeRecord.from_json(old, claimed=False)
    assert record.expected_signer is None and record.to_json() == old
    with pytest.raises(stores.StoreError):
        ChallengeRecord.from_json(old[:-1] + ',"expected_signer":5}', claimed=False)


# --- 8 processes answer each payload challenge at once --------------------------------------


def _payload_race(kind: str, location: str) -> None:
    store = _claim_race.open_store(kind, location)
    protocol = SignedRetry(store)
    retries = []
    for index in range(RACE_ROUNDS):
        payload = f"{TOKEN}.{index}"
        challenge = protocol.issue_payload(
            account_id="acct", payload_to_sign=payload, signer_public_key=TEK.public_key_hex()
        )
        retries.append((challenge.request_id, ewc.create_stamp(payload, TEK)))
    store.close()  # type: ignore[attr-defined]
    reports, elapsed = run_spawned(RACE_WORKERS, _claim_race.payload_race, kind, location, retries)
    assert [problem for *_, problem in reports if problem is not None] == []
    winners = [0] * RACE_ROUNDS
    losers: dict[str, int] = {}
    for _, won, codes, _ in reports:
        for index in won:
            winners[index] += 1
        for code, count in codes.items():
            losers[code] = losers.get(code, 0) + count
    assert winners == [1] * RACE_ROUNDS, "a round without exactly one accepted answer"
    assert losers == {"REQUEST_ID_USED": RACE_ROUNDS * (RACE_WORKERS - 1)}
    report_counts(
        f"payload challenge race {kind}",
        processes=RACE_WORKERS,
        rounds=RACE_ROUNDS,
        single_winner_rounds=RACE_ROUNDS,
        milliseconds=round(elapsed * 1000),
    )


def test_sqlite_eight_processes_one_answer_per_payload(tmp_path: Path) -> None:
    _payload_race("sqlite", str(tmp_path / "challenges.db"))


def test_redis_eight_processes_one_answer_per_payload(redis_server: RedisServer) -> None:
    _payload_race("redis", redis_server.url)


def test_postgres_eight_processes_one_answer_per_payload(postgres_server: PostgresServer) -> None:
    empty_store(postgres_server).close()
    _payload_race("postgres", postgres_server.dsn)
