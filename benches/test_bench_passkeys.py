"""Passkey benchmarks (issue 5): ``passkeys.verify_assertion`` (ES256 through the native core)
against py_webauthn 3.0.1's ``verify_authentication_response`` on the same assertion.

The assertion comes from the software authenticator over a fixed key; both sides check the same
things (type, challenge, origin, rpIdHash, UP, UV, sign count, the signature with the stored
COSE key) and are given what they take: ours the interface's object (what ``/verify`` receives),
py_webauthn the standard WebAuthn JSON of the same bytes (also timed for ours, informational).
``current_sign_count`` is 0 so that the same assertion verifies on every round. Like the other
benchmark files, every benchmark checks what it timed, and ``benches/report.py`` pairs rows by
(group, impl).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from embedded_wallet_crypto import passkeys
from webauthn import verify_authentication_response
from webauthn.helpers.exceptions import InvalidAuthenticationResponse

pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

GROUP = "passkey-verify-assertion-es256"
RP_ID, ORIGIN = "wallet.example", "https://wallet.example"
KEY = ewc.hpke.derive_key_pair(b"passkey bench credential key".ljust(32, b"."))
AUTHENTICATOR = passkeys.SoftwareAuthenticator(KEY, credential_id=bytes(range(32)))
ISSUED = passkeys.issue_session_challenge(
    client_public_key=ewc.hpke.derive_key_pair(
        b"passkey bench client".ljust(32, b".")
    ).public_key_hex(),
    organization_id="org-bench",
    account_id="acct-bench",
    request_id="Request:00000000-0000-4000-8000-000000000000",
    timestamp_ms=1_700_000_000_000,
)
CHALLENGE = ISSUED.expected_challenge
ASSERTION = AUTHENTICATOR.authenticate(
    rp_id=RP_ID, origin=ORIGIN, challenge=CHALLENGE, user_handle=b"user-1"
)
STANDARD_JSON = {
    "id": ASSERTION["credentialId"],
    "rawId": ASSERTION["credentialId"],
    "type": "public-key",
    "response": {
        "clientDataJSON": ASSERTION["clientDataJson"],
        "authenticatorData": ASSERTION["authenticatorData"],
        "signature": ASSERTION["signature"],
        "userHandle": ASSERTION["userHandle"],
    },
}
# One bit of the DER signature's last byte (the low byte of s) flipped: always another, invalid
# signature (writing "AAAA" over the last characters left it unchanged when they already were).
_DER = bytearray(base64.urlsafe_b64decode(ASSERTION["signature"] + "=="))
_DER[-1] ^= 1
WRONG_SIGNATURE = {
    **ASSERTION,
    "signature": base64.urlsafe_b64encode(bytes(_DER)).rstrip(b"=").decode(),
}


def ours(assertion: Any = ASSERTION) -> int:
    verified = passkeys.verify_assertion(
        assertion,
        credential_public_key=AUTHENTICATOR.public_key,
        expected_challenge=CHALLENGE,
        rp_id=RP_ID,
        origin=ORIGIN,
        current_sign_count=0,
    )
    return verified.new_sign_count


def py_webauthn(credential: Any = STANDARD_JSON) -> int:
    verified = verify_authentication_response(
        credential=credential,
        expected_challenge=CHALLENGE,
        expected_rp_id=RP_ID,
        expected_origin=ORIGIN,
        credential_public_key=AUTHENTICATOR.public_key,
        credential_current_sign_count=0,
        require_user_verification=True,
    )
    return verified.new_sign_count


def _run(benchmark: Any, impl: str, fn: Callable[[], int]) -> int:
    benchmark.group = GROUP
    benchmark.extra_info["impl"] = impl
    result: int = benchmark(fn)
    return result


def test_verify_assertion_ours(benchmark: Any) -> None:
    assert _run(benchmark, "ours", ours) == 1
    with pytest.raises(ewc.PasskeyError):
        ours(WRONG_SIGNATURE)


def test_verify_assertion_ours_standard_json(benchmark: Any) -> None:
    assert _run(benchmark, "ours-standard-json", lambda: ours(STANDARD_JSON)) == 1


def test_verify_authentication_response_py_webauthn(benchmark: Any) -> None:
    assert _run(benchmark, "py_webauthn", py_webauthn) == 1
    wrong = {**STANDARD_JSON, "response": {**STANDARD_JSON["response"], "signature": "AAAA"}}
    with pytest.raises(InvalidAuthenticationResponse):
        py_webauthn(wrong)
