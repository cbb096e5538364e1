"""py_webauthn 3.0.1's real-authenticator samples (shared/upstream-vectors/webauthn, SOURCES.md).

Every success case must verify through ``ewc.passkeys`` with the case's own parameters (its
trust roots and algorithm list; its verification time and SafetyNet switch through the test
support ``ewc.testing.webauthn_time``) and give the values py_webauthn returns; every failure
case must be rejected with ``PasskeyError`` and nothing else.
"""

from __future__ import annotations

import base64
import importlib
import inspect
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from conftest import load_upstream_json, report_counts
from embedded_wallet_crypto import passkeys, testing

pytestmark = pytest.mark.upstream

CASES_FILE = "webauthn/py_webauthn_cases.json"


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _common(inputs: dict[str, Any]) -> dict[str, Any]:
    return {
        "expected_challenge": _b64url(inputs["expected_challenge_b64url"]),
        "rp_id": inputs["expected_rp_id"],
        "origin": inputs["expected_origin"],
        # py_webauthn's default; ours is True, so the case's value (or False) is passed
        "require_user_verification": inputs.get("require_user_verification", False),
    }


def _register(inputs: dict[str, Any]) -> passkeys.RegisteredPasskey:
    options = _common(inputs)
    if "supported_pub_key_algs" in inputs:
        options["supported_algorithms"] = inputs["supported_pub_key_algs"]
    if "pem_root_certs_by_fmt" in inputs:
        options["pem_root_certs_by_fmt"] = {
            fmt: [pem.encode() for pem in pems]
            for fmt, pems in inputs["pem_root_certs_by_fmt"].items()
        }
    when = inputs.get("verification_time")
    with testing.webauthn_time(
        None if when is None else datetime.fromisoformat(when.replace("Z", "+00:00")),
        check_safetynet_timestamp=inputs.get("verify_timestamp_ms") is not False,
    ):
        return passkeys.verify_registration(inputs["credential"], **options)


def _authenticate(inputs: dict[str, Any]) -> passkeys.VerifiedAssertion:
    return passkeys.verify_assertion(
        inputs["credential"],
        credential_public_key=_b64url(inputs["credential_public_key_cose_b64url"]),
        current_sign_count=inputs["credential_current_sign_count"],
        **_common(inputs),
    )


def _registration_mismatches(result: passkeys.RegisteredPasskey, expected: dict[str, Any]) -> str:
    wanted = {
        "credential_id": _b64url(expected["credential_id_b64url"]),
        "sign_count": expected["sign_count"],
        "fmt": expected["fmt"],
    }
    if "credential_public_key_b64url" in expected:
        wanted["public_key"] = _b64url(expected["credential_public_key_b64url"])
    for name in ("aaguid", "user_verified"):
        if name in expected:
            wanted[name] = expected[name]
    if "credential_backed_up" in expected:
        wanted["backed_up"] = expected["credential_backed_up"]
    return ", ".join(k for k, v in wanted.items() if getattr(result, k) != v)


def _assertion_mismatches(result: passkeys.VerifiedAssertion, expected: dict[str, Any]) -> str:
    wanted = {
        "credential_id": _b64url(expected["credential_id_b64url"]),
        "new_sign_count": expected["new_sign_count"],
        "user_verified": expected["user_verified"],
    }
    return ", ".join(k for k, v in wanted.items() if getattr(result, k) != v)


def _run(case: dict[str, Any]) -> tuple[str, str | None]:
    """(what happened, a problem or None)."""
    registration = case["ceremony"] == "registration"
    try:
        if registration:
            mismatch = _registration_mismatches(_register(case["inputs"]), case["expected"])
        else:
            mismatch = _assertion_mismatches(_authenticate(case["inputs"]), case["expected"])
    except ewc.PasskeyError as error:
        if case["expected_outcome"] == "failure":
            return f"rejected:{error.code}", None
        return "rejected", f"rejected a success case: {error.code}: {error.reason}"
    except Exception as error:  # anything but PasskeyError is a bug, whatever the case
        return "crashed", f"raised {type(error).__name__}: {error}"
    if case["expected_outcome"] == "failure":
        return "accepted", "accepted a failure case"
    if mismatch:
        return "accepted", f"verified but differs from py_webauthn in: {mismatch}"
    return "accepted", None


def test_every_upstream_case() -> None:
    cases = load_upstream_json(CASES_FILE)["cases"]
    outcomes: Counter[str] = Counter()
    problems = []
    for case in cases:
        happened, problem = _run(case)
        outcomes[f"{case['ceremony']}-{case['expected_outcome']}"] += 1
        outcomes[happened.split(":")[0]] += 1
        if problem:
            problems.append(f"{case['name']}: {problem}")
    report_counts(
        "py_webauthn samples",
        cases=len(cases),
        registration_success=outcomes["registration-success"],
        registration_failure=outcomes["registration-failure"],
        authentication_success=outcomes["authentication-success"],
        authentication_failure=outcomes["authentication-failure"],
        problems=len(problems),
    )
    assert not problems, "\n".join(problems)
    assert len(cases) == 50


def test_every_attestation_format_and_algorithm_is_covered() -> None:
    """The samples reach every format py_webauthn verifies and the non-ES256 key types."""
    cases = load_upstream_json(CASES_FILE)["cases"]
    formats = {
        case["expected"]["fmt"]
        for case in cases
        if case["ceremony"] == "registration" and case["expected_outcome"] == "success"
    }
    assert formats == {
        "none",
        "packed",
        "fido-u2f",
        "apple",
        "android-key",
        "android-safetynet",
        "tpm",
    }
    algorithms = {
        case["derived"]["authData"].get("credentialPublicKey_cose_alg")
        for case in cases
        if case["expected_outcome"] == "success" and "authData" in case["derived"]
    }
    assert {-7, -8, -257} <= algorithms


def test_verification_time_is_needed_and_stays_per_call() -> None:
    """Without the case's time an expired chain fails; a timed call does not leak the time."""
    cases = load_upstream_json(CASES_FILE)["cases"]
    apple = next(c for c in cases if c["name"] == "reg_apple/verify_attestation_apple_passkey")
    inputs = dict(apple["inputs"])
    assert _register(inputs).fmt == "apple"
    del inputs["verification_time"]
    with pytest.raises(ewc.PasskeyError) as raised:
        _register(inputs)
    assert raised.value.code == "PASSKEY_ATTESTATION_INVALID"


def test_verification_time_does_not_leak_across_threads() -> None:
    """The time lives in a ContextVar: timed and untimed calls can run side by side."""
    cases = load_upstream_json(CASES_FILE)["cases"]
    apple = next(c for c in cases if c["name"] == "reg_apple/verify_attestation_apple_passkey")
    untimed = {k: v for k, v in apple["inputs"].items() if k != "verification_time"}

    def attempt(inputs: dict[str, Any]) -> str:
        try:
            return _register(inputs).fmt
        except ewc.PasskeyError as error:
            return error.code

    jobs = [apple["inputs"], untimed] * 20
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(attempt, jobs))
    assert outcomes == ["apple", "PASSKEY_ATTESTATION_INVALID"] * 20


def _py_webauthn_seams() -> tuple[object, object]:
    chain = importlib.import_module("webauthn.helpers.validate_certificate_chain")
    safetynet = importlib.import_module("webauthn.registration.formats.android_safetynet")
    return chain._generate_new_cert_store, safetynet.verify_safetynet_timestamp


def test_the_library_leaves_py_webauthn_alone() -> None:
    """Only an open ``webauthn_time`` block replaces py_webauthn's functions; the library
    never does, and the last block to close puts py_webauthn's own back."""
    cases = load_upstream_json(CASES_FILE)["cases"]
    apple = next(c for c in cases if c["name"] == "reg_apple/verify_attestation_apple_passkey")
    pristine = _py_webauthn_seams()
    assert pristine[0].__module__ == "webauthn.helpers.validate_certificate_chain"
    untimed = {k: v for k, v in apple["inputs"].items() if k != "verification_time"}
    with pytest.raises(ewc.PasskeyError):
        _register(untimed)
    assert _py_webauthn_seams() == pristine
    when = datetime(2021, 9, 1, tzinfo=timezone.utc)
    with testing.webauthn_time(when):
        assert _py_webauthn_seams() != pristine
        with testing.webauthn_time(None, check_safetynet_timestamp=False):
            assert _py_webauthn_seams() != pristine
        assert _py_webauthn_seams() != pristine
    assert _py_webauthn_seams() == pristine
    with pytest.raises(RuntimeError), testing.webauthn_time(when):
        raise RuntimeError("a failing block still restores")
    assert _py_webauthn_seams() == pristine


def test_verify_registration_takes_no_verification_time() -> None:
    """The time is test support, not an argument of the shipped ceremony."""
    parameters = inspect.signature(passkeys.verify_registration).parameters
    assert "verification_time" not in parameters
    assert "check_safetynet_timestamp" not in parameters
