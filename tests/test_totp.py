"""TOTP (ewc.totp): RFC 6238 appendix B's vectors, pyotp (an independent implementation) as the
oracle for codes and windows, the window on the caller's clock, a code accepted once per factor
(and no code of an earlier step after it), the sandbox code, and hostile input refused with its
code. Secrets and provisioning URIs are in test_totp_secrets.py, the recovery codes in
test_totp_recovery.py, the store races in test_store_factors.py."""

from __future__ import annotations

import random
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _redis_server import refused_port
from _totp_support import (
    NOW,
    RFC_SEEDS,
    RFC_VECTORS,
    SECRET,
    fails,
    oracle,
)
from conftest import report_counts
from embedded_wallet_crypto import stores, totp

# --- known answers --------------------------------------------------------------------------


@pytest.mark.parametrize(("moment", "algorithm", "expected"), RFC_VECTORS)
def test_rfc6238_appendix_b(moment: int, algorithm: Any, expected: str) -> None:
    secret = totp.TotpSecret(RFC_SEEDS[algorithm])
    verifier = totp.Totp(issuer="RFC 6238", algorithm=algorithm, digits=8)
    assert verifier.code_at(secret, moment) == expected
    assert oracle(secret, algorithm, 8).at(moment) == expected  # the oracle agrees
    accepted = verifier.verify("Factor:rfc", secret, expected, now=moment)
    assert (accepted.step, accepted.sandbox) == (moment // 30, False)


def test_rfc6238_vector_count() -> None:
    report_counts("totp rfc6238 appendix b", vectors=len(RFC_VECTORS))
    assert len(RFC_VECTORS) == 18


def test_codes_match_pyotp_on_random_settings() -> None:
    rng = random.Random(6238)
    cases = 0
    for _ in range(300):
        algorithm = rng.choice(totp.ALGORITHMS)
        digits, period = rng.choice([6, 7, 8]), rng.choice([15, 30, 60, 90])
        secret = totp.TotpSecret(rng.randbytes(rng.choice([16, 20, 32, 64, 128])))
        moment = rng.randrange(0, totp.MAX_TIME)
        verifier = totp.Totp(issuer="Diff", algorithm=algorithm, digits=digits, period=period)
        assert verifier.code_at(secret, moment) == oracle(secret, algorithm, digits, period).at(
            moment
        )
        cases += 1
    report_counts("totp pyotp differential", cases=cases)


def test_the_window_agrees_with_pyotp() -> None:
    """Each code of steps -3 to +3 around now: accepted exactly when pyotp's valid_window=1
    accepts it (each on a fresh factor, so single use plays no part)."""
    verifier = totp.Totp(issuer="Window")
    reference = oracle(SECRET)
    for offset in range(-3, 4):
        code = verifier.code_at(SECRET, NOW + offset * 30)
        expected = reference.verify(code, for_time=NOW, valid_window=1)
        try:
            verifier.verify(f"Factor:window:{offset}", SECRET, code, now=NOW)
            accepted = True
        except ewc.TotpError as error:
            assert error.code == "TOTP_INVALID"
            accepted = False
        assert accepted is expected is (abs(offset) <= 1), offset


def test_window_zero_accepts_only_the_current_step_and_step_edges_hold() -> None:
    verifier = totp.Totp(issuer="Edges", window=0)
    step_start = (NOW // 30) * 30
    code = verifier.code_at(SECRET, step_start)
    assert verifier.code_at(SECRET, step_start + 29.999) == code
    verifier.verify("Factor:edge", SECRET, code, now=step_start + 29.999)
    fails(lambda: verifier.verify("Factor:edge2", SECRET, code, now=step_start + 30), *INVALID)
    fails(lambda: verifier.verify("Factor:edge3", SECRET, code, now=step_start - 0.001), *INVALID)


INVALID = ("TOTP_INVALID", 401)
REPLAYED = ("TOTP_REPLAYED", 401)


# --- once per factor ------------------------------------------------------------------------


def test_a_code_is_accepted_once(store: Any) -> None:
    verifier = totp.Totp(store, issuer="Once")
    code = verifier.code_at(SECRET, NOW)
    assert verifier.verify("Factor:1", SECRET, code, now=NOW).step == NOW // 30
    error = fails(lambda: verifier.verify("Factor:1", SECRET, code, now=NOW + 1), *REPLAYED)
    assert code not in str(error) and SECRET.base32 not in str(error)
    # the same code for another factor is that factor's business
    assert verifier.verify("Factor:2", SECRET, code, now=NOW).step == NOW // 30


def test_no_earlier_step_after_a_later_one(store: Any) -> None:
    """A code of the next step accepted first (a fast phone clock) closes the current step's
    code, which is still inside the window; the step after is accepted in its turn."""
    verifier = totp.Totp(store, issuer="Order")
    later = verifier.code_at(SECRET, NOW + 30)
    current = verifier.code_at(SECRET, NOW)
    verifier.verify("Factor:1", SECRET, later, now=NOW)
    fails(lambda: verifier.verify("Factor:1", SECRET, current, now=NOW), *REPLAYED)
    fails(lambda: verifier.verify("Factor:1", SECRET, later, now=NOW + 30), *REPLAYED)
    following = verifier.code_at(SECRET, NOW + 60)
    assert verifier.verify("Factor:1", SECRET, following, now=NOW + 60).step == NOW // 30 + 2


def test_forgetting_the_factor_lets_a_new_enrollment_start_over(store: Any) -> None:
    verifier = totp.Totp(store, issuer="Reset")
    code = verifier.code_at(SECRET, NOW)
    verifier.verify("Factor:1", SECRET, code, now=NOW)
    store.forget_factor("Factor:1")
    assert verifier.verify("Factor:1", SECRET, code, now=NOW).step == NOW // 30


def test_a_failing_store_is_a_typed_503() -> None:
    with refused_port() as port:
        store = stores.RedisStore(f"redis://127.0.0.1:{port}/0", durability="best-effort")
        verifier = totp.Totp(store, issuer="Down")
        code = verifier.code_at(SECRET, NOW)
        error = fails(lambda: verifier.verify("Factor:1", SECRET, code, now=NOW), *UNAVAILABLE)
        assert isinstance(error, stores.StoreError)


UNAVAILABLE = ("STORE_UNAVAILABLE", 503)


def test_the_sandbox_code_only_in_the_sandbox() -> None:
    sandbox = totp.Totp(issuer="Sandbox", sandbox=True)
    for _ in range(2):  # not single use: the interface's sandbox code always works
        accepted = sandbox.verify("Factor:1", SECRET, totp.SANDBOX_TOTP_CODE, now=NOW)
        assert (accepted.step, accepted.sandbox) == (None, True)
    production = totp.Totp(issuer="Production")
    assert production.code_at(SECRET, NOW) != totp.SANDBOX_TOTP_CODE
    fails(lambda: production.verify("Factor:1", SECRET, "123456", now=NOW), *INVALID)
    with pytest.raises(TypeError):
        totp.Totp(issuer="Bad", sandbox="false")  # type: ignore[arg-type]


def test_now_defaults_to_the_wall_clock() -> None:
    import time

    verifier = totp.Totp(issuer="Clock")
    code = verifier.code_at(SECRET, time.time())
    try:
        verifier.verify("Factor:1", SECRET, code)
    except ewc.TotpError as error:  # a step boundary crossed in between: the window covers it
        pytest.fail(f"the current code was refused: {error.code}")


# --- hostile input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [123456, None, b"123456", ["123456"], "12345", "1234567", "12345a", " 123456",
     "\uff11\uff12\uff13\uff14\uff15\uff16",  # full-width digits: isdigit, not ASCII
     "\u0663\u0664\u0665\u0666\u0667\u0668", "1" * 10**6, "", "\ud800" * 6],
)  # fmt: skip
def test_a_code_that_is_not_six_ascii_digits_is_invalid(code: Any) -> None:
    verifier = totp.Totp(issuer="Hostile")
    fails(lambda: verifier.verify("Factor:1", SECRET, code, now=NOW), *INVALID)


@pytest.mark.parametrize("factor_id", ["", "x" * 201, "a\ud800", 7, None, b"Factor:1"])
def test_a_bad_factor_id(factor_id: Any) -> None:
    verifier = totp.Totp(issuer="Hostile")
    fails(lambda: verifier.verify(factor_id, SECRET, "123456", now=NOW), "TOTP_FACTOR_INVALID", 400)


@pytest.mark.parametrize("now", [float("nan"), float("inf"), -1, 10**400, totp.MAX_TIME + 1])
def test_a_clock_reading_out_of_range(now: Any) -> None:
    verifier = totp.Totp(issuer="Clock")
    fails(lambda: verifier.verify("Factor:1", SECRET, "123456", now=now), "TOTP_TIME_INVALID", 500)
    fails(lambda: verifier.code_at(SECRET, now), "TOTP_TIME_INVALID", 500)


@pytest.mark.parametrize("now", ["1700000000", True, None, [1]])
def test_a_clock_reading_of_the_wrong_type(now: Any) -> None:
    verifier = totp.Totp(issuer="Clock")
    with pytest.raises(TypeError):
        verifier.code_at(SECRET, now)


def test_a_secret_of_the_wrong_type() -> None:
    verifier = totp.Totp(issuer="Hostile")
    for secret in (SECRET.key, SECRET.base32, None):
        with pytest.raises(TypeError):
            verifier.verify("Factor:1", secret, "123456", now=NOW)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"digits": 5}, "TOTP_CONFIG_INVALID"),
        ({"digits": 9}, "TOTP_CONFIG_INVALID"),
        ({"period": 0}, "TOTP_CONFIG_INVALID"),
        ({"period": 3601}, "TOTP_CONFIG_INVALID"),
        ({"window": -1}, "TOTP_CONFIG_INVALID"),
        ({"window": 11}, "TOTP_CONFIG_INVALID"),
        ({"algorithm": "MD5"}, "TOTP_CONFIG_INVALID"),
        ({"algorithm": "sha1"}, "TOTP_CONFIG_INVALID"),
        ({"digits": True}, TypeError),
        ({"digits": "6"}, TypeError),
        ({"period": 30.0}, TypeError),
        ({"window": True}, TypeError),
    ],
)
def test_settings_out_of_range(settings: dict[str, Any], error: Any) -> None:
    if error is TypeError:
        with pytest.raises(TypeError):
            totp.Totp(issuer="Settings", **settings)
    else:
        fails(lambda: totp.Totp(issuer="Settings", **settings), error, 500)
