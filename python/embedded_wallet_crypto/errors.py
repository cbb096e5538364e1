"""The library's exceptions: one family per area, each with a stable ``code``.

Every error a caller can see is a :class:`WalletCryptoError`. ``str(err)`` is the human reason;
``err.code`` is a stable upper-case identifier safe to switch on; ``err.status`` is the HTTP status
a server should answer with. Messages never contain secret material.
"""

from __future__ import annotations

__all__ = [
    "DecodeError",
    "DecryptionError",
    "EnvelopeError",
    "InvalidKey",
    "OidcError",
    "OtpError",
    "PasskeyError",
    "ProofError",
    "SignedRetryError",
    "SignedUrlError",
    "StampError",
    "TokenError",
    "TotpError",
    "WalletCryptoError",
    "WebhookError",
]


class WalletCryptoError(Exception):
    """Base of every error the library raises on bad input or a failed check."""

    default_code = "WALLET_CRYPTO_ERROR"
    default_status = 400

    def __init__(self, reason: str, code: str | None = None, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code or self.default_code
        self.status = status if status is not None else self.default_status

    def __str__(self) -> str:
        return self.reason

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, reason={self.reason!r})"


class InvalidKey(WalletCryptoError):
    """A key is malformed: bad length or prefix, off the curve, the identity, or out of range."""

    default_code = "INVALID_KEY"


class DecodeError(WalletCryptoError):
    """An encoding is malformed: hex, base58, a checksum, DER, JSON or a length."""

    default_code = "DECODE_ERROR"


class DecryptionError(WalletCryptoError):
    """A ciphertext did not authenticate. The reason is deliberately generic."""

    default_code = "DECRYPTION_FAILED"


class StampError(WalletCryptoError):
    """A ``Service-Wallet-Signature`` stamp is missing, malformed or invalid."""

    default_code = "WALLET_SIGNATURE_INVALID"
    default_status = 401


class EnvelopeError(WalletCryptoError):
    """An export or OTP envelope failed a check (version, signer, signature, organization)."""

    default_code = "ENVELOPE_INVALID"


class PasskeyError(WalletCryptoError):
    """A WebAuthn registration or assertion failed a check."""

    default_code = "PASSKEY_INVALID"
    default_status = 401


class OidcError(WalletCryptoError):
    """An OIDC ID token failed a check. ``code`` says which; a server answers every one with
    ``status`` 401 and the interface's reason ``http_reason`` (formats.md section 11)."""

    default_code = "OIDC_TOKEN_INVALID"
    default_status = 401
    #: The ``reason`` of the interface's 401 body, the same for every code.
    http_reason = "Invalid OIDC token"


class OtpError(WalletCryptoError):
    """A one-time code failed, or too many attempts or re-issues were made."""

    default_code = "OTP_INVALID"
    default_status = 401


class SignedRetryError(WalletCryptoError):
    """A signed retry (requestId plus stamp) failed a rule of the two-step protocol."""

    default_code = "SIGNED_RETRY_INVALID"
    default_status = 401


class TokenError(WalletCryptoError):
    """A session JWT or an OTP verification token failed a check (formats.md section 14).
    ``code`` says which (``TOKEN_MALFORMED``, ``TOKEN_SIGNATURE_INVALID``, ``TOKEN_EXPIRED``...)."""

    default_code = "TOKEN_INVALID"
    default_status = 401


class ProofError(WalletCryptoError):
    """An app proof or a boot proof failed a check (formats.md section 16). ``code`` says which
    (``PROOF_MALFORMED``, ``PROOF_SIGNATURE_INVALID``, ``BOOT_PROOF_CHAIN_INVALID``...)."""

    default_code = "PROOF_INVALID"


class WebhookError(WalletCryptoError):
    """A webhook of the key infrastructure (formats.md section 17) failed a check: a header
    missing, repeated or malformed, an unknown key id, a timestamp outside the replay window, or
    a signature that does not verify. ``code`` says which; a bad verifier configuration is
    ``TURNKEY_WEBHOOK_CONFIG_INVALID`` with status 500."""

    default_code = "TURNKEY_WEBHOOK_INVALID"
    default_status = 401


class TotpError(WalletCryptoError):
    """A TOTP code or a recovery code of a second factor failed (``ewc.totp``). ``code`` says
    which (``TOTP_INVALID``, ``TOTP_REPLAYED``, ``TOTP_SECRET_INVALID``,
    ``RECOVERY_CODE_INVALID``...); a bad verifier configuration is ``TOTP_CONFIG_INVALID`` with
    status 500."""

    default_code = "TOTP_INVALID"
    default_status = 401


class SignedUrlError(WalletCryptoError):
    """A signed short-lived URL (``ewc.signed_urls``) is malformed, unsigned, signed with
    another key, tampered with or expired. ``code`` says which; the reason never repeats the
    URL, which is a bearer secret."""

    default_code = "URL_SIGNATURE_INVALID"
    default_status = 401
