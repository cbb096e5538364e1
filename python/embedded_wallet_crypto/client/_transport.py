"""One try of a request and what follows it, shared by ``Client`` and ``AsyncClient`` (which
only differ in how they send and sleep): the answer read, the event emitted, the wait before
the next try decided, and the error raised when there is none."""

from __future__ import annotations

import time
from collections.abc import Mapping

import httpx

from ._errors import TRANSPORT, ApiError
from ._events import emit, event_for, redact
from ._retry import parse_retry_after
from ._wire import Call, ClientConfig, Reply, error_code, raise_for_error, read_reply

__all__ = ["after_answer", "after_transport_error", "client_options"]

#: Transport errors that another try cannot fix (the request itself is wrong).
_NOT_RETRIED = (httpx.UnsupportedProtocol, httpx.LocalProtocolError)


def client_options(config: ClientConfig) -> dict[str, object]:
    """The httpx client's options: the base URL, the timeout, no redirects."""
    return {
        "base_url": config.base_url,
        "timeout": httpx.Timeout(config.timeout),
        "follow_redirects": False,
    }


def after_answer(
    config: ClientConfig,
    call: Call,
    headers: Mapping[str, str],
    attempt: int,
    response: httpx.Response,
    started: float,
) -> tuple[Reply | None, float]:
    """The reply to hand back (None: try again after the returned wait).

    Raises:
        ApiError: an error answer that is not tried again.
    """
    reply = read_reply(response.status_code, response.headers, response.content)
    wait = config.retry.wait_after_answer(
        attempt, reply.status, reply.headers, error_code(reply), call.idempotency_key is not None
    )
    emit(
        config,
        event_for(
            call,
            headers,
            attempt=attempt,
            status=reply.status,
            elapsed=time.monotonic() - started,
            retry_in=wait,
        ),
    )
    if wait is not None:
        return None, wait
    return raise_for_error(call, reply, parse_retry_after(reply.headers.get("retry-after"))), 0.0


def after_transport_error(
    config: ClientConfig,
    call: Call,
    headers: Mapping[str, str],
    attempt: int,
    error: httpx.TransportError,
    started: float,
) -> float:
    """The wait before the next try after no answer came.

    Raises:
        ApiError: ``TRANSPORT`` (status 0) when no try is left, or the error is one that
            another try cannot fix. The transport error's message is kept, secrets redacted;
            the error itself is not chained (its URL may hold a secret path parameter).
    """
    wait = None
    if not isinstance(error, _NOT_RETRIED):
        wait = config.retry.wait_after_transport_error(attempt)
    emit(
        config,
        event_for(
            call,
            headers,
            attempt=attempt,
            status=None,
            elapsed=time.monotonic() - started,
            retry_in=wait,
            error=error,
        ),
    )
    if wait is None:
        detail = redact(f"{type(error).__name__}: {error}", call.secrets)
        raise ApiError(
            f"{call.operation.method} {redact(call.path, call.secrets)}: no answer after "
            f"{attempt} tr{'y' if attempt == 1 else 'ies'} ({detail})",
            TRANSPORT,
            0,
            operation=call.operation.qualified_name,
        )
    return wait
