"""Email OTP: the encrypted-OTP envelopes (formats.md section 9) and server-side one-time codes.

Three parts under one name:

- ``_encrypted``: the client/server HPKE envelopes. The server hands out an
  ``otpEncryptionTargetBundle`` (:func:`seal_target_bundle`); the client verifies it against the
  pinned signer and seals the code to it (:func:`encrypt_otp_code`); the server opens the
  ``encryptedOtpBundle`` (:func:`decrypt_otp_bundle`). The checks live in
  rust/core/src/envelope.rs.
- ``_login``: the OTP login with its second leg, :class:`OtpLogin`: open the encrypted OTP
  bundle, check the code, answer with a signed-retry challenge over a verification token bound
  to the client's target key, and accept only that key's stamp; the key becomes the session
  key.
- ``_codes``: the plain flow's rate-limited code service, :class:`OneTimeCodes`, with its
  stores (:class:`MemoryStore`, :class:`SqliteStore`, :class:`RedisStore`,
  :class:`PostgresStore`): the classes of ``ewc.stores``, so one store object serves these
  codes and the signed-retry challenges.
"""

from __future__ import annotations

from ..stores import CodeStore as OtpStore
from ..stores import MemoryStore, PostgresStore, RedisStore, SqliteStore
from ._codes import SANDBOX_CODE, IssuedCode, OneTimeCodes, OtpRateLimited, VerifiedCode
from ._encrypted import (
    TLS_FETCHER_SIGNER_PUBLIC_KEY,
    OtpSubmission,
    decrypt_otp_bundle,
    encrypt_otp_code,
    seal_target_bundle,
)
from ._login import OtpLogin, OtpLoginChallenge, OtpLoginSession

__all__ = [
    "SANDBOX_CODE",
    "TLS_FETCHER_SIGNER_PUBLIC_KEY",
    "IssuedCode",
    "MemoryStore",
    "OneTimeCodes",
    "OtpLogin",
    "OtpLoginChallenge",
    "OtpLoginSession",
    "OtpRateLimited",
    "OtpStore",
    "OtpSubmission",
    "PostgresStore",
    "RedisStore",
    "SqliteStore",
    "VerifiedCode",
    "decrypt_otp_bundle",
    "encrypt_otp_code",
    "seal_target_bundle",
]
