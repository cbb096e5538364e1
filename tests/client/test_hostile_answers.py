"""The client against a broken or hostile server, over real HTTP (``_hostile``): answers that
are not JSON, not the operation's model, nested past any parser's depth, undecodable,
huge (a plain body, a gzip bomb), endless, or cut off. Each ends as a typed error with a
stable code, in both clients, and none is read without bound."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest
from embedded_wallet_crypto.client import ApiError, ClientError
from embedded_wallet_crypto.client._transport import MAX_ANSWER_BYTES

from ._hostile import Hostile, close_client, gzip_bomb, json_answer, open_client, response

JSON = {"Content-Type": "application/json"}


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
    hostile_client: Any, hostile: Hostile, answer: bytes
) -> None:
    hostile.script(answer)
    with pytest.raises(ClientError) as invalid:
        hostile_client.config.get()
    assert invalid.value.code == "RESPONSE_INVALID"
    assert len(hostile.seen) == 1


def test_json_nested_past_the_parsers_depth_is_not_json(
    hostile_client: Any, hostile: Hostile
) -> None:
    deep = b'{"id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    hostile.script(response(200, deep, JSON), response(400, deep, JSON))
    with pytest.raises(ClientError) as success:
        hostile_client.config.get()
    assert success.value.code == "RESPONSE_INVALID"
    with pytest.raises(ApiError) as failure:
        hostile_client.config.get()
    assert (failure.value.status, failure.value.code) == (400, "HTTP_400")


def test_an_answer_whose_content_encoding_is_broken(hostile_client: Any, hostile: Hostile) -> None:
    broken = {**JSON, "Content-Encoding": "gzip"}
    hostile.script(
        response(200, b"not gzip at all", broken), response(500, b"\x1f\x8bgarbage", broken)
    )
    for _ in range(2):
        with pytest.raises(ClientError) as undecodable:
            hostile_client.config.get()
        assert undecodable.value.code == "RESPONSE_INVALID"
        assert "Content-Encoding" in undecodable.value.reason
    assert len(hostile.seen) == 2  # not tried again: the same bytes would come back


def test_a_huge_answer_is_not_read_past_the_limit(hostile_client: Any, hostile: Hostile) -> None:
    huge = b'{"id": "' + b"x" * (MAX_ANSWER_BYTES + 1) + b'"}'
    hostile.script(response(200, huge, JSON), response(500, huge, JSON))
    for _ in range(2):
        with pytest.raises(ClientError) as too_large:
            hostile_client.config.get()
        assert too_large.value.code == "RESPONSE_TOO_LARGE"


def test_a_gzip_bomb_is_not_inflated_past_the_limit(hostile_client: Any, hostile: Hostile) -> None:
    bomb = gzip_bomb(2 * MAX_ANSWER_BYTES)
    assert len(bomb) < MAX_ANSWER_BYTES // 100
    hostile.script(response(200, bomb, {**JSON, "Content-Encoding": "gzip"}))
    with pytest.raises(ClientError) as too_large:
        hostile_client.config.get()
    assert too_large.value.code == "RESPONSE_TOO_LARGE"


def _endless(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    conn.sendall(b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (2**16, b" " * 2**16)
    while True:
        conn.sendall(chunk)


def test_an_endless_answer_is_not_read_forever(hostile_client: Any, hostile: Hostile) -> None:
    hostile.script(_endless)
    with pytest.raises(ClientError) as too_large:
        hostile_client.config.get()
    assert too_large.value.code == "RESPONSE_TOO_LARGE"


def _drip(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    conn.sendall(b"Content-Length: 100000\r\nConnection: close\r\n\r\n")
    for _ in range(200):
        conn.sendall(b" ")  # each byte well within the read timeout, the whole far beyond it
        time.sleep(0.1)


def test_an_answer_dripped_slowly_ends_within_the_timeout(mode: str, hostile: Hostile) -> None:
    hostile.script(_drip, _drip)
    client = open_client(mode, hostile, timeout=1.0)
    started = time.monotonic()
    try:
        with pytest.raises(ApiError) as slow:
            client.config.get()
    finally:
        close_client(client)
    assert (slow.value.status, slow.value.code) == (0, "TRANSPORT")
    assert "ReadTimeout" in slow.value.reason and "2 tries" in slow.value.reason
    assert time.monotonic() - started < 5  # two tries of 1 s, not two of 20 s


def _cut(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    conn.sendall(b'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\n{"id"')


@pytest.mark.parametrize(
    "answer",
    [response(200, b'{"id": "Con', JSON, length=1000), _cut],
    ids=["short-content-length", "closed-mid-chunk"],
)
def test_an_answer_cut_off_is_no_answer(hostile_client: Any, hostile: Hostile, answer: Any) -> None:
    hostile.script(answer, answer)
    with pytest.raises(ApiError) as cut:
        hostile_client.config.get()
    assert (cut.value.status, cut.value.code) == (0, "TRANSPORT")
    assert "RemoteProtocolError" in cut.value.reason
    assert len(hostile.seen) == 2  # tried again, never a partial answer
