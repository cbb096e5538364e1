"""The two JSON forms a WebAuthn response arrives in, read into bytes.

- The interface's objects (service interface, ``POST /auth/credentials`` and ``/verify``):
  attestation ``{credentialId, clientDataJson, attestationObject, transports}``, assertion
  ``{credentialId, clientDataJson, authenticatorData, signature, userHandle}``.
- The standard WebAuthn JSON (``PublicKeyCredential.toJSON()``, what py_webauthn takes):
  ``{id, rawId, type: "public-key", response: {clientDataJSON, ...}}``.

Either may be given as a dict or as its JSON text. Binary values are base64url (formats.md
section 6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ._codec import MAX_FIELD_CHARS, b64url_decode, json_object
from ._errors import CREDENTIAL_MALFORMED, SIGNATURE_INVALID, fail

__all__ = ["AssertionInput", "AttestationInput", "read_assertion", "read_attestation"]

_MAX_TRANSPORTS = 16


class AttestationInput(NamedTuple):
    credential_id: bytes
    client_data_json: bytes
    attestation_object: bytes
    transports: tuple[str, ...]


class AssertionInput(NamedTuple):
    credential_id: bytes
    client_data_json: bytes
    authenticator_data: bytes
    signature_text: str  # kept as sent: the sandbox value is compared as text
    user_handle: bytes | None


def _object(value: object, what: str) -> Mapping[str, Any]:
    if type(value) is dict:  # the common case, before the slower ABC check
        return value
    if isinstance(value, (str, bytes)):
        return json_object(value, what, CREDENTIAL_MALFORMED)
    if not isinstance(value, Mapping):
        raise fail(CREDENTIAL_MALFORMED, f"{what} must be a JSON object")
    return value


def _field(obj: Mapping[str, Any], name: str, what: str) -> bytes:
    return b64url_decode(obj.get(name), f"{what}.{name}", CREDENTIAL_MALFORMED)


def _credential_id(obj: Mapping[str, Any], what: str) -> bytes:
    """``credentialId`` (interface) or ``id`` and ``rawId``, which must agree (standard)."""
    if "credentialId" in obj and "response" not in obj:
        return _field(obj, "credentialId", what)
    credential_id = _field(obj, "id", what)
    if "rawId" in obj and _field(obj, "rawId", what) != credential_id:
        raise fail(CREDENTIAL_MALFORMED, f"{what}.id and {what}.rawId differ")
    if obj.get("type") != "public-key":
        raise fail(CREDENTIAL_MALFORMED, f'{what}.type must be "public-key"')
    return credential_id


def _response(obj: Mapping[str, Any], what: str) -> tuple[Mapping[str, Any], str, str]:
    """The object holding the response fields, its name, and how clientDataJSON is spelled."""
    if "response" not in obj:
        return obj, what, "clientDataJson"
    response = obj["response"]
    if not isinstance(response, Mapping):
        raise fail(CREDENTIAL_MALFORMED, f"{what}.response must be an object")
    return response, f"{what}.response", "clientDataJSON"


def _transports(value: object, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if (
        not isinstance(value, list)
        or len(value) > _MAX_TRANSPORTS
        or not all(isinstance(item, str) and 0 < len(item) <= 64 for item in value)
    ):
        raise fail(CREDENTIAL_MALFORMED, f"{what} must be an array of short strings")
    return tuple(value)


def read_attestation(attestation: object) -> AttestationInput:
    """The attestation's bytes, from either form."""
    obj = _object(attestation, "attestation")
    credential_id = _credential_id(obj, "attestation")
    response, where, client_data_name = _response(obj, "attestation")
    return AttestationInput(
        credential_id=credential_id,
        client_data_json=_field(response, client_data_name, where),
        attestation_object=_field(response, "attestationObject", where),
        transports=_transports(response.get("transports"), f"{where}.transports"),
    )


def read_assertion(assertion: object) -> AssertionInput:
    """The assertion's bytes, from either form; the signature stays text (see ``verify``)."""
    obj = _object(assertion, "assertion")
    credential_id = _credential_id(obj, "assertion")
    response, where, client_data_name = _response(obj, "assertion")
    signature = response.get("signature")
    if not isinstance(signature, str):
        raise fail(CREDENTIAL_MALFORMED, f"{where}.signature must be a string")
    if len(signature) > MAX_FIELD_CHARS:
        raise fail(SIGNATURE_INVALID, "Invalid passkey signature")
    user_handle = response.get("userHandle")
    return AssertionInput(
        credential_id=credential_id,
        client_data_json=_field(response, client_data_name, where),
        authenticator_data=_field(response, "authenticatorData", where),
        signature_text=signature,
        user_handle=None if user_handle in (None, "") else _field(response, "userHandle", where),
    )
