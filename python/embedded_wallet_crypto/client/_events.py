"""What the client tells about each try of a request: a :class:`RequestEvent` for the
caller's ``event_hook``, and a line on the logger ``embedded_wallet_crypto.client``.

Neither ever carries a secret: the credentials, stamps and signatures in headers are replaced
by ``[REDACTED]``, secret path parameters (a device code) too, and no body is ever logged
(session keys, OTP codes, encrypted bundles and exported wallets travel in bodies).
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ._errors import REDACTED, redact
from ._wire import Call, ClientConfig

__all__ = ["REDACTED", "REDACTED_HEADERS", "RequestEvent", "emit", "redact", "request_secrets"]

logger = logging.getLogger("embedded_wallet_crypto.client")

#: Header names (lower case) whose values are secrets.
REDACTED_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "service-wallet-signature",
        "grid-wallet-signature",
        "x-grid-signature",
    }
)


#: Request-body fields (JSON) whose values are secrets.
SECRET_FIELDS = frozenset({"otp", "encryptedOtpBundle", "oidcToken"})
#: Secrets shorter than this are not searched for in what a service sends back.
MIN_SECRET = 6


def _body_secrets(content: bytes | None) -> list[str]:
    try:
        body = json.loads(content or b"null")
    except (ValueError, RecursionError):
        return []
    if not isinstance(body, dict):
        return []
    return [value for key, value in body.items() if key in SECRET_FIELDS and isinstance(value, str)]


def request_secrets(call: Call, headers: Mapping[str, str]) -> tuple[str, ...]:
    """The secrets a request carries, to keep out of what the client reports about its answer
    (a service may echo them back): its secret path parameters, the values of its secret
    headers (with the credential alone, and a Basic one decoded), and its body's secret
    fields (an OTP code, an OIDC token)."""
    found = [*call.secrets, *_body_secrets(call.content)]
    for name, value in headers.items():
        if name.lower() not in REDACTED_HEADERS:
            continue
        scheme, _, credential = value.partition(" ")
        found += [value, credential]
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(credential, validate=True).decode("utf-8")
            except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
                pair = ""
            found += [pair, pair.partition(":")[2]]
    return tuple(secret for secret in dict.fromkeys(found) if len(secret) >= MIN_SECRET)


@dataclass(frozen=True)
class RequestEvent:
    """One try of one request, after it ended (an answer, or none).

    Attributes:
        operation: the operation's name in the client (``quotes.execute``).
        method: the HTTP method.
        path: the path under the base URL, secret parameters redacted.
        attempt: 1 for the first try.
        status: the answer's status; None when none came.
        elapsed: seconds the try took.
        request_headers: what was sent, secret values redacted.
        retry_in: the seconds before the next try, or None when this was the last.
        error: the transport error's type and message, when no answer came.
    """

    operation: str
    method: str
    path: str
    attempt: int
    status: int | None
    elapsed: float
    request_headers: Mapping[str, str] = field(default_factory=dict)
    retry_in: float | None = None
    error: str | None = None


def event_for(
    call: Call,
    headers: Mapping[str, str],
    *,
    attempt: int,
    status: int | None,
    elapsed: float,
    retry_in: float | None,
    error: BaseException | None = None,
) -> RequestEvent:
    shown = {
        name: REDACTED if name.lower() in REDACTED_HEADERS else redact(value, call.secrets)
        for name, value in headers.items()
    }
    message = None
    if error is not None:
        message = redact(f"{type(error).__name__}: {error}", call.secrets)
    return RequestEvent(
        operation=call.operation.qualified_name,
        method=call.operation.method,
        path=redact(call.path, call.secrets),
        attempt=attempt,
        status=status,
        elapsed=elapsed,
        request_headers=MappingProxyType(shown),
        retry_in=retry_in,
        error=message,
    )


def emit(config: ClientConfig, event: RequestEvent) -> None:
    """Log the event and hand it to the client's ``event_hook``."""
    outcome = str(event.status) if event.status is not None else f"no answer ({event.error})"
    if event.retry_in is not None:
        logger.warning(
            "%s %s -> %s (try %d); trying again in %.2f s",
            event.method,
            event.path,
            outcome,
            event.attempt,
            event.retry_in,
        )
    else:
        logger.debug(
            "%s %s -> %s (try %d, %.3f s)",
            event.method,
            event.path,
            outcome,
            event.attempt,
            event.elapsed,
        )
    if config.event_hook is not None:
        config.event_hook(event)
