"""Passkeys (``ewc.passkeys``): WebAuthn registration and login checks for the server.

- :func:`verify_registration` checks a new credential's attestation (every format and
  algorithm py_webauthn supports) and returns the :class:`RegisteredPasskey` to store.
- :func:`verify_assertion` checks a login; ES256 signatures run in the native core.
- :func:`session_challenge` is the challenge of a session-creation body (formats.md section 6);
  :func:`issue_session_challenge` and :func:`verify_session_assertion` are the server's two
  ends of a passkey login whose challenge binds the client's session key.
- :class:`SoftwareAuthenticator` is a real ES256 authenticator in software.

Every failure is a :class:`~embedded_wallet_crypto.errors.PasskeyError` whose ``code`` names
the check (``CODES`` lists them with their HTTP status).
"""

from __future__ import annotations

from ._assertion import SANDBOX_PASSKEY_SIGNATURE, VerifiedAssertion, verify_assertion
from ._authenticator import Signer, SoftwareAuthenticator
from ._errors import CODES
from ._registration import SUPPORTED_ALGORITHMS, RegisteredPasskey, verify_registration
from ._session import (
    SESSION_ACTIVITY_TYPE,
    SessionChallenge,
    VerifiedSession,
    issue_session_challenge,
    session_challenge,
    session_creation_body,
    verify_session_assertion,
)

__all__ = [
    "CODES",
    "SANDBOX_PASSKEY_SIGNATURE",
    "SESSION_ACTIVITY_TYPE",
    "SUPPORTED_ALGORITHMS",
    "RegisteredPasskey",
    "SessionChallenge",
    "Signer",
    "SoftwareAuthenticator",
    "VerifiedAssertion",
    "VerifiedSession",
    "issue_session_challenge",
    "session_challenge",
    "session_creation_body",
    "verify_assertion",
    "verify_registration",
    "verify_session_assertion",
]
