"""ewc.passkeys: the software authenticator end to end, every check's code, and the sandbox."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import cbor2
import embedded_wallet_crypto as ewc
import pytest
from _webauthn_helpers import b64url, standard_form, unb64url
from embedded_wallet_crypto import passkeys

RP_ID = "wallet.example"
ORIGIN = "https://wallet.example"
CHALLENGE = b"registration-challenge-0123456789"


def code_of(call: Callable[[], object]) -> str:
    with pytest.raises(ewc.PasskeyError) as raised:
        call()
    return raised.value.code


def register(authenticator: passkeys.SoftwareAuthenticator, **options: Any) -> dict[str, Any]:
    return authenticator.register(rp_id=RP_ID, origin=ORIGIN, challenge=CHALLENGE, **options)


def verify_registration(attestation: object, **options: Any) -> passkeys.RegisteredPasskey:
    arguments: dict[str, Any] = {
        "expected_challenge": CHALLENGE,
        "rp_id": RP_ID,
        "origin": ORIGIN,
    }
    return passkeys.verify_registration(attestation, **{**arguments, **options})


@pytest.fixture
def credential() -> tuple[passkeys.SoftwareAuthenticator, passkeys.RegisteredPasskey]:
    authenticator = passkeys.SoftwareAuthenticator(attestation="packed")
    return authenticator, verify_registration(register(authenticator))


def login(
    credential: tuple[passkeys.SoftwareAuthenticator, passkeys.RegisteredPasskey],
    mutate: Callable[[dict[str, Any]], None] | None = None,
    **options: Any,
) -> passkeys.VerifiedAssertion:
    authenticator, registered = credential
    assertion = authenticator.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=b"login-challenge")
    if mutate is not None:
        mutate(assertion)
    arguments: dict[str, Any] = {
        "credential_public_key": registered.public_key,
        "expected_challenge": b"login-challenge",
        "rp_id": RP_ID,
        "origin": ORIGIN,
        "current_sign_count": registered.sign_count,
    }
    return passkeys.verify_assertion(assertion, **{**arguments, **options})


def replace(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        obj[field] = value

    return mutate


UNSUPPORTED_BINDING = {"status": "not-supported"}
OTHER_KEY = passkeys.SoftwareAuthenticator().public_key


def edit_client_data(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        data = json.loads(unb64url(obj["clientDataJson"]))
        data[field] = value
        obj["clientDataJson"] = b64url(json.dumps(data).encode())

    return mutate


# --- registration ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["none", "packed"])
def test_registration_round_trip_in_both_forms(fmt: str) -> None:
    authenticator = passkeys.SoftwareAuthenticator(attestation=fmt, aaguid=bytes(range(16)))
    attestation = register(authenticator)
    for given in (attestation, standard_form(attestation), json.dumps(attestation)):
        registered = verify_registration(given)
        assert registered.fmt == fmt
        assert registered.credential_id == authenticator.credential_id
        assert registered.public_key == authenticator.public_key
        assert registered.sign_count == 0
        assert registered.aaguid == "00010203-0405-0607-0809-0a0b0c0d0e0f"
        assert registered.transports == ("internal",)
        assert registered.user_verified


def _reencode(attestation: dict[str, Any], **changes: Any) -> dict[str, Any]:
    obj = cbor2.loads(unb64url(attestation["attestationObject"]))
    obj.update(changes)
    return {**attestation, "attestationObject": b64url(cbor2.dumps(obj))}


def _packed_with_bad_signature(attestation: dict[str, Any]) -> dict[str, Any]:
    obj = cbor2.loads(unb64url(attestation["attestationObject"]))
    signature = bytearray(obj["attStmt"]["sig"])
    signature[-1] ^= 1
    return _reencode(attestation, attStmt={"alg": -7, "sig": bytes(signature)})


@pytest.mark.parametrize(
    ("change", "options", "code"),
    [
        (None, {"expected_challenge": b"another challenge"}, "CHALLENGE_MISMATCH"),
        (None, {"origin": "https://evil.example"}, "ORIGIN_MISMATCH"),
        (None, {"origin": ["https://a.example", "https://b.example"]}, "ORIGIN_MISMATCH"),
        (None, {"rp_id": "evil.example"}, "RP_ID_MISMATCH"),
        (None, {"supported_algorithms": [-8, -257]}, "ALGORITHM_UNSUPPORTED"),
        (_packed_with_bad_signature, {}, "ATTESTATION_INVALID"),
        (lambda a: _reencode(a, fmt="made-up"), {}, "ATTESTATION_FORMAT_UNSUPPORTED"),
        (lambda a: _reencode(a, fmt=7), {}, "ATTESTATION_MALFORMED"),
        (replace("attestationObject", b64url(cbor2.dumps([1]))), {}, "ATTESTATION_MALFORMED"),
        (replace("credentialId", b64url(b"other")), {}, "CREDENTIAL_ID_MISMATCH"),
        (replace("clientDataJson", "e30"), {}, "CLIENT_DATA_MALFORMED"),
        (replace("attestationObject", "not base64url!"), {}, "CREDENTIAL_MALFORMED"),
        (edit_client_data("type", "webauthn.get"), {}, "TYPE_MISMATCH"),
        (edit_client_data("tokenBinding", UNSUPPORTED_BINDING), {}, "TOKEN_BINDING_INVALID"),
    ],
)  # fmt: skip
def test_registration_rejections(change: Any, options: dict[str, Any], code: str) -> None:
    attestation = register(passkeys.SoftwareAuthenticator(attestation="packed"))
    if change is not None:
        changed = change(attestation)
        attestation = attestation if changed is None else changed
    assert code_of(lambda: verify_registration(attestation, **options)) == f"PASSKEY_{code}"


def test_registration_user_presence_and_verification() -> None:
    authenticator = passkeys.SoftwareAuthenticator()
    unverified = register(authenticator, user_verified=False)
    assert code_of(lambda: verify_registration(unverified)) == "PASSKEY_USER_NOT_VERIFIED"
    assert not verify_registration(unverified, require_user_verification=False).user_verified
    absent = register(authenticator, user_present=False)
    assert code_of(lambda: verify_registration(absent)) == "PASSKEY_USER_NOT_PRESENT"


def test_registration_truncated_authenticator_data() -> None:
    attestation = register(passkeys.SoftwareAuthenticator())
    auth_data = cbor2.loads(unb64url(attestation["attestationObject"]))["authData"]
    for length in (0, 36, 37, 54, len(auth_data) - 1):
        truncated = _reencode(attestation, authData=auth_data[:length])
        assert code_of(lambda t=truncated: verify_registration(t)) == (
            "PASSKEY_AUTHENTICATOR_DATA_MALFORMED"
        ), length


# --- assertion -------------------------------------------------------------------------------


def test_assertions_count_up_and_verify(credential: Any) -> None:
    counts = [login(credential).new_sign_count for _ in range(3)]
    assert counts == [1, 2, 3]
    verified = login(credential, lambda a: a.update(userHandle=b64url(b"user-1")))
    assert verified.user_verified and verified.user_handle == b"user-1"
    assert verified.credential_id == credential[0].credential_id


def edit_auth_data(change: Callable[[str], str]) -> Callable[[dict[str, Any]], None]:
    def mutate(obj: dict[str, Any]) -> None:
        obj["authenticatorData"] = change(obj["authenticatorData"])

    return mutate


def _flip_signature(obj: dict[str, Any]) -> None:
    signature = bytearray(unb64url(obj["signature"]))
    signature[-1] ^= 1
    obj["signature"] = b64url(bytes(signature))


def _tamper_client_data(obj: dict[str, Any]) -> None:
    obj["clientDataJson"] = b64url(unb64url(obj["clientDataJson"]).replace(b"}", b',"x":1}'))


@pytest.mark.parametrize(
    ("mutate", "options", "code"),
    [
        (None, {"expected_challenge": b"other"}, "CHALLENGE_MISMATCH"),
        (None, {"origin": "https://evil.example"}, "ORIGIN_MISMATCH"),
        (None, {"rp_id": "evil.example"}, "RP_ID_MISMATCH"),
        (None, {"current_sign_count": 1}, "SIGN_COUNT_REGRESSION"),
        (None, {"current_sign_count": 5}, "SIGN_COUNT_REGRESSION"),
        (None, {"credential_public_key": OTHER_KEY}, "SIGNATURE_INVALID"),
        (_flip_signature, {}, "SIGNATURE_INVALID"),
        (_tamper_client_data, {}, "SIGNATURE_INVALID"),
        (replace("signature", "MEQCIA"), {}, "SIGNATURE_INVALID"),
        (replace("signature", "@@"), {}, "SIGNATURE_INVALID"),
        (edit_auth_data(lambda d: d[:40]), {}, "AUTHENTICATOR_DATA_MALFORMED"),
        (edit_auth_data(lambda d: d + "AA"), {}, "AUTHENTICATOR_DATA_MALFORMED"),
        (replace("clientDataJson", "%%%"), {}, "CREDENTIAL_MALFORMED"),
        (lambda a: a.pop("credentialId"), {}, "CREDENTIAL_MALFORMED"),
        (edit_client_data("type", "webauthn.create"), {}, "TYPE_MISMATCH"),
        (edit_client_data("challenge", "not base64url!"), {}, "CLIENT_DATA_MALFORMED"),
        (edit_client_data("origin", None), {}, "CLIENT_DATA_MALFORMED"),
        (None, {"credential_public_key": b"\xa1\x01\x02"}, "PUBLIC_KEY_INVALID"),
    ],
)  # fmt: skip
def test_assertion_rejections(credential: Any, mutate: Any, options: Any, code: str) -> None:
    assert code_of(lambda: login(credential, mutate, **options)) == f"PASSKEY_{code}"


def test_assertion_user_presence_and_verification(credential: Any) -> None:
    authenticator, registered = credential

    def attempt(require_uv: bool, **flags: bool) -> passkeys.VerifiedAssertion:
        assertion = authenticator.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=b"c", **flags)
        return passkeys.verify_assertion(
            assertion,
            credential_public_key=registered.public_key,
            expected_challenge=b"c",
            rp_id=RP_ID,
            origin=[ORIGIN],
            current_sign_count=0,
            require_user_verification=require_uv,
        )

    assert code_of(lambda: attempt(True, user_verified=False)) == "PASSKEY_USER_NOT_VERIFIED"
    assert not attempt(False, user_verified=False).user_verified
    assert code_of(lambda: attempt(False, user_present=False)) == "PASSKEY_USER_NOT_PRESENT"


def test_sign_count_zero_on_both_sides_is_allowed(credential: Any) -> None:
    """Authenticators without a counter always report 0 (WebAuthn section 6.1.1)."""
    _, registered = credential
    authenticator = credential[0]
    authenticator.sign_count = -1  # the next assertion reports 0
    assert login(credential, current_sign_count=0).new_sign_count == 0
    assert registered.sign_count == 0


# --- the sandbox value -----------------------------------------------------------------------


def _sandbox_signature(obj: dict[str, Any]) -> None:
    obj["signature"] = passkeys.SANDBOX_PASSKEY_SIGNATURE


def test_sandbox_value_only_in_sandbox(credential: Any) -> None:
    wrong = code_of(lambda: login(credential, _flip_signature))
    for production in (None, False, ewc.Environment.PRODUCTION):
        with pytest.raises(ewc.PasskeyError) as raised:
            login(credential, _sandbox_signature, sandbox=production)
        assert (raised.value.code, raised.value.reason) == (wrong, "Invalid passkey signature")
        assert raised.value.status == 401
    assert login(credential, _sandbox_signature, sandbox=True).new_sign_count > 0
    assert login(credential, _sandbox_signature, sandbox=ewc.Environment.SANDBOX).user_verified
    # Only the signature is replaced: the challenge must still be the bound one.
    code = code_of(
        lambda: login(credential, _sandbox_signature, sandbox=True, expected_challenge=b"x")
    )
    assert code == "PASSKEY_CHALLENGE_MISMATCH"


def test_sandbox_process_default_and_bad_values(credential: Any) -> None:
    ewc.set_default_environment(ewc.Environment.SANDBOX)
    try:
        assert login(credential, _sandbox_signature).new_sign_count > 0
        assert code_of(lambda: login(credential, _sandbox_signature, sandbox=False)) == (
            "PASSKEY_SIGNATURE_INVALID"
        )
    finally:
        ewc.set_default_environment(ewc.Environment.PRODUCTION)
    with pytest.raises(TypeError):
        login(credential, sandbox="true")


# --- session challenges ----------------------------------------------------------------------


def test_session_challenge_is_hex_sha256_of_the_body() -> None:
    body = '{"organizationId":"o","parameters":{},"timestampMs":"1","type":"T"}'
    expected = hashlib.sha256(body.encode()).hexdigest()
    assert passkeys.session_challenge(body) == expected
    assert passkeys.session_challenge(body.encode()) == expected
    assert passkeys.session_challenge(bytearray(body.encode())) == expected


def test_issued_session_challenge_binds_key_request_and_account() -> None:
    client = ewc.KeyPair.generate()
    issued = passkeys.issue_session_challenge(
        client_public_key=client.public_key_hex().upper(),
        organization_id="org-1",
        account_id="InternalAccount:1",
        request_id="Request:fixed",
        timestamp_ms=1_700_000_000_000,
    )
    body = json.loads(issued.body)
    assert body == {
        "organizationId": "org-1",
        "parameters": {
            "requestId": "Request:fixed",
            "targetPublicKey": client.public_key_hex(),
            "userId": "InternalAccount:1",
        },
        "timestampMs": "1700000000000",
        "type": "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
    }
    assert issued.body == json.dumps(body, separators=(",", ":"), sort_keys=True)
    assert issued.challenge == passkeys.session_challenge(issued.body)
    response = issued.to_response()
    assert response["requestId"] == "Request:fixed"
    assert unb64url(response["challenge"]) == issued.challenge.encode() == issued.expected_challenge
    assert len(issued.expected_challenge) == 64
    fresh = passkeys.issue_session_challenge(
        client_public_key=client.public_key_bytes(), organization_id="o", account_id="a"
    )
    assert fresh.request_id.startswith("Request:") and fresh.request_id != "Request:fixed"
    with pytest.raises(ewc.InvalidKey):
        passkeys.issue_session_challenge(
            client_public_key="04" + "00" * 64, organization_id="o", account_id="a"
        )


def test_session_login_is_bound_to_its_body(credential: Any) -> None:
    authenticator, registered = credential
    client, other = ewc.KeyPair.generate(), ewc.KeyPair.generate()
    issued, other_issued = (
        passkeys.issue_session_challenge(
            client_public_key=key.public_key_hex(), organization_id="o", account_id="a"
        )
        for key in (client, other)
    )
    assertion = authenticator.authenticate(
        rp_id=RP_ID, origin=ORIGIN, challenge=issued.expected_challenge
    )

    def verify(body: str, request_id: str | None) -> passkeys.VerifiedSession:
        return passkeys.verify_session_assertion(
            assertion,
            session_creation_body=body,
            request_id=request_id,
            credential_public_key=registered.public_key,
            rp_id=RP_ID,
            origin=ORIGIN,
            current_sign_count=0,
        )

    assert code_of(lambda: verify(issued.body, other_issued.request_id)) == (
        "PASSKEY_REQUEST_ID_MISMATCH"
    )
    assert code_of(lambda: verify(issued.body, None)) == "PASSKEY_REQUEST_ID_MISMATCH"
    assert code_of(lambda: verify(other_issued.body, other_issued.request_id)) == (
        "PASSKEY_CHALLENGE_MISMATCH"
    )
    assert code_of(lambda: verify("[]", issued.request_id)) == "PASSKEY_SESSION_BODY_INVALID"
    swapped = issued.body.replace(client.public_key_hex(), other.public_key_hex())
    assert code_of(lambda: verify(swapped, issued.request_id)) == "PASSKEY_CHALLENGE_MISMATCH"
    session = verify(issued.body, issued.request_id)
    assert session.client_public_key == client.public_key_hex()
    assert (session.account_id, session.organization_id) == ("a", "o")
    assert session.assertion.new_sign_count == 1


def test_every_code_has_a_status() -> None:
    assert all(code.startswith("PASSKEY_") for code in passkeys.CODES)
    assert set(passkeys.CODES.values()) == {400, 401, 500}
    assert [c for c, s in passkeys.CODES.items() if s == 500] == ["PASSKEY_CONFIG_INVALID"]


class _OffCurveKey:
    """A signer whose public key is a real key's x with y + 1: not a P-256 point."""

    def __init__(self) -> None:
        real = ewc.KeyPair.generate().public_key_bytes()
        p = 2**256 - 2**224 + 2**192 + 2**96 - 1
        y = (int.from_bytes(real[33:], "big") + 1) % p
        self._point = real[:33] + y.to_bytes(32, "big")

    def sign(self, message: bytes, /) -> bytes:
        raise AssertionError("a fmt none registration signs nothing")

    def public_key_bytes(self, compressed: bool = False) -> bytes:
        return self._point


def test_registration_rejects_an_off_curve_es256_key() -> None:
    """Caught at registration, not at the first login: the ES256 fast path's key is checked."""
    attestation = register(passkeys.SoftwareAuthenticator(_OffCurveKey(), attestation="none"))
    assert code_of(lambda: verify_registration(attestation)) == "PASSKEY_PUBLIC_KEY_INVALID"
