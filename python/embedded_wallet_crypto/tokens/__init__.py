"""Tokens the infrastructure issues (formats.md section 14): the session JWT and the OTP
verification token, verified against their pinned signers, and minted for servers and the
sandbox.

- :func:`verify_session_jwt` / :func:`mint_session_jwt`: the session a login creates, signed by
  the notarizer key over a double SHA-256 (not standard ES256), ``exp`` in seconds.
- :func:`verify_verification_token` / :func:`mint_verification_token`: what an accepted OTP
  yields, standard ES256 by the TLS-fetcher key, ``exp`` in milliseconds as a string.

Every failure is a :class:`~embedded_wallet_crypto.errors.TokenError` whose ``code`` names the
check. The signatures are checked in the Rust core.
"""

from __future__ import annotations

from ..errors import TokenError
from ._common import MAX_TOKEN_LENGTH
from ._session import NOTARIZER_PUBLIC_KEY, SessionJwt, mint_session_jwt, verify_session_jwt
from ._verification import VerificationToken, mint_verification_token, verify_verification_token

__all__ = [
    "MAX_TOKEN_LENGTH",
    "NOTARIZER_PUBLIC_KEY",
    "SessionJwt",
    "TokenError",
    "VerificationToken",
    "mint_session_jwt",
    "mint_verification_token",
    "verify_session_jwt",
    "verify_verification_token",
]
