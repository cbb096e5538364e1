"""Test and vector support only: never use anything here in production or on real traffic.

No verification in the library uses this package, and importing it changes nothing.

- Deterministic seals (``seal_export_bundle_deterministic_for_tests``,
  ``encrypt_otp_code_deterministic_for_tests``, and the import seals
  ``encrypt_wallet_to_bundle_deterministic_for_tests`` and
  ``encrypt_private_key_to_bundle_deterministic_for_tests``): the export, OTP and import seals
  with a caller-chosen HPKE ephemeral key, so that known-answer vectors come out the same on
  every run. Reusing an ephemeral key destroys HPKE's confidentiality; the real seals always
  draw a fresh one. The one deterministic seal of the public API is
  ``ewc.hpke.seal_deterministic_for_tests``.
- ``setup_sender_deterministic_for_tests``: ``ewc.hpke.setup_sender`` (SetupBaseS) with a
  caller-chosen ephemeral key, for RFC 9180's known-answer tests.
- ``webauthn_time``: a context manager that verifies recorded WebAuthn attestation samples, whose
  certificates have since expired, at the time they were made (it loads py_webauthn's internals
  on first use only).

The primitive seams of the core (ECDH, AES-GCM, HKDF, SHA-256) are in
``embedded_wallet_crypto._native.test_support``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._seals import (
    encrypt_otp_code_deterministic_for_tests,
    encrypt_private_key_to_bundle_deterministic_for_tests,
    encrypt_wallet_to_bundle_deterministic_for_tests,
    seal_export_bundle_deterministic_for_tests,
    setup_sender_deterministic_for_tests,
)

if TYPE_CHECKING:
    from ._webauthn_time import webauthn_time

__all__ = [
    "encrypt_otp_code_deterministic_for_tests",
    "encrypt_private_key_to_bundle_deterministic_for_tests",
    "encrypt_wallet_to_bundle_deterministic_for_tests",
    "seal_export_bundle_deterministic_for_tests",
    "setup_sender_deterministic_for_tests",
    "webauthn_time",
]


def __getattr__(name: str) -> Any:
    if name == "webauthn_time":
        from ._webauthn_time import webauthn_time

        return webauthn_time
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
