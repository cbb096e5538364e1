"""ewc.signed_retry, leg two: every rule of the verification, each failure with its code and
HTTP status (MemoryStore), and the single-use claim raced by threads."""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _signed_retry_support import (
    ACCOUNT,
    CLIENT,
    OTHER_CLIENT,
    SECOND_SESSION,
    SESSION,
    STRANGER,
    T0,
    Clock,
    answer,
    fails,
    issue,
)
from embedded_wallet_crypto.signed_retry import (
    ChallengeRecord,
    MemoryStore,
    Operation,
    SignedRetry,
)

# --- leg two: the rules ---------------------------------------------------------------------


@pytest.mark.parametrize("operation", list(Operation))
def test_each_operation_verifies_once(retry: SignedRetry, operation: Operation) -> None:
    adds = operation.name.startswith("ADD_")
    challenge = issue(retry, operation, credential_type=None if adds else "EMAIL_OTP")
    sessions = {SESSION.public_key_hex(): "AuthMethod:1"}
    verified = answer(retry, challenge, account_session_keys=sessions, account_id=ACCOUNT)
    assert verified.request_id == challenge.request_id
    assert verified.account_id == ACCOUNT and verified.operation is operation
    assert verified.type == challenge.type
    assert verified.payload_to_sign == challenge.payload_to_sign
    assert verified.parameters == json.loads(challenge.payload_to_sign)["parameters"]
    assert verified.session_public_key == SESSION.public_key_hex(compressed=True)
    assert verified.session_credential_id == "AuthMethod:1"
    expected_bound = CLIENT.public_key_hex() if operation.binds_client_key else None
    assert verified.bound_client_public_key == expected_bound
    fails(lambda: answer(retry, challenge, account_session_keys=sessions), "REQUEST_ID_USED")


def test_stamp_without_request_id(retry: SignedRetry) -> None:
    challenge = issue(retry)
    for missing in (None, ""):
        fails(
            lambda: answer(retry, challenge, request_id=missing),  # noqa: B023
            "REQUEST_ID_MISSING",
        )
    answer(retry, challenge)  # the id was not consumed


def test_request_id_without_stamp(retry: SignedRetry) -> None:
    challenge = issue(retry)
    for missing in (None, ""):
        fails(
            lambda: answer(retry, challenge, stamp=missing),  # noqa: B023
            "WALLET_SIGNATURE_MISSING",
        )
    fails(lambda: answer(retry, challenge, stamp=None, request_id=None), "WALLET_SIGNATURE_MISSING")
    answer(retry, challenge)


@pytest.mark.parametrize("request_id", ["Request:" + str(uuid.UUID(int=0)), "x" * 10_000])
def test_unknown_request_id(retry: SignedRetry, request_id: str) -> None:
    challenge = issue(retry)
    fails(lambda: answer(retry, challenge, request_id=request_id), "REQUEST_ID_UNKNOWN")


def test_expiry_is_exclusive(retry: SignedRetry, clock: Clock) -> None:
    late, on_time = issue(retry), issue(retry)
    clock.now = T0 + 300
    fails(lambda: answer(retry, late), "REQUEST_ID_EXPIRED")
    clock.now = T0 + 299.999
    answer(retry, on_time)
    clock.now = T0 + 10_000
    fails(lambda: answer(retry, on_time), "REQUEST_ID_USED")


def test_signature_over_other_bytes_is_rejected_without_consuming(retry: SignedRetry) -> None:
    challenge = issue(retry)
    payload = challenge.payload_to_sign
    changed = [
        payload.replace("org-1234", "org-1235"),
        payload.replace(",", ", ", 1),
        json.dumps(json.loads(payload)),
        payload + "\n",
    ]
    for other in changed:
        stamp = ewc.create_stamp(other, SESSION)
        fails(
            lambda: answer(retry, challenge, stamp=stamp),  # noqa: B023
            "WALLET_SIGNATURE_INVALID",
        )
    fails(lambda: answer(retry, challenge, stamp="not a stamp"), "WALLET_SIGNATURE_MALFORMED")
    assert answer(retry, challenge).request_id == challenge.request_id


def test_stamp_key_must_be_an_active_session_of_the_account(retry: SignedRetry) -> None:
    challenge = issue(retry)
    fails(lambda: answer(retry, challenge, key=STRANGER), "WALLET_SIGNATURE_KEY_MISMATCH")
    fails(
        lambda: answer(retry, challenge, account_session_keys=[]), "WALLET_SIGNATURE_KEY_MISMATCH"
    )
    assert answer(retry, challenge, key=SECOND_SESSION).session_public_key == (
        SECOND_SESSION.public_key_hex(compressed=True)
    )


@pytest.mark.parametrize(
    "sessions",
    [
        [SESSION.public_key_hex()],
        [SESSION.public_key_hex(compressed=True)],
        [SESSION.public_key_hex().upper()],
        [SESSION.public_key_bytes()],
        (key for key in [STRANGER.public_key_hex(), SESSION.public_key_hex()]),
        SESSION.public_key_hex(),
        {SESSION.public_key_hex(compressed=True).upper(): None},
    ],
    ids=["uncompressed", "compressed", "upper", "bytes", "generator", "one-string", "mapping"],
)
def test_session_keys_in_any_encoding(retry: SignedRetry, sessions: Any) -> None:
    answer(retry, issue(retry), account_session_keys=sessions)


def test_malformed_session_key_is_the_callers_error(retry: SignedRetry) -> None:
    challenge = issue(retry)
    fails(lambda: answer(retry, challenge, account_session_keys=["zz"]), "INVALID_KEY_ENCODING")


def test_request_id_of_another_account(retry: SignedRetry) -> None:
    challenge = issue(retry)
    fails(
        lambda: answer(retry, challenge, account_id="InternalAccount:other"),
        "REQUEST_ID_ACCOUNT_MISMATCH",
    )
    answer(retry, challenge, account_id=ACCOUNT)


@pytest.mark.parametrize("operation", [Operation.EXPORT_WALLET, Operation.REFRESH_SESSION])
def test_bound_client_key_must_not_change(retry: SignedRetry, operation: Operation) -> None:
    challenge = issue(retry, operation)
    for swapped in (OTHER_CLIENT.public_key_hex(), None, "04" + "00" * 64, "nonsense"):
        fails(
            lambda: answer(
                retry,
                challenge,
                request_body_client_public_key=swapped,  # noqa: B023
            ),
            "CLIENT_PUBLIC_KEY_MISMATCH",
        )
    same_key = CLIENT.public_key_hex(compressed=True).upper()
    answer(retry, challenge, request_body_client_public_key=same_key)


def test_client_key_is_ignored_where_nothing_is_bound(retry: SignedRetry) -> None:
    challenge = issue(retry, Operation.REVOKE_SESSION)
    answer(retry, challenge, request_body_client_public_key=OTHER_CLIENT.public_key_hex())


def test_revoking_a_credential_needs_a_session_of_another_credential(retry: SignedRetry) -> None:
    challenge = issue(retry, Operation.REVOKE_CREDENTIAL)  # revokes AuthMethod:2
    sessions = {
        SESSION.public_key_hex(): "AuthMethod:1",
        SECOND_SESSION.public_key_hex(): "AuthMethod:2",
    }
    fails(
        lambda: answer(retry, challenge, key=SECOND_SESSION, account_session_keys=sessions),
        "SESSION_OF_REVOKED_CREDENTIAL",
    )
    for unknown in ([SESSION.public_key_hex()], {SESSION.public_key_hex(): None}):
        fails(
            lambda: answer(retry, challenge, account_session_keys=unknown),  # noqa: B023
            "SESSION_CREDENTIAL_UNKNOWN",
        )
    verified = answer(retry, challenge, account_session_keys=sessions)
    assert verified.session_credential_id == "AuthMethod:1"
    assert verified.parameters["authenticatorIds"] == ["AuthMethod:2"]


def test_revoking_a_session_may_use_any_session_of_the_account(retry: SignedRetry) -> None:
    challenge = issue(retry, Operation.REVOKE_SESSION)
    answer(retry, challenge, key=SECOND_SESSION)


def test_sandbox_stamp_only_in_sandbox(clock: Clock) -> None:
    production = SignedRetry(clock=clock)
    challenge = issue(production)
    fails(
        lambda: answer(production, challenge, stamp="sandbox-valid-signature"),
        "WALLET_SIGNATURE_MALFORMED",
    )
    sandbox = SignedRetry(clock=clock, sandbox=True)
    challenge = issue(sandbox)
    verified = answer(sandbox, challenge, stamp="sandbox-valid-signature")
    assert verified.session_public_key == "" and verified.session_credential_id is None
    fails(lambda: answer(sandbox, challenge, stamp="sandbox-valid-signature"), "REQUEST_ID_USED")


@pytest.mark.parametrize(("operation", "payload"), [("NOPE", "{}"), ("EXPORT_WALLET", "[1]")])
def test_a_corrupt_record_is_a_store_error(operation: str, payload: str) -> None:
    store = MemoryStore()
    retry = SignedRetry(store)
    store.put(ChallengeRecord("Request:x", ACCOUNT, operation, None, payload, None, 2**53), 60)
    fails(
        lambda: retry.verify(
            request_id="Request:x",
            stamp=ewc.create_stamp(payload, SESSION),
            account_session_keys=[SESSION.public_key_hex()],
        ),
        "STORE_CORRUPT",
    )


def test_memory_store_forgets_late_and_only_late() -> None:
    monotonic = Clock()
    store = MemoryStore(clock=monotonic)
    retry = SignedRetry(store, ttl_seconds=10, keep_expired_seconds=5, clock=Clock())
    first = issue(retry)
    monotonic.now += 14.9
    issue(retry)
    assert store.get(first.request_id) is not None
    monotonic.now += 0.2
    issue(retry)
    assert store.get(first.request_id) is None and len(store) == 2


def test_threads_race_for_one_request_id(retry: SignedRetry) -> None:
    rounds, threads = 200, 8
    challenges = [issue(retry) for _ in range(rounds)]
    stamps = [ewc.create_stamp(c.payload_to_sign, SESSION) for c in challenges]
    wins = [0] * rounds
    codes: list[str] = []
    barrier = threading.Barrier(threads)
    lock = threading.Lock()

    def contend() -> None:
        for index, (challenge, stamp) in enumerate(zip(challenges, stamps, strict=True)):
            barrier.wait()
            try:
                answer(retry, challenge, stamp=stamp)
                with lock:
                    wins[index] += 1
            except ewc.WalletCryptoError as error:
                with lock:
                    codes.append(error.code)

    workers = [threading.Thread(target=contend) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert wins == [1] * rounds
    assert codes == ["REQUEST_ID_USED"] * (rounds * (threads - 1))
