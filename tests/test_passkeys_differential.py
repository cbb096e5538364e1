"""Differential: ``passkeys.verify_assertion`` (ES256 through the native core) against
``webauthn.verify_authentication_response`` on random and damaged assertions.

Both must accept exactly the same assertions and, when they accept, report the same credential
id, new sign count and UV flag. Inputs are built signed over arbitrary flags, counts, origins and
challenges, then optionally damaged at the byte level (authenticatorData, clientDataJSON, the
DER signature), re-signed with high-S, or checked against another key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

import embedded_wallet_crypto as ewc
from _webauthn_helpers import P256_N, DeterministicKey, b64url, mutated, standard_form, unb64url
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from embedded_wallet_crypto import passkeys
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from webauthn import verify_authentication_response

RP_IDS = ["localhost", "wallet.example"]
ORIGINS = ["http://localhost", "https://wallet.example"]
KEYS = [DeterministicKey(bytes([i])) for i in range(3)]
COSE_KEYS = [passkeys.SoftwareAuthenticator(key).public_key for key in KEYS]


@dataclass(frozen=True)
class Case:
    assertion: dict[str, Any]
    public_key: bytes
    challenge: bytes
    rp_id: str
    origin: str | list[str]
    current_sign_count: int
    require_user_verification: bool


def _high_s(signature: bytes) -> bytes:
    r, s = decode_dss_signature(signature)
    return encode_dss_signature(r, P256_N - s)


# One deviation from a valid assertion per example (or none), so both verdicts are common.
DEVIATIONS = [
    *["none"] * 6,
    *("challenge", "rp_id", "origin", "type", "flags", "count", "token-binding", "uv-required"),
    *("auth", "auth", "client", "client", "sig", "sig", "high-s", "key", "cross-origin"),
]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    deviation = draw(st.sampled_from(DEVIATIONS))
    event(f"deviation={deviation}")
    key_index = draw(st.integers(0, len(KEYS) - 1))
    challenge = draw(st.binary(min_size=16, max_size=64))
    rp_id, origin = draw(st.sampled_from(RP_IDS)), draw(st.sampled_from(ORIGINS))
    flags = 0x05 if deviation != "flags" else draw(st.sampled_from([0, 1, 4, 0x1D, 0x45, 0x85]))
    if deviation == "uv-required":
        flags = 0x01
    count, current = draw(st.sampled_from([(0, 0), (1, 0), (78, 77), (2**32 - 1, 2**32 - 2)]))
    if deviation == "count":
        count, current = draw(st.sampled_from([(0, 1), (5, 5), (4, 5), (0, 2**32 - 1)]))
    client_data: dict[str, Any] = {
        "type": "webauthn.create" if deviation == "type" else "webauthn.get",
        "challenge": b64url(challenge),
        "origin": origin,
        "crossOrigin": deviation == "cross-origin",
    }
    if deviation == "token-binding":
        client_data["tokenBinding"] = draw(
            st.sampled_from([{"status": "present"}, {"status": "not-supported"}, {}, "x"])
        )
    client_data_json = json.dumps(client_data, separators=(",", ":")).encode()
    auth_data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + count.to_bytes(4, "big")
    signature = KEYS[key_index].sign(auth_data + hashlib.sha256(client_data_json).digest())
    if deviation == "auth":
        auth_data = draw(mutated(auth_data))
    elif deviation == "client":
        client_data_json = draw(mutated(client_data_json))
    elif deviation == "sig":
        signature = draw(mutated(signature))
    elif deviation == "high-s":
        signature = _high_s(signature)
    user_handle = draw(st.one_of(st.none(), st.binary(min_size=1, max_size=16)))
    return Case(
        assertion={
            "credentialId": b64url(hashlib.sha256(bytes([key_index])).digest()),
            "clientDataJson": b64url(client_data_json),
            "authenticatorData": b64url(auth_data),
            "signature": b64url(signature),
            "userHandle": None if user_handle is None else b64url(user_handle),
        },
        public_key=COSE_KEYS[(key_index + (deviation == "key")) % len(KEYS)],
        challenge=challenge + b"!" if deviation == "challenge" else challenge,
        rp_id=RP_IDS[RP_IDS.index(rp_id) - 1] if deviation == "rp_id" else rp_id,
        origin=(
            [o for o in ORIGINS if o != origin]
            if deviation == "origin"
            else draw(st.sampled_from([origin, [origin], ORIGINS]))
        ),
        current_sign_count=current,
        require_user_verification=deviation == "uv-required" or draw(st.booleans()),
    )


def ours(case: Case) -> tuple[bytes, int, bool] | None:
    try:
        verified = passkeys.verify_assertion(
            case.assertion,
            credential_public_key=case.public_key,
            expected_challenge=case.challenge,
            rp_id=case.rp_id,
            origin=case.origin,
            current_sign_count=case.current_sign_count,
            require_user_verification=case.require_user_verification,
        )
    except ewc.PasskeyError:
        return None
    return verified.credential_id, verified.new_sign_count, verified.user_verified


def theirs(case: Case) -> tuple[bytes, int, bool] | None:
    try:
        verified = verify_authentication_response(
            credential=standard_form(case.assertion),
            expected_challenge=case.challenge,
            expected_rp_id=case.rp_id,
            expected_origin=case.origin,
            credential_public_key=case.public_key,
            credential_current_sign_count=case.current_sign_count,
            require_user_verification=case.require_user_verification,
        )
    except Exception:  # py_webauthn raises its own types and, on some inputs, builtins
        return None
    return verified.credential_id, verified.new_sign_count, verified.user_verified


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_same_verdict_as_py_webauthn(case: Case) -> None:
    mine, peer = ours(case), theirs(case)
    event("accepted" if peer is not None else "rejected")
    assert mine == peer


def test_known_verdicts_on_both_sides() -> None:
    """Anchors for the random test: a fresh assertion, its high-S twin and a DER signature
    with a trailing byte, on both verifiers."""
    authenticator = passkeys.SoftwareAuthenticator(KEYS[0])
    assertion = authenticator.authenticate(
        rp_id="localhost", origin=ORIGINS[0], challenge=b"c" * 16
    )
    case = Case(assertion, COSE_KEYS[0], b"c" * 16, "localhost", ORIGINS[0], 0, True)
    assert ours(case) == theirs(case) == (authenticator.credential_id, 1, True)
    signature = unb64url(assertion["signature"])
    high_s = replace(case, assertion={**assertion, "signature": b64url(_high_s(signature))})
    assert ours(high_s) == theirs(high_s) == (authenticator.credential_id, 1, True)
    trailing = replace(case, assertion={**assertion, "signature": b64url(signature + b"\0")})
    assert ours(trailing) is None and theirs(trailing) is None
