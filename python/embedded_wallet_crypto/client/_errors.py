"""The client's errors: :class:`ClientError` for what the client refuses before or between
requests, and :class:`ApiError` for an error answer of the service (or no answer at all)."""

from __future__ import annotations

from typing import Any

from ..errors import WalletCryptoError

__all__ = ["REDACTED", "TRANSPORT", "ApiError", "ClientError", "redact"]

REDACTED = "[REDACTED]"

#: ``ApiError.code`` when no HTTP answer came, after every retry (``status`` is 0).
TRANSPORT = "TRANSPORT"


class ClientError(WalletCryptoError):
    """The client refused a call: a bad setting, a missing credential, a flow that cannot go
    on (an account without the credential a login needs, a challenge the client will not
    sign). Nothing, or nothing more, was sent."""

    default_code = "CLIENT_ERROR"
    default_status = 400


class ApiError(ClientError):
    """The service answered with an error (``{"status", "code", "reason"}``), or never
    answered (``code == "TRANSPORT"``, ``status == 0``) after the client's retries.

    Attributes:
        status: the HTTP status (0 when there was no answer).
        code: the error body's ``code`` (``HTTP_<status>`` for a body that is not the
            service's error JSON; ``TRANSPORT`` without an answer).
        reason: the error body's ``reason``.
        operation: the operation's name in the client (``quotes.execute``).
        retry_after: the seconds the service asked to wait (``Retry-After``), when it did.
        body: the parsed error body (a ``dict``), or None.

    A secret of the request that the error body carries back (its credentials, token, stamp,
    OTP code, a secret path parameter) reads ``[REDACTED]`` in ``reason`` and ``body``; a
    ``code`` with one is ``HTTP_<status>``.
    """

    default_code = "API_ERROR"

    def __init__(
        self,
        reason: str,
        code: str,
        status: int,
        *,
        operation: str = "",
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(reason, code, status)
        self.operation = operation
        self.retry_after = retry_after
        self.body = body

    def __repr__(self) -> str:
        return (
            f"ApiError(status={self.status}, code={self.code!r}, reason={self.reason!r}, "
            f"operation={self.operation!r})"
        )


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every secret value replaced (longest first)."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def _redact_json(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [_redact_json(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: _redact_json(item, secrets) for key, item in value.items()}
    return value


def error_from_body(
    status: int,
    body: Any,
    operation: str,
    retry_after: float | None,
    secrets: tuple[str, ...] = (),
) -> ApiError:
    """The :class:`ApiError` of an error answer: the service's ``code`` and ``reason`` when
    the body is its error JSON, ``HTTP_<status>`` otherwise. The request's ``secrets`` that
    the body carries back are redacted (a ``code`` with one is ``HTTP_<status>``)."""
    code = f"HTTP_{status}"
    reason = f"the service answered HTTP {status}"
    if 300 <= status < 400:
        reason += " (a redirect: the client follows none)"
    body = _redact_json(body, secrets)
    if isinstance(body, dict):
        if isinstance(body.get("code"), str) and body["code"] and REDACTED not in body["code"]:
            code = body["code"]
        if isinstance(body.get("reason"), str) and body["reason"]:
            reason = body["reason"]
    return ApiError(reason, code, status, operation=operation, retry_after=retry_after, body=body)
