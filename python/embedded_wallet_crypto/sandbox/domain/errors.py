"""The one error type of the service: a :class:`Refusal` carries the HTTP status, a stable
``code``, a one-sentence ``reason`` and optional headers (``Retry-After``,
``WWW-Authenticate``). Every rule raises it; the single handler in ``sandbox.errors`` answers it
as ``{"status", "code", "reason"}``. The library's own exceptions become one with
:func:`library_refusal` (401s as the interface's ``UNAUTHORIZED``, with its reasons).

No web framework here: the rules raise it, the web layer answers it.
"""

from __future__ import annotations

from typing import Any

from ...errors import OidcError, OtpError, PasskeyError, StampError, WalletCryptoError

__all__ = [
    "INVALID_OIDC",
    "INVALID_OTP",
    "INVALID_PASSKEY",
    "INVALID_SIGNATURE",
    "Refusal",
    "error_body",
    "invalid",
    "library_refusal",
    "not_found",
]

#: The interface's 401 reasons, per failed check (its Errors table).
INVALID_OTP = "Invalid OTP code"
INVALID_PASSKEY = "Invalid passkey signature"
INVALID_OIDC = "Invalid OIDC token"
INVALID_SIGNATURE = "Invalid Service-Wallet-Signature"


def error_body(status: int, code: str, reason: str) -> dict[str, Any]:
    """Every error body of the service."""
    return {"status": status, "code": code, "reason": reason}


class Refusal(Exception):
    """A request the service refuses: HTTP ``status``, a stable ``code`` (UPPER_CASE), a
    one-sentence ``reason``, and optional extra ``headers``."""

    def __init__(
        self, status: int, code: str, reason: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.code = code
        self.reason = reason
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.code, self.reason)


def invalid(reason: str, code: str = "INVALID_INPUT") -> Refusal:
    """400: the request breaks a rule (``INVALID_INPUT`` unless a more precise code)."""
    return Refusal(400, code, reason)


def not_found(reason: str, code: str = "NOT_FOUND") -> Refusal:
    """404: no such resource."""
    return Refusal(404, code, reason)


def library_refusal(error: WalletCryptoError) -> Refusal:
    """The answer to a library exception: its status; 401s as ``UNAUTHORIZED`` with the
    interface's reason for the failed check."""
    status = error.status if 400 <= error.status < 600 else 400
    headers: dict[str, str] = {}
    retry_after = getattr(error, "retry_after", None)
    if isinstance(retry_after, int):
        headers["Retry-After"] = str(retry_after)
    if status != 401:
        return Refusal(status, error.code, error.reason, headers)
    reason = error.reason
    if isinstance(error, OidcError):
        reason = INVALID_OIDC
    elif isinstance(error, OtpError) and error.code == "OTP_INVALID":
        reason = INVALID_OTP
    elif isinstance(error, PasskeyError) and error.code == "PASSKEY_SIGNATURE_INVALID":
        reason = INVALID_PASSKEY
    elif isinstance(error, StampError) and error.code != "WALLET_SIGNATURE_MISSING":
        reason = INVALID_SIGNATURE
    return Refusal(401, "UNAUTHORIZED", reason, headers)
