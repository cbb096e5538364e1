"""The client's requests without a service (checked with httpx's MockTransport): what a
request carries (its body, headers and query, a multipart form, the pages of a list in both
clients), and the refusals that happen before anything is sent."""

from __future__ import annotations

import asyncio
from typing import Any

import embedded_wallet_crypto as ewc
import httpx
import pytest
from embedded_wallet_crypto.client import AsyncClient, Client, ClientError
from embedded_wallet_crypto.client._flows import make_call
from embedded_wallet_crypto.client._operations import operation

from ._support import BASE


def _offline(handler: Any = None) -> Client:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={})

    return Client(
        BASE,
        platform_credentials=("id", "secret"),
        transport=httpx.MockTransport(handler or answer),
    )


def test_refusals_before_anything_is_sent() -> None:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={})

    api = _offline(record)
    with pytest.raises(ClientError) as token:
        api.agent.me()
    assert token.value.code == "AGENT_TOKEN_REQUIRED"
    with pytest.raises(ClientError) as credentials:
        Client(BASE).config.get()
    assert credentials.value.code == "PLATFORM_CREDENTIALS_REQUIRED"
    with pytest.raises(TypeError, match="not signed"):
        api.quotes.create(body={}, session=ewc.KeyPair.generate())
    with pytest.raises(TypeError):
        api.quotes.create(body={}, session="a session")
    with pytest.raises(ClientError) as key:
        api.quotes.create(body={}, idempotency_key="x" * 256)
    assert key.value.code == "INVALID_ARGUMENT"
    with pytest.raises(TypeError):
        api.quotes.create(body={"amount": float("nan")})
    with pytest.raises(TypeError):
        api.login_email_otp("InternalAccount:1")  # neither otp= nor read_otp=
    with pytest.raises(AttributeError, match="no operation 'nothing'"):
        api.quotes.nothing  # noqa: B018
    assert sent == []


def test_a_sync_client_refuses_an_async_callback() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/auth/credentials") and request.method == "GET":
            return httpx.Response(200, json={"data": [{"id": "AuthMethod:1", "type": "EMAIL_OTP"}]})
        return httpx.Response(200, json={"id": "AuthMethod:1", "type": "EMAIL_OTP"})

    async def read_otp() -> str:
        return "123456"

    with pytest.raises(TypeError, match="use AsyncClient"):
        _offline(answer).login_email_otp("InternalAccount:1", read_otp=read_otp)


def test_sent_requests_carry_what_the_table_says() -> None:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(204)

    api = _offline(record)
    assert api.customers.create(body={"b": 1, "a": [True, None]}) is None
    assert api.agents.list(isPaused=False, cursor=None, limit=5) is None
    api.agents.redeem_device_code("AGENT-1")
    create, listed, redeem = sent
    assert create.content == b'{"b":1,"a":[true,null]}'
    assert create.headers["Idempotency-Key"].startswith("ewc-")
    assert create.headers["Authorization"].startswith("Basic ")
    assert str(listed.url) == f"{BASE}/agents?isPaused=false&limit=5"
    assert "Idempotency-Key" not in listed.headers
    assert "Authorization" not in redeem.headers  # the code is the proof


def test_document_uploads_are_forms() -> None:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(201, json=document)

    document = {
        "id": "Document:1",
        "documentHolder": "Customer:1",
        "documentType": "PASSPORT",
        "country": "US",
        "fileName": "p.pdf",
        "createdAt": "2025-10-03T12:30:00Z",
    }
    api = _offline(record)
    form = {"documentType": "PASSPORT", "country": "US", "file": ("p.pdf", b"%PDF-1.7\r\n\x00")}
    uploaded = api.documents.upload(body={**form, "documentHolder": "Customer:1"})
    assert uploaded.model_dump(mode="json", exclude_unset=True) == document
    (upload,) = sent
    kind = upload.headers["Content-Type"]
    assert kind.startswith("multipart/form-data; boundary=")
    assert b'name="file"; filename="p.pdf"' in upload.content
    assert b"%PDF-1.7\r\n\x00" in upload.content and b'name="documentHolder"' in upload.content
    assert upload.headers["Idempotency-Key"].startswith("ewc-")
    for bad in ({"country": "US"}, {"file": b"bytes"}, {"file": ("a", b"x"), "n": 5}, [1]):
        with pytest.raises(TypeError):
            api.documents.upload(body=bad)
    assert len(sent) == 1  # nothing sent for a bad form


def test_the_async_client_sends_the_same() -> None:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(
            200, json={"data": [], "hasMore": len(sent) < 2, "nextCursor": f"c{len(sent)}"}
        )

    async def main() -> list[Any]:
        async with AsyncClient(
            BASE, platform_credentials=("id", "s"), transport=httpx.MockTransport(record)
        ) as api:
            return [page async for page in api.transactions.list.pages(limit=1)]

    pages = asyncio.run(main())
    assert [(type(p).__name__, p.hasMore) for p in pages] == [
        ("TransactionListWithCards", True),
        ("TransactionListWithCards", False),
    ]
    assert [request.url.params.get("cursor") for request in sent] == [None, "c1"]


def test_a_list_that_never_ends_is_refused() -> None:
    def same(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"data": [], "hasMore": True, "nextCursor": "again"})

    seen = []
    with pytest.raises(ClientError) as stuck:
        for page in _offline(same).transactions.list.pages():
            seen.append(page)
    assert len(seen) == 2  # the second page repeats the cursor it was asked with
    assert stuck.value.code == "RESPONSE_INVALID"


def test_an_export_challenge_that_binds_another_key_is_not_signed() -> None:
    """A service (or a man in the middle) that asks the client to authorize an export to
    another key gets no stamp: the payload must bind the key the client sent."""
    stranger = ewc.KeyPair.generate().public_key_hex()
    sent: list[httpx.Request] = []

    def challenge(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        payload = '{"parameters":{"targetPublicKey":"%s"},"type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
        return httpx.Response(202, json={"payloadToSign": payload % stranger, "requestId": "r1"})

    api = _offline(challenge)
    session = ewc.KeyPair.generate()
    with pytest.raises(ewc.StampError) as swapped:
        api.export_wallet("InternalAccount:1", session=session)
    assert swapped.value.code == "PAYLOAD_KEY_MISMATCH"
    mine = ewc.KeyPair.generate().public_key_hex()
    with pytest.raises(ewc.StampError) as generic:
        api.internal_accounts.export(
            "InternalAccount:1", body={"clientPublicKey": mine}, session=session
        )
    assert generic.value.code == "PAYLOAD_KEY_MISMATCH"
    assert len(sent) == 2  # each first leg only: no stamped retry went out
    assert all("Service-Wallet-Signature" not in request.headers for request in sent)


def test_an_upload_is_sent_as_the_file_part_of_a_multipart_body() -> None:
    upload = operation("customers.upload_csv")
    for body in ({"file": ("c.csv", b"a,b\n1,2\n")}, {"file": ("c.csv", bytearray(b"a,b\n1,2\n"))}):
        call = make_call(upload, (), body=body)
        (content_type,) = (value for name, value in call.headers if name == "Content-Type")
        assert content_type.startswith("multipart/form-data; boundary=")
        assert call.content is not None and b'name="file"' in call.content
        assert b"a,b\n1,2\n" in call.content
        assert call.idempotency_key  # encoded once: a retry repeats the same bytes and key
    for wrong in ({"file": "a"}, "a,b\n", b"a,b\n", 12):
        with pytest.raises(TypeError):
            make_call(upload, (), body=wrong)
