"""passkey.json: WebAuthn registrations, assertions and session challenges (``ewc.passkeys``).

Made with ``passkeys.SoftwareAuthenticator`` over derived keys (RFC 9180 DeriveKeyPair) signing
with RFC 6979 (pyca/cryptography), so the file is the same on every run. What no honest
authenticator writes (another ceremony's type, tampered bytes, truncation, non-map CBOR) is
built or damaged here (``_passkey_writer``). Expected values come from the inputs chosen here:
the credential ids and keys, the COSE key encoded by cbor2, the session-creation body by
``json`` and its challenge by ``hashlib`` (formats.md section 6), never from the library.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

import cbor2

from ._common import Case, case, flip_bit, key, stream, vector_file
from ._passkey_writer import (
    AAGUID,
    Device,
    attestation_object,
    b64url,
    client_data,
    edit,
    high_s,
    standard_json,
    unb64url,
)

# The sandbox magic value (vectors/README.md), written out here rather than read from the
# library, so that a change of the library's constant fails the vectors.
SANDBOX_PASSKEY_SIGNATURE = "sandbox-valid-passkey-signature"

DESCRIPTION = (
    "Passkeys (WebAuthn, formats.md section 6): registrations with fmt none and packed "
    "self-attestation and assertions by a software ES256 authenticator, session challenges "
    "that bind the clientPublicKey and requestId, and every rejection with its PASSKEY_* code: "
    "wrong challenge, origin, rpId or type, UP not set, UV required but not set, sign-count "
    "regression, tampered signature and clientDataJSON, truncated authenticatorData, an "
    "attestationObject that is not a CBOR map, and the sandbox signature outside sandbox."
)
RP_ID, ORIGIN, EVIL = "wallet.example", "https://wallet.example", "https://evil.example"
REGISTRATION_CHALLENGE = stream("passkey registration challenge", 32)
LOGIN_CHALLENGE = stream("passkey login challenge", 32)
ERR = "PASSKEY_"
AAGUID_TEXT = str(uuid.UUID(bytes=AAGUID))


def _registered(device: Device, *, user_verified: bool = True) -> dict[str, Any]:
    return {
        "credential_id": device.credential_id.hex(),
        "public_key": device.cose_key.hex(),
        "sign_count": 0,
        "fmt": device.attestation,
        "aaguid": AAGUID_TEXT,
        "user_verified": user_verified,
    }


def registration_cases() -> list[Case]:
    none, packed = Device("none"), Device("packed", attestation="packed")

    def make(device: Device, *, user_verified: bool = True, user_present: bool = True) -> Any:
        return device.authenticator.register(
            rp_id=RP_ID,
            origin=ORIGIN,
            challenge=REGISTRATION_CHALLENGE,
            user_verified=user_verified,
            user_present=user_present,
        )

    def reg(case_id: str, attestation: Any, *, comment: str | None = None, **kw: Any) -> Case:
        inputs = {
            "attestation": attestation,
            "expected_challenge": REGISTRATION_CHALLENGE.hex(),
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "require_user_verification": True,
        }
        changes = {k: v for k, v in kw.items() if k in inputs}
        result = {k: v for k, v in kw.items() if k in ("expected", "error")}
        return case(case_id, "passkey_registration", {**inputs, **changes}, comment=comment,
                    **result)  # fmt: skip

    good, signed = make(none), make(packed)
    no_uv, no_up = make(none, user_verified=False), make(none, user_present=False)
    auth_data = cbor2.loads(unb64url(good["attestationObject"]))["authData"]
    statement = cbor2.loads(unb64url(signed["attestationObject"]))["attStmt"]
    bad_statement = {**statement, "sig": flip_bit(statement["sig"], -1)}
    cases = [
        reg("reg-none", good, expected=_registered(none)),
        reg("reg-packed-self-attestation", signed, expected=_registered(packed)),
        reg("reg-standard-json", standard_json(signed), expected=_registered(packed),
            comment="the same registration as PublicKeyCredential.toJSON() writes it"),
        reg("reg-origin-list", good, origin=["https://a.example", ORIGIN],
            expected=_registered(none)),
        reg("reg-uv-not-required", no_uv, require_user_verification=False,
            expected=_registered(none, user_verified=False)),
        reg("reg-wrong-challenge", good, expected_challenge="00" * 32,
            error=ERR + "CHALLENGE_MISMATCH"),
        reg("reg-wrong-origin", good, origin=EVIL, error=ERR + "ORIGIN_MISMATCH"),
        reg("reg-wrong-rp-id", good, rp_id="evil.example", error=ERR + "RP_ID_MISMATCH"),
        reg("reg-up-not-set", no_up, error=ERR + "USER_NOT_PRESENT"),
        reg("reg-uv-required-not-set", no_uv, error=ERR + "USER_NOT_VERIFIED"),
        reg("reg-wrong-type", client_data(good, type="webauthn.get"), error=ERR + "TYPE_MISMATCH"),
        reg("reg-tampered-client-data", client_data(signed, crossOrigin=True),
            comment="packed: the attestation signature covers SHA-256(clientDataJSON)",
            error=ERR + "ATTESTATION_INVALID"),
        reg("reg-tampered-attestation-signature", attestation_object(signed, attStmt=bad_statement),
            error=ERR + "ATTESTATION_INVALID"),
        reg("reg-truncated-authenticator-data", attestation_object(good, authData=auth_data[:-1]),
            error=ERR + "AUTHENTICATOR_DATA_MALFORMED"),
        reg("reg-credential-id-mismatch", {**good, "credentialId": b64url(b"another id")},
            error=ERR + "CREDENTIAL_ID_MISMATCH"),
        reg("reg-bad-base64url", {**good, "attestationObject": "o2Nm!"},
            error=ERR + "CREDENTIAL_MALFORMED"),
    ]  # fmt: skip
    for name, value in (("int", 1), ("array", ["fmt"]), ("text", "none"), ("bytes", b"\xa0")):
        not_a_map = {**good, "attestationObject": b64url(cbor2.dumps(value))}
        cases.append(reg(f"reg-attestation-object-{name}", not_a_map,
                         comment="a CBOR attestationObject that is not a map",
                         error=ERR + "ATTESTATION_MALFORMED"))  # fmt: skip
    return cases


def _hand_signed(device: Device, kind: str, count: int) -> dict[str, Any]:
    """An assertion whose clientDataJSON is of another ceremony, validly signed."""
    data = {"type": kind, "challenge": b64url(LOGIN_CHALLENGE), "origin": ORIGIN}
    client_data_json = json.dumps(data, separators=(",", ":")).encode()
    auth_data = hashlib.sha256(RP_ID.encode()).digest() + b"\x05" + count.to_bytes(4, "big")
    signature = device.key.sign(auth_data + hashlib.sha256(client_data_json).digest())
    return {
        "credentialId": b64url(device.credential_id),
        "clientDataJson": b64url(client_data_json),
        "authenticatorData": b64url(auth_data),
        "signature": b64url(signature),
        "userHandle": None,
    }


def assertion_cases() -> list[Case]:
    device, stranger = Device("login"), Device("stranger")

    def sign(**flags: Any) -> dict[str, Any]:
        return device.authenticator.authenticate(
            rp_id=RP_ID, origin=ORIGIN, challenge=LOGIN_CHALLENGE, **flags
        )

    def auth(case_id: str, assertion: Any, *, comment: str | None = None, **kw: Any) -> Case:
        inputs = {
            "assertion": assertion,
            "credential_public_key": device.cose_key.hex(),
            "expected_challenge": LOGIN_CHALLENGE.hex(),
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "current_sign_count": 0,
            "require_user_verification": True,
            "sandbox": False,
        }
        changes = {k: v for k, v in kw.items() if k in inputs}
        result = {k: v for k, v in kw.items() if k in ("expected", "error")}
        return case(case_id, "passkey_assertion", {**inputs, **changes}, comment=comment,
                    **result)  # fmt: skip

    def ok(count: int, *, user_verified: bool = True) -> dict[str, Any]:
        return {
            "credential_id": device.credential_id.hex(),
            "new_sign_count": count,
            "user_verified": user_verified,
        }

    first, second = sign(user_handle=b"user-1"), sign()  # sign counts 1 and 2
    no_uv, no_up = sign(user_verified=False), sign(user_present=False)  # 3 and 4
    device.authenticator.sign_count = -1
    counterless = sign()  # an authenticator without a counter always reports 0
    sandbox = {**second, "signature": SANDBOX_PASSKEY_SIGNATURE}
    ber = edit(first, "signature", lambda der: b"\x30\x81" + der[1:])
    truncated = edit(first, "authenticatorData", lambda data: data[:36])
    trailing = edit(first, "authenticatorData", lambda data: data + b"\0")
    return [
        auth("auth-valid", first, expected=ok(1)),
        auth("auth-valid-next-count", second, current_sign_count=1, expected=ok(2)),
        auth("auth-standard-json", standard_json(first), expected=ok(1)),
        auth("auth-high-s", high_s(first), expected=ok(1), comment="s > n/2 verifies too"),
        auth("auth-origin-list", first, origin=[EVIL, ORIGIN], expected=ok(1)),
        auth("auth-counter-zero-both", counterless, expected=ok(0),
             comment="both counts 0: no regression check (WebAuthn section 6.1.1)"),
        auth("auth-uv-not-required", no_uv, require_user_verification=False,
             expected=ok(3, user_verified=False)),
        auth("auth-wrong-challenge", first, expected_challenge="00" * 32,
             error=ERR + "CHALLENGE_MISMATCH"),
        auth("auth-wrong-origin", first, origin=EVIL, error=ERR + "ORIGIN_MISMATCH"),
        auth("auth-wrong-rp-id", first, rp_id="evil.example", error=ERR + "RP_ID_MISMATCH"),
        auth("auth-wrong-type", _hand_signed(device, "webauthn.create", 9),
             error=ERR + "TYPE_MISMATCH"),
        auth("auth-up-not-set", no_up, error=ERR + "USER_NOT_PRESENT"),
        auth("auth-uv-required-not-set", no_uv, error=ERR + "USER_NOT_VERIFIED"),
        auth("auth-sign-count-replayed", second, current_sign_count=2,
             error=ERR + "SIGN_COUNT_REGRESSION"),
        auth("auth-sign-count-regression", first, current_sign_count=2,
             error=ERR + "SIGN_COUNT_REGRESSION"),
        auth("auth-counter-zero-after-nonzero", counterless, current_sign_count=4,
             error=ERR + "SIGN_COUNT_REGRESSION"),
        auth("auth-tampered-signature", edit(first, "signature", lambda s: flip_bit(s, -1)),
             error=ERR + "SIGNATURE_INVALID"),
        auth("auth-tampered-client-data", client_data(first, crossOrigin=True),
             error=ERR + "SIGNATURE_INVALID"),
        auth("auth-signature-not-der", ber, error=ERR + "SIGNATURE_INVALID",
             comment="a BER length form: as wrong as any other wrong signature"),
        auth("auth-another-key", first, credential_public_key=stranger.cose_key.hex(),
             error=ERR + "SIGNATURE_INVALID"),
        auth("auth-truncated-authenticator-data", truncated,
             error=ERR + "AUTHENTICATOR_DATA_MALFORMED"),
        auth("auth-trailing-authenticator-data", trailing,
             error=ERR + "AUTHENTICATOR_DATA_MALFORMED"),
        auth("auth-sandbox-signature-in-production", sandbox, current_sign_count=1,
             error=ERR + "SIGNATURE_INVALID",
             comment="the sandbox value outside sandbox: the error of any wrong signature"),
        auth("auth-sandbox-signature-in-sandbox", sandbox, current_sign_count=1, sandbox=True,
             expected=ok(2), comment="sandbox: only the signature check is replaced"),
    ]  # fmt: skip


def session_cases() -> list[Case]:
    device = Device("session")
    client, other = key("passkey session client")[1].hex(), key("passkey other client")[1].hex()
    request_id = "Request:7a1cbd3e-9c65-4e0f-9b2b-0d3f5c1a2e48"

    def body(target: str, request: str = request_id) -> str:
        document = {
            "organizationId": "org-vectors",
            "parameters": {"requestId": request, "targetPublicKey": target, "userId": "acct-1"},
            "timestampMs": "1700000000000",
            "type": "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        }
        return json.dumps(document, separators=(",", ":"), sort_keys=True)

    challenge = hashlib.sha256(body(client).encode()).hexdigest()
    assertion = device.authenticator.authenticate(
        rp_id=RP_ID, origin=ORIGIN, challenge=challenge.encode()
    )
    issue_inputs = {
        "client_public_key": client.upper(),
        "request_id": request_id,
        "organization_id": "org-vectors",
        "account_id": "acct-1",
        "timestamp_ms": 1_700_000_000_000,
    }

    def login(case_id: str, session_body: str, request: str | None, **result: Any) -> Case:
        inputs = {
            "assertion": assertion,
            "session_creation_body": session_body,
            "request_id": request,
            "credential_public_key": device.cose_key.hex(),
            "rp_id": RP_ID,
            "origin": ORIGIN,
            "current_sign_count": 0,
        }
        return case(case_id, "passkey_session_login", inputs, **result)

    bound = {"client_public_key": client, "request_id": request_id, "new_sign_count": 1}
    return [
        case("session-challenge", "passkey_session_challenge", issue_inputs,
             comment="the key is sent in upper case; the body carries it in lower case",
             expected={"body": body(client), "challenge": challenge,
                       "response": {"challenge": b64url(challenge.encode()),
                                    "requestId": request_id}}),
        case("session-challenge-invalid-key", "passkey_session_challenge",
             {**issue_inputs, "client_public_key": "04" + "00" * 64}, error="INVALID_POINT"),
        login("session-login", body(client), request_id, expected=bound),
        login("session-login-other-request-id", body(client), "Request:another",
              error=ERR + "REQUEST_ID_MISMATCH"),
        login("session-login-body-binds-another-key", body(other), request_id,
              error=ERR + "CHALLENGE_MISMATCH"),
        login("session-login-not-a-session-body", "{}", request_id,
              error=ERR + "SESSION_BODY_INVALID"),
    ]  # fmt: skip


def build() -> dict[str, Any]:
    return vector_file(DESCRIPTION, registration_cases() + assertion_cases() + session_cases())
