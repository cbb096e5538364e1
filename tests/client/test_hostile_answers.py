"""The client against a broken or hostile server, over real HTTP (``_hostile``): answers that
are not JSON, not the operation's model, nested past any parser's depth, undecodable,
huge (a plain body, a gzip bomb), endless, or cut off. Each ends as a typed error with a
stable code, in both clients, and none is read without bound."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from embedded_wallet_crypto.client import ApiError, ClientError, RetryPolicy

from ._hostile import Hostile, hostile_server, json_answer, response
from ._support import SyncView, make_client

JSON = {"Content-Type": "application/json"}


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    with hostile_server() as running:
        yield running


def open_client(mode: str, hostile: Hostile, **extra: Any) -> Any:
    options: dict[str, Any] = {
        "platform_credentials": ("platform-id", "platform-secret-1"),
        "retry": RetryPolicy(max_retries=1, backoff=0.01),
        **extra,
    }
    return make_client(mode, hostile.url, **options)


def close_client(client: Any) -> None:
    client.close()
    if isinstance(client, SyncView):
        client._loop.close()


@pytest.fixture
def client(mode: str, hostile: Hostile) -> Iterator[Any]:
    opened = open_client(mode, hostile)
    yield opened
    close_client(opened)


@pytest.mark.parametrize(
    "answer",
    [
        response(200, b"<html>maintenance</html>", {"Content-Type": "text/html"}),
        response(200, b'{"supportedCurrencies": [', JSON),
        response(200, b'{"id": "Config:1"}'),  # no Content-Type, not the model
        response(200, b"\xff\xfe\x00garbage", JSON),
        json_answer(200, [1, 2, 3]),
        json_answer(200, {"id": 5, "supportedCurrencies": "USD", "createdAt": []}),
        json_answer(200, "a string"),
    ],
    ids=["html", "broken-json", "no-content-type", "not-utf8", "a-list", "wrong-types", "str"],
)
def test_an_answer_that_is_not_the_model_is_response_invalid(
    client: Any, hostile: Hostile, answer: bytes
) -> None:
    hostile.script(answer)
    with pytest.raises(ClientError) as invalid:
        client.config.get()
    assert invalid.value.code == "RESPONSE_INVALID"
    assert len(hostile.seen) == 1


def test_json_nested_past_the_parsers_depth_is_not_json(client: Any, hostile: Hostile) -> None:
    deep = b'{"id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    hostile.script(response(200, deep, JSON), response(400, deep, JSON))
    with pytest.raises(ClientError) as success:
        client.config.get()
    assert success.value.code == "RESPONSE_INVALID"
    with pytest.raises(ApiError) as failure:
        client.config.get()
    assert (failure.value.status, failure.value.code) == (400, "HTTP_400")


def _cut(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    conn.sendall(b'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\n{"id"')


@pytest.mark.parametrize(
    "answer",
    [response(200, b'{"id": "Con', JSON, length=1000), _cut],
    ids=["short-content-length", "closed-mid-chunk"],
)
def test_an_answer_cut_off_is_no_answer(client: Any, hostile: Hostile, answer: Any) -> None:
    hostile.script(answer, answer)
    with pytest.raises(ApiError) as cut:
        client.config.get()
    assert (cut.value.status, cut.value.code) == (0, "TRANSPORT")
    assert "RemoteProtocolError" in cut.value.reason
    assert len(hostile.seen) == 2  # tried again, never a partial answer
