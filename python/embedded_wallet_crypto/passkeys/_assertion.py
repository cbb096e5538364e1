"""``verify_assertion``: the authentication ceremony (WebAuthn Level 3, section 7.2).

The signature is over ``authenticatorData || SHA-256(clientDataJSON)`` with the COSE key stored
at registration. ES256 on P-256, what nearly every passkey uses, is verified by the native core
(strict DER, rust/core/src/p256.rs); any other algorithm by py_webauthn's ``verify_signature``.
tests/test_passkeys_differential.py keeps the two paths' verdicts identical to
``webauthn.verify_authentication_response``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from webauthn.helpers import (
    decode_credential_public_key,
    decoded_public_key_to_cryptography,
)
from webauthn.helpers import (
    verify_signature as webauthn_verify_signature,
)
from webauthn.helpers.exceptions import UnsupportedAlgorithm, UnsupportedPublicKey

from .. import _native
from .._contract import buffer_bytes
from ..errors import DecodeError, InvalidKey
from ..policy import Environment, sandbox_allowed
from ._checks import check_client_data, check_rp_and_user, parse_authenticator_data
from ._codec import b64url_decode
from ._cose import es256_point
from ._errors import (
    ALGORITHM_UNSUPPORTED,
    PUBLIC_KEY_INVALID,
    SIGN_COUNT_REGRESSION,
    SIGNATURE_INVALID,
    fail,
)
from ._forms import read_assertion

__all__ = ["SANDBOX_PASSKEY_SIGNATURE", "VerifiedAssertion", "verify_assertion"]

#: The interface's sandbox value of ``assertion.signature``, accepted only in sandbox.
SANDBOX_PASSKEY_SIGNATURE = "sandbox-valid-passkey-signature"
#: The interface's reason for a wrong signature (formats.md section 11).
_INVALID_SIGNATURE = "Invalid passkey signature"


@dataclass(frozen=True)
class VerifiedAssertion:
    """A verified assertion: store ``new_sign_count`` as the credential's counter."""

    credential_id: bytes
    new_sign_count: int
    user_verified: bool
    user_handle: bytes | None = None


def _verify_other_algorithm(cose_key: bytes, signed: bytes, signature: bytes) -> None:
    """Every non-ES256 key, exactly as ``verify_authentication_response`` verifies it."""
    try:
        decoded = decode_credential_public_key(cose_key)
        public_key = decoded_public_key_to_cryptography(decoded)
    except Exception:  # IndexError, KeyError, ValueError and py_webauthn's own types
        raise fail(PUBLIC_KEY_INVALID, "the stored credential public key is not usable") from None
    try:
        webauthn_verify_signature(
            public_key=public_key, signature_alg=decoded.alg, signature=signature, data=signed
        )
    except (UnsupportedAlgorithm, UnsupportedPublicKey):
        raise fail(ALGORITHM_UNSUPPORTED, "the stored key's algorithm is not supported") from None
    except Exception:  # InvalidSignature, or a signature cryptography cannot even parse
        raise fail(SIGNATURE_INVALID, _INVALID_SIGNATURE) from None


def _verify_signature(cose_key: bytes, signed: bytes, signature_text: str) -> None:
    try:
        signature = b64url_decode(signature_text, "signature", SIGNATURE_INVALID)
    except Exception:
        raise fail(SIGNATURE_INVALID, _INVALID_SIGNATURE) from None
    point = es256_point(cose_key)
    if point is None:
        _verify_other_algorithm(cose_key, signed, signature)
        return
    try:
        verified = _native.verify_signature(point, signed, signature)
    except DecodeError:  # not strict DER: as wrong as any other wrong signature
        verified = False
    except InvalidKey:
        raise fail(PUBLIC_KEY_INVALID, "the stored credential public key is not on P-256") from None
    if not verified:
        raise fail(SIGNATURE_INVALID, _INVALID_SIGNATURE)


def verify_assertion(
    assertion: object,
    *,
    credential_public_key: bytes,
    expected_challenge: bytes,
    rp_id: str,
    origin: str | Sequence[str],
    current_sign_count: int,
    require_user_verification: bool = True,
    sandbox: bool | Environment | None = None,
) -> VerifiedAssertion:
    """Verify a login assertion (``navigator.credentials.get()``).

    Args:
        assertion: the interface's ``{credentialId, clientDataJson, authenticatorData,
            signature, userHandle}`` or the standard WebAuthn JSON, as a dict or JSON text.
        credential_public_key: the COSE key stored at registration (``RegisteredPasskey``).
        expected_challenge: the raw challenge bytes; for a session challenge that is
            ``session_challenge(body).encode()`` (formats.md section 6).
        rp_id: the relying party ID; the rpIdHash must be its SHA-256.
        origin: the allowed origin, or a list of them.
        current_sign_count: the stored counter. When either counter is non-zero the new one
            must be greater (a cloned authenticator or a replay otherwise).
        require_user_verification: demand the UV flag (default True). UP is always required.
        sandbox: also accept the signature ``sandbox-valid-passkey-signature`` (see
            ``ewc.policy``; None means the process default, PRODUCTION unless set). Every other
            check still runs.

    Returns:
        The :class:`VerifiedAssertion`.

    Raises:
        PasskeyError: with a ``PASSKEY_*`` code naming the failed check; a wrong signature is
            always ``PASSKEY_SIGNATURE_INVALID`` with the reason "Invalid passkey signature".
    """
    if not isinstance(expected_challenge, (bytes, bytearray, memoryview)):
        raise TypeError("expected_challenge must be the raw challenge bytes")
    if not isinstance(credential_public_key, (bytes, bytearray, memoryview)):
        raise TypeError("credential_public_key must be the stored COSE key bytes")
    if type(current_sign_count) is not int or current_sign_count < 0:
        raise TypeError("current_sign_count must be a non-negative int")
    allow_sandbox_value = sandbox_allowed(sandbox)  # a bad ``sandbox`` fails on every call
    given = read_assertion(assertion)
    check_client_data(
        given.client_data_json,
        expected_type="webauthn.get",
        expected_challenge=buffer_bytes(expected_challenge, "expected_challenge"),
        origin=origin,
    )
    auth_data = parse_authenticator_data(given.authenticator_data)
    check_rp_and_user(auth_data, rp_id=rp_id, require_user_verification=require_user_verification)
    new_count = auth_data.sign_count
    if (new_count or current_sign_count) and new_count <= current_sign_count:
        raise fail(
            SIGN_COUNT_REGRESSION,
            f"sign count {new_count} is not greater than the stored {current_sign_count}",
        )
    if not (allow_sandbox_value and given.signature_text == SANDBOX_PASSKEY_SIGNATURE):
        signed = given.authenticator_data + hashlib.sha256(given.client_data_json).digest()
        cose_key = buffer_bytes(credential_public_key, "credential_public_key")
        _verify_signature(cose_key, signed, given.signature_text)
    return VerifiedAssertion(
        credential_id=given.credential_id,
        new_sign_count=new_count,
        user_verified=auth_data.user_verified,
        user_handle=given.user_handle,
    )
