"""The error contract over ``ewc.signed_retry`` (``SignedRetry``: its constructor, ``issue`` and
``verify``; ``build_payload``; ``ensure_credential_remains``) and the constructors of the
``ewc.stores`` classes. Only WalletCryptoError or TypeError escapes, an int is never a buffer
size (see ``tests/_contract.py``). ``issue_payload`` and ``verify_payload`` (the challenge over a
caller-given payload for one signer) are in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _contract import Entry, check_baseline, contract_tests, property_test, report, sweep
from embedded_wallet_crypto import signed_retry, stores
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

T0 = 1_700_000_000.0
CLIENT = ewc.KeyPair.from_private_hex("88" * 32)
SESSION = ewc.KeyPair.from_private_hex("99" * 32)
ISSUE: dict[str, Any] = {
    "account_id": "acct",
    "operation": "EXPORT_WALLET",
    "parameters": {"walletId": "w1"},
    "organization_id": "org",
    "bound_client_public_key": CLIENT.public_key_hex(),
    "credential_type": None,
}


def _engine() -> signed_retry.SignedRetry:
    return signed_retry.SignedRetry(
        signed_retry.MemoryStore(), clock=lambda: T0, id_factory=lambda: "req-1", sandbox=False
    )


def _issue(**changes: Any) -> object:
    return _engine().issue(**{**ISSUE, **changes})


def _verify(**changes: Any) -> object:
    engine = _engine()
    challenge = engine.issue(**ISSUE)
    arguments: dict[str, Any] = {
        "request_id": challenge.request_id,
        "stamp": ewc.create_stamp(challenge.payload_to_sign, SESSION),
        "account_session_keys": [SESSION.public_key_hex()],
        "request_body_client_public_key": CLIENT.public_key_hex(),
        "account_id": "acct",
    }
    arguments.update(changes)
    return engine.verify(**arguments)


PAYLOAD_ISSUE: dict[str, Any] = {
    "account_id": "acct",
    "payload_to_sign": "header.claims.signature",
    "signer_public_key": CLIENT.public_key_hex(),
    "credential_type": "EMAIL_OTP",
}


def _issue_payload(**changes: Any) -> object:
    return _engine().issue_payload(**{**PAYLOAD_ISSUE, **changes})


def _verify_payload(**changes: Any) -> object:
    engine = _engine()
    challenge = engine.issue_payload(**PAYLOAD_ISSUE)
    arguments: dict[str, Any] = {
        "request_id": challenge.request_id,
        "stamp": ewc.create_stamp(challenge.payload_to_sign, CLIENT),
        "account_id": "acct",
    }
    arguments.update(changes)
    return engine.verify_payload(**arguments)


def _sqlite(path: Any, busy_timeout_seconds: Any) -> object:
    store = stores.SqliteStore(path, busy_timeout_seconds=busy_timeout_seconds)
    store.close()
    return store


ENTRIES = [
    Entry(
        "SignedRetry",
        signed_retry.SignedRetry,
        {
            "store": signed_retry.MemoryStore(),
            "ttl_seconds": 300,
            "keep_expired_seconds": 300,
            "sandbox": False,
        },
    ),
    Entry("SignedRetry.issue", _issue, dict(ISSUE), frozenset({"bound_client_public_key"})),
    Entry(
        "SignedRetry.verify",
        _verify,
        {
            "request_id": "req-1",
            "stamp": "replaced by a stamp over the payload",
            "account_session_keys": [SESSION.public_key_hex()],
            "request_body_client_public_key": CLIENT.public_key_hex(),
            "account_id": "acct",
            "expected_operation": "EXPORT_WALLET",
            "expected_parameters": {"walletId": "w1"},
        },
        frozenset({"request_body_client_public_key"}),
    ),
    Entry(
        "build_payload",
        signed_retry.build_payload,
        {
            "operation": "EXPORT_WALLET",
            "parameters": {"walletId": "w1"},
            "organization_id": "org",
            "timestamp_ms": 1_700_000_000_000,
            "bound_client_public_key": CLIENT.public_key_hex(),
        },
        frozenset({"bound_client_public_key"}),
    ),
    Entry(
        "SignedRetry.issue_payload",
        _issue_payload,
        dict(PAYLOAD_ISSUE),
        frozenset({"signer_public_key"}),
    ),
    Entry(
        "SignedRetry.verify_payload",
        _verify_payload,
        {
            "request_id": "req-1",
            "stamp": "replaced by a stamp over the payload",
            "account_id": "acct",
        },
    ),
    Entry(
        "ensure_credential_remains",
        signed_retry.ensure_credential_remains,
        {"credentials": ["a", {"id": "b"}], "revoking_ids": ["a"]},
    ),
    Entry("stores.MemoryStore", stores.MemoryStore, {"clock": lambda: T0}),
    Entry(
        "stores.RedisStore",
        stores.RedisStore,
        {"url": "redis://127.0.0.1:1/0", "key_prefix": "ewc:", "socket_timeout_seconds": 0.5},
    ),
]


def _check_verify_baseline(entry: Entry) -> None:
    if entry.name == "SignedRetry.verify":  # the baseline stamp is made inside _verify
        _verify()
    if entry.name == "SignedRetry.verify_payload":
        _verify_payload()


@pytest.mark.parametrize("entry", ENTRIES, ids=repr)
def test_valid_arguments_are_valid(entry: Entry) -> None:
    if entry.name == "stores.RedisStore":
        try:
            check_baseline(entry)
        except ewc.WalletCryptoError:
            pass  # no server on port 1: a typed error (a durability check may connect)
        return
    if entry.name in ("SignedRetry.verify", "SignedRetry.verify_payload"):
        _check_verify_baseline(entry)
        return
    check_baseline(entry)


_, test_every_argument_times_every_hostile_value, test_drawn_hostile_values = contract_tests(
    ENTRIES
)


# SqliteStore creates files: it runs in a temporary directory, so a drawn relative path lands
# there and nowhere else.


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Entry]:
    monkeypatch.chdir(tmp_path)
    yield Entry(
        "stores.SqliteStore",
        _sqlite,
        {"path": str(tmp_path / "store.db"), "busy_timeout_seconds": 1.0},
    )


def test_sqlite_store_constructor(in_tmp: Entry) -> None:
    check_baseline(in_tmp)
    found = sweep(in_tmp)
    assert not found, report(found)


@settings(
    database=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_sqlite_store_constructor_drawn(in_tmp: Entry, data: st.DataObject) -> None:
    property_test(in_tmp, data)
