"""One try of a request and what follows it, shared by ``Client`` and ``AsyncClient`` (which
only differ in how they send and sleep): the answer read, the event emitted, the wait before
the next try decided, and the error raised when there is none."""

from __future__ import annotations

import time
from collections.abc import Mapping

import httpx

from ._errors import TRANSPORT, ApiError, ClientError
from ._events import emit, event_for, redact, request_secrets
from ._retry import parse_retry_after
from ._wire import Call, ClientConfig, Reply, error_code, raise_for_error, read_reply

__all__ = [
    "MAX_ANSWER_BYTES",
    "AnswerBody",
    "after_answer",
    "after_transport_error",
    "after_unreadable",
    "client_options",
]

#: Transport errors that another try cannot fix (the request itself is wrong).
_NOT_RETRIED = (httpx.UnsupportedProtocol, httpx.LocalProtocolError)
#: The most bytes of an answer's body (its Content-Encoding undone) that the client reads.
MAX_ANSWER_BYTES = 32 * 2**20


def client_options(config: ClientConfig) -> dict[str, object]:
    """The httpx client's options: the base URL, the timeout, no redirects."""
    return {
        "base_url": config.base_url,
        "timeout": httpx.Timeout(config.timeout),
        "follow_redirects": False,
    }


class AnswerBody:
    """An answer's body, read chunk by chunk as it comes (its Content-Encoding undone):
    at most :data:`MAX_ANSWER_BYTES`, and no later than the try's timeout after it began (the
    timeout of httpx bounds each read, not an answer dripped a byte at a time)."""

    def __init__(self, config: ClientConfig, call: Call, started: float) -> None:
        self._call = call
        self._timeout = config.timeout
        self._deadline = started + config.timeout
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, chunk: bytes) -> None:
        """Raises:
        ClientError: ``RESPONSE_TOO_LARGE``.
        httpx.ReadTimeout: the try's timeout has passed (no answer, as for any timeout).
        """
        self._size += len(chunk)
        if self._size > MAX_ANSWER_BYTES:
            raise ClientError(
                f"{self._call.operation.qualified_name} answered more than {MAX_ANSWER_BYTES} "
                "bytes, the most the client reads",
                "RESPONSE_TOO_LARGE",
            )
        if time.monotonic() > self._deadline:
            raise httpx.ReadTimeout(
                f"the answer took longer than the timeout ({self._timeout:g} s)"
            )
        self._parts.append(chunk)

    @property
    def content(self) -> bytes:
        return b"".join(self._parts)


def _emit_try(
    config: ClientConfig,
    call: Call,
    headers: Mapping[str, str],
    attempt: int,
    started: float,
    *,
    status: int | None,
    retry_in: float | None,
    error: BaseException | None = None,
) -> None:
    """Emit the event of one try that began at ``started`` (``time.monotonic()``)."""
    emit(
        config,
        event_for(
            call,
            headers,
            attempt=attempt,
            status=status,
            elapsed=time.monotonic() - started,
            retry_in=retry_in,
            error=error,
        ),
    )


def after_unreadable(
    config: ClientConfig,
    call: Call,
    headers: Mapping[str, str],
    attempt: int,
    status: int,
    error: ClientError | httpx.DecodingError,
    started: float,
) -> ClientError:
    """The error to raise for an answer whose body the client does not read (too large, or
    a Content-Encoding that does not decode); not tried again (the same would come back)."""
    _emit_try(config, call, headers, attempt, started, status=status, retry_in=None)
    if isinstance(error, ClientError):
        return error
    return ClientError(
        f"{call.operation.qualified_name} answered {status} with a body whose Content-Encoding "
        "does not decode",
        "RESPONSE_INVALID",
    )


def after_answer(
    config: ClientConfig,
    call: Call,
    headers: Mapping[str, str],
    attempt: int,
    response: httpx.Response,
    content: bytes,
    started: float,
) -> tuple[Reply | None, float]:
    """The reply to hand back (None: try again after the returned wait).

    Raises:
        ApiError: an error answer that is not tried again.
    """
    reply = read_reply(response.status_code, response.headers, content)
    wait = config.retry.wait_after_answer(
        attempt, reply.status, reply.headers, error_code(reply), call.idempotency_key is not None
    )
    _emit_try(config, call, headers, attempt, started, status=reply.status, retry_in=wait)
    if wait is not None:
        return None, wait
    retry_after = parse_retry_after(reply.headers.get("retry-after"))
    return raise_for_error(call, reply, retry_after, request_secrets(call, headers)), 0.0


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
    _emit_try(config, call, headers, attempt, started, status=None, retry_in=wait, error=error)
    if wait is None:
        detail = redact(f"{type(error).__name__}: {error}", request_secrets(call, headers))
        raise ApiError(
            f"{call.operation.method} {redact(call.path, call.secrets)}: no answer after "
            f"{attempt} tr{'y' if attempt == 1 else 'ies'} ({detail})",
            TRANSPORT,
            0,
            operation=call.operation.qualified_name,
        )
    return wait
