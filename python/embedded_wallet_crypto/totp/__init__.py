"""TOTP second factors (``ewc.totp``): RFC 6238 codes from an authenticator app, accepted once,
and the factor's recovery codes.

- :class:`TotpSecret`: the shared secret (random bytes; ``base32`` for the app, ``hex`` for
  the raw value), parsed strictly back from either.
- :func:`provisioning_uri` and :meth:`Totp.provisioning_uri`: the ``otpauth://totp/`` URI an
  app scans.
- :class:`Totp`: enrollment material (:meth:`Totp.enroll`) and verification
  (:meth:`Totp.verify`) on ``cryptography``'s RFC 6238 ``TOTP``, within a window of time steps,
  at the caller's ``now``; each code is accepted once per factor through the store
  (``TOTP_REPLAYED`` afterwards, and for any code of an earlier step).
- :class:`RecoveryCodes`: codes shown once, stored as keyed hashes, each usable once.

State lives in the stores of ``ewc.stores`` (:class:`FactorStore`): the same objects that serve
the signed-retry challenges and the one-time codes. Errors are
:class:`~embedded_wallet_crypto.errors.TotpError` with a stable ``code``; no message contains a
code or a secret.
"""

from __future__ import annotations

from ..errors import TotpError
from ..stores import FactorStore, MemoryStore, PostgresStore, RedisStore, SqliteStore
from ._recovery import RECOVERY_CODE_ALPHABET, RecoveryCodes, UsedRecoveryCode
from ._secret import (
    ALGORITHMS,
    MAX_PERIOD,
    MAX_SECRET_BYTES,
    MIN_SECRET_BYTES,
    Algorithm,
    TotpSecret,
    provisioning_uri,
)
from ._verify import MAX_TIME, MAX_WINDOW, SANDBOX_TOTP_CODE, Totp, TotpEnrollment, VerifiedTotp

__all__ = [
    "ALGORITHMS",
    "MAX_PERIOD",
    "MAX_SECRET_BYTES",
    "MAX_TIME",
    "MAX_WINDOW",
    "MIN_SECRET_BYTES",
    "RECOVERY_CODE_ALPHABET",
    "SANDBOX_TOTP_CODE",
    "Algorithm",
    "FactorStore",
    "MemoryStore",
    "PostgresStore",
    "RecoveryCodes",
    "RedisStore",
    "SqliteStore",
    "Totp",
    "TotpEnrollment",
    "TotpError",
    "TotpSecret",
    "UsedRecoveryCode",
    "VerifiedTotp",
    "provisioning_uri",
]
