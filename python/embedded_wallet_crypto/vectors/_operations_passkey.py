"""The passkey operations of the vector files (vectors/README.md), run through the public
Python API: ``passkey_registration``, ``passkey_assertion``, ``passkey_session_challenge`` and
``passkey_session_login``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc

from ._inputs import Inputs, MalformedCase, Mismatch, input_bool, input_bytes, input_text

# vectors/README.md, "Error codes": every PASSKEY_* code comes with PasskeyError.
PASSKEY_EXCEPTIONS: dict[str, type[ewc.WalletCryptoError]] = dict.fromkeys(
    ewc.passkeys.CODES, ewc.PasskeyError
)


def _integer(inputs: Inputs, name: str) -> int:
    value = inputs.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedCase(f"input {name!r} must be an integer")
    return value


def _origin(inputs: Inputs) -> str | list[str]:
    value = inputs.get("origin")
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise MalformedCase("input 'origin' must be a string or an array of strings")


def _response(inputs: Inputs, name: str) -> Any:
    if name not in inputs:
        raise MalformedCase(f"input {name!r} is missing")
    return inputs[name]  # as sent: whatever it is, the library must answer with PasskeyError


def _passkey_registration(inputs: Inputs) -> dict[str, Any]:
    registered = ewc.passkeys.verify_registration(
        _response(inputs, "attestation"),
        expected_challenge=input_bytes(inputs, "expected_challenge"),
        rp_id=input_text(inputs, "rp_id"),
        origin=_origin(inputs),
        require_user_verification=input_bool(inputs, "require_user_verification"),
    )
    return {
        "credential_id": registered.credential_id.hex(),
        "public_key": registered.public_key.hex(),
        "sign_count": registered.sign_count,
        "fmt": registered.fmt,
        "aaguid": registered.aaguid,
        "user_verified": registered.user_verified,
    }


def _assertion_result(verified: ewc.passkeys.VerifiedAssertion) -> dict[str, Any]:
    return {
        "credential_id": verified.credential_id.hex(),
        "new_sign_count": verified.new_sign_count,
        "user_verified": verified.user_verified,
    }


def _passkey_assertion(inputs: Inputs) -> dict[str, Any]:
    verified = ewc.passkeys.verify_assertion(
        _response(inputs, "assertion"),
        credential_public_key=input_bytes(inputs, "credential_public_key"),
        expected_challenge=input_bytes(inputs, "expected_challenge"),
        rp_id=input_text(inputs, "rp_id"),
        origin=_origin(inputs),
        current_sign_count=_integer(inputs, "current_sign_count"),
        require_user_verification=input_bool(inputs, "require_user_verification"),
        sandbox=input_bool(inputs, "sandbox"),
    )
    return _assertion_result(verified)


def _passkey_session_challenge(inputs: Inputs) -> dict[str, Any]:
    issued = ewc.passkeys.issue_session_challenge(
        client_public_key=input_text(inputs, "client_public_key"),
        organization_id=input_text(inputs, "organization_id"),
        account_id=input_text(inputs, "account_id"),
        request_id=input_text(inputs, "request_id"),
        timestamp_ms=_integer(inputs, "timestamp_ms"),
    )
    if ewc.passkeys.session_challenge(issued.body) != issued.challenge:
        raise Mismatch("session_challenge(body) differs from the issued challenge")
    return {"body": issued.body, "challenge": issued.challenge, "response": issued.to_response()}


def _passkey_session_login(inputs: Inputs) -> dict[str, Any]:
    request_id = inputs.get("request_id")
    if request_id is not None and not isinstance(request_id, str):
        raise MalformedCase("input 'request_id' must be a string or null")
    session = ewc.passkeys.verify_session_assertion(
        _response(inputs, "assertion"),
        session_creation_body=input_text(inputs, "session_creation_body"),
        request_id=request_id,
        credential_public_key=input_bytes(inputs, "credential_public_key"),
        rp_id=input_text(inputs, "rp_id"),
        origin=_origin(inputs),
        current_sign_count=_integer(inputs, "current_sign_count"),
    )
    return {
        "client_public_key": session.client_public_key,
        "request_id": session.request_id,
        "new_sign_count": session.assertion.new_sign_count,
    }


PASSKEY_OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "passkey_registration": _passkey_registration,
    "passkey_assertion": _passkey_assertion,
    "passkey_session_challenge": _passkey_session_challenge,
    "passkey_session_login": _passkey_session_login,
}
