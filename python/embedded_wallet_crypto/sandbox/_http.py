"""The HTTP/1.1 connection of ``ewc serve``: uvicorn's h11 protocol with a request deadline.

uvicorn closes a connection that stays idle after a response (``timeout_keep_alive``) but waits
without end for a request that is still arriving: a new connection that sends nothing, headers
that never end, a body shorter than its ``Content-Length``. Here each request must arrive whole
(its headers and its body) within ``request_timeout`` seconds of the connection opening or of
its first byte. Then the connection is closed, after a 408 ``REQUEST_TIMEOUT`` in the error
shape when the headers had arrived and no answer was started. The deadline covers the whole
request, not the gap between two bytes, so a client trickling a byte at a time gains nothing.

A request the HTTP parser refuses (a broken request line or header, no ``Host``, two lengths,
an unknown transfer coding, a broken chunk) is answered 400 ``INVALID_INPUT`` in the error
shape too (uvicorn's own answer is plain text), and the connection is closed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .domain.errors import error_body

__all__ = ["protocol_with_deadline"]

_TIMEOUT_BODY = json.dumps(
    error_body(408, "REQUEST_TIMEOUT", "The request did not arrive in time.")
).encode()
_NOT_HTTP_BODY = json.dumps(
    error_body(400, "INVALID_INPUT", "The request is not valid HTTP/1.1.")
).encode()


def _json_headers(body: bytes) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]


class _DeadlineH11Protocol(H11Protocol):
    request_timeout: float = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _arriving(self) -> bool:
        """Whether a request has begun (or the connection is new) and is not whole yet."""
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            return True
        if state is h11.IDLE:  # a first request, or the bytes of the next one
            return self.cycle is None or bool(self.conn.trailing_data[0])
        return False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._arriving():
            self._arm()
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to what h11 refuses, in the error shape (``msg`` is its text); when
        an answer was already started, the connection is only closed."""
        del msg
        cycle = self.cycle  # on a kept-alive connection, maybe the previous (answered) request's
        if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):  # no answer begun to this one
            headers = _json_headers(_NOT_HTTP_BODY)
            answer = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
            self.transport.write(self.conn.send(answer))
            self.transport.write(self.conn.send(h11.Data(data=_NOT_HTTP_BODY)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
        if cycle is not None:  # the application's read ends as a disconnect
            cycle.response_started = cycle.response_complete = cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or not self._arriving():
            return
        cycle = self.cycle
        if (
            self.conn.their_state is h11.SEND_BODY
            and cycle is not None
            and not cycle.response_started
        ):
            headers = _json_headers(_TIMEOUT_BODY)
            self.transport.write(self.conn.send(h11.Response(status_code=408, headers=headers)))
            self.transport.write(self.conn.send(h11.Data(data=_TIMEOUT_BODY)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
            # The application's read ends as a disconnect; its own answer goes nowhere.
            cycle.response_started = cycle.response_complete = cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()


def protocol_with_deadline(request_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with this request deadline (``uvicorn.Config(http=...)``)."""
    return type(
        "DeadlineH11Protocol", (_DeadlineH11Protocol,), {"request_timeout": request_timeout}
    )
