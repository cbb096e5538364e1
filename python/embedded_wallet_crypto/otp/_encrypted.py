"""The encrypted-OTP envelopes (formats.md section 9), rust/core/src/envelope.rs.

The server hands out an ``otpEncryptionTargetBundle``, a signed envelope (the section 8 form)
whose data is ``{"targetPublic", "organizationId", "userId"}``; the client checks it against the
pinned signer (by default the TLS-fetcher key), then HPKE-seals ``{"otp_code", "public_key"}``
to ``targetPublic`` and sends ``{"encappedPublic", "ciphertext"}``, JSON encoded once; the server
opens it with the target key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import _native
from .._types import BytesLike, KeyLike
from ..errors import OtpError
from ..keys import KeyPair
from ..policy import Environment, sandbox_allowed

__all__ = [
    "TLS_FETCHER_SIGNER_PUBLIC_KEY",
    "OtpSubmission",
    "decrypt_otp_bundle",
    "encrypt_otp_code",
    "seal_target_bundle",
]

#: The signer of real ``otpEncryptionTargetBundle``s, the TLS-fetcher key (formats.md section 9).
TLS_FETCHER_SIGNER_PUBLIC_KEY = (
    "046b4f88421f76b6ba418afc2ea1d8ced671337d7db6b80478a60d8531bf8f17fa9a512f0fef96fc0c9b4cd9df"
    "f70b34992e520ce04c79d931f6ff6296b547d201"
)

_OTP_CODE = re.compile(r"[0-9A-Za-z]{1,64}")


@dataclass(frozen=True)
class OtpSubmission:
    """What the client sealed: the code it typed and the public key to bind (lowercase hex)."""

    otp_code: str = field(repr=False)
    public_key: str


def seal_target_bundle(
    target_public_key: KeyLike,
    *,
    organization_id: str,
    user_id: str,
    signer: KeyPair | None = None,
) -> str:
    """Server: the ``otpEncryptionTargetBundle`` for ``target_public_key``.

    ``signer=None`` writes the sandbox form (empty signature fields), which clients accept only
    with their sandbox opt-in. Non-ASCII ids are written as raw UTF-8.

    Raises:
        InvalidKey: the target key is malformed.
        EnvelopeError: ``ENVELOPE_PARAMETERS_INVALID`` for an empty organization or user id.
    """
    return _native.seal_target_bundle(target_public_key, organization_id, user_id, signer)


def _encrypt(
    target_bundle: str | BytesLike,
    otp_code: str,
    client_public_key: KeyLike,
    *,
    signer_public_key: KeyLike,
    sandbox: bool | Environment | None,
    organization_id: str | None,
    user_id: str | None,
    ephemeral_key: KeyPair | None = None,
) -> str:
    """The client seal; ``ephemeral_key`` only through ``embedded_wallet_crypto.testing``."""
    if not isinstance(otp_code, str) or _OTP_CODE.fullmatch(otp_code) is None:
        raise OtpError("the OTP code must be 1 to 64 ASCII letters or digits", "OTP_MALFORMED", 400)
    allowed = sandbox_allowed(sandbox)  # a misconfigured `sandbox` fails every call
    return _native.encrypt_otp_code(
        target_bundle,
        otp_code,
        client_public_key,
        signer_public_key,
        allowed,
        organization_id,
        user_id,
        ephemeral_key,
    )


def encrypt_otp_code(
    target_bundle: str | BytesLike,
    otp_code: str,
    client_public_key: KeyLike,
    *,
    signer_public_key: KeyLike = TLS_FETCHER_SIGNER_PUBLIC_KEY,
    sandbox: bool | Environment | None = None,
    organization_id: str | None = None,
    user_id: str | None = None,
) -> str:
    """Client: verify the target bundle, then seal the code and ``client_public_key`` to it.

    Args:
        target_bundle: the ``otpEncryptionTargetBundle`` JSON text.
        otp_code: the code the user typed (ASCII letters and digits).
        client_public_key: the key the verification binds (SEC1 hex or bytes); written as
            lowercase hex in the form given.
        signer_public_key: the pinned signer (default: the TLS-fetcher key).
        sandbox: allow an unsigned (sandbox) target bundle; a signed one is always verified.
        organization_id: when given, the bundle's signed ``organizationId`` must equal it.
        user_id: when given, the bundle's signed ``userId`` must equal it.

    Returns:
        The ``encryptedOtpBundle``: JSON ``{"encappedPublic", "ciphertext"}`` (encoded once).

    Raises:
        EnvelopeError: as :func:`ewc.open_export_bundle` for the target bundle, plus
            ``ENVELOPE_USER_MISMATCH`` and ``ENVELOPE_TARGET_KEY_INVALID``.
        OtpError: ``OTP_MALFORMED`` for an empty or non-alphanumeric code.
        InvalidKey: ``client_public_key`` or ``signer_public_key`` is malformed.
    """
    return _encrypt(
        target_bundle,
        otp_code,
        client_public_key,
        signer_public_key=signer_public_key,
        sandbox=sandbox,
        organization_id=organization_id,
        user_id=user_id,
    )


def decrypt_otp_bundle(
    encrypted_otp_bundle: str | BytesLike, target_key: KeyPair | BytesLike
) -> OtpSubmission:
    """Server: open an ``encryptedOtpBundle`` with the target private key.

    Raises:
        EnvelopeError: ``ENVELOPE_MALFORMED`` (not a JSON object with hex ``encappedPublic`` and
            ``ciphertext``: a bundle JSON-encoded twice included) or ``ENVELOPE_DATA_MALFORMED``
            (the plaintext is not ``{"otp_code", "public_key"}`` with a valid public key).
        DecryptionError: it was not sealed to this target key, or was altered.
    """
    otp_code, public_key = _native.decrypt_otp_bundle(encrypted_otp_bundle, target_key)
    return OtpSubmission(otp_code=otp_code, public_key=public_key)
