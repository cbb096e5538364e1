"""Retries, proven through a local stand-in in front of ``ewc serve``: 429 with Retry-After
(seconds, and an HTTP date), 503, an answer lost after the service acted (504, a dropped
connection), 409 ``IDEMPOTENCY_REQUEST_IN_PROGRESS``; the same Idempotency-Key on every try,
so the service acts once (one transfer, one quote execution); and the limits: the tries run
out, a Retry-After beyond the cap, 500 and no answer at all."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from embedded_wallet_crypto.client import ApiError, RequestEvent, RetryPolicy
from sandbox._server import SandboxServer

from ._proxy import Proxy, running_proxy
from ._support import Customer, bank_account, make_client, settled
from .conftest import client_options


@pytest.fixture(scope="module")
def environment() -> str:
    return "sandbox"  # the retry logic is the client's; one environment is enough


@pytest.fixture
def proxy(server: SandboxServer) -> Iterator[Proxy]:
    with running_proxy(server.base_url) as running:
        yield running


@pytest.fixture
def events() -> list[RequestEvent]:
    return []


@pytest.fixture
def flaky(mode: str, proxy: Proxy, server: SandboxServer, events: list[RequestEvent]) -> Any:
    """A client of the service through the stand-in (short backoff; Retry-After honoured)."""
    options = client_options(
        server, None, retry=RetryPolicy(max_retries=2, backoff=0.05), event_hook=events.append
    )
    client = make_client(mode, proxy.url, **options)
    yield client
    client.close()


def _keys(seen: list[Any]) -> set[str | None]:
    return {s.headers.get("Idempotency-Key") for s in seen}


def test_a_transfer_retried_through_429_and_a_lost_answer_happens_once(
    api: Any, flaky: Any, proxy: Proxy, server: SandboxServer, events: list[RequestEvent]
) -> None:
    customer = Customer(api, server.mail_dir)
    usd = customer.accounts["USD"].id
    api.sandbox.fund(usd, body={"amount": 100_00})
    bank = bank_account(api, customer.id)
    # 429 (not forwarded), then forwarded but its answer replaced by 503, then passed through.
    proxy.script("POST", "/transfer-out", "429:1", "forward-503", "pass")
    body = {"source": {"accountId": usd}, "destination": {"accountId": bank.id}, "amount": 25_00}
    transfer = flaky.transfers.transfer_out(body=body)
    # The service acted once: the third try got the second's stored answer.
    assert settled(api, transfer.id).status == "COMPLETED"
    transactions = list(api.transactions.list.items(customerId=customer.id))
    assert [t.id for t in transactions if t.type == "OUTGOING"] == [transfer.id]
    balance = api.internal_accounts.list(customerId=customer.id, currency="USD").data[0]
    assert balance.balance.amount == 75_00
    seen = proxy.requests("POST", "/transfer-out")
    assert [s.action for s in seen] == ["429:1", "forward-503", "pass"]
    (key,) = _keys(seen)
    assert key and key.startswith("ewc-")
    assert [e.status for e in events if e.operation == "transfers.transfer_out"] == [429, 503, 201]
    assert next(e.retry_in for e in events if e.operation == "transfers.transfer_out") == 1.0


@pytest.mark.parametrize("first", ["forward-503", "forward-drop"])
def test_a_quote_execution_retried_after_lost_answers_executes_once(
    api: Any, flaky: Any, proxy: Proxy, server: SandboxServer, first: str
) -> None:
    """The first try commits (forwarded), its answer is lost (a 503 in its place, or none),
    so is the second's (a 504): the third gets the first's stored answer; one execution."""
    customer = Customer(api, server.mail_dir)
    api.sandbox.fund(customer.wallet, body={"amount": 30_000_000})
    bank = bank_account(api, customer.id)
    quote = api.quotes.create(
        body={
            "source": {"sourceType": "ACCOUNT", "accountId": customer.wallet},
            "destination": {"destinationType": "ACCOUNT", "accountId": bank.id},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": 10_00,
        }
    )
    session = api.login_email_otp(customer.wallet, read_otp=customer.read_otp)
    path = f"/quotes/{quote.id}/execute"
    proxy.script("POST", path, first, "forward-504", "pass")
    executed = flaky.execute_quote(quote.id, session=session)
    assert executed.transactionId
    wallet = api.internal_accounts.list(customerId=customer.id, type="EMBEDDED_WALLET").data[0]
    assert wallet.balance.amount == 30_000_000 - quote.totalSendingAmount
    seen = proxy.requests("POST", path)
    assert [s.action for s in seen] == [first, "forward-504", "pass"]
    transactions = list(api.transactions.list.items(customerId=customer.id))
    assert [t.id for t in transactions if t.quoteId == quote.id] == [executed.transactionId]
    assert len(_keys(seen)) == 1 and None not in _keys(seen)
    assert len({s.headers["Service-Wallet-Signature"] for s in seen}) == 1
    with pytest.raises(ApiError) as again:  # a new call is a new key: the quote is spent
        api.execute_quote(quote.id, session=session)
    assert again.value.code == "QUOTE_ALREADY_EXECUTED"


def test_a_given_idempotency_key_is_sent_and_kept(
    api: Any, flaky: Any, proxy: Proxy, server: SandboxServer
) -> None:
    customer = Customer(api, server.mail_dir)
    body = {
        "source": {"sourceType": "ACCOUNT", "accountId": customer.accounts["USD"].id},
        "destination": {"destinationType": "ACCOUNT", "accountId": customer.wallet},
        "lockedCurrencySide": "RECEIVING",
        "lockedCurrencyAmount": 1_000_000,
    }
    key = f"order-{uuid.uuid4()}"
    proxy.script("POST", "/quotes", "409-progress", "pass")
    first = flaky.quotes.create(body=body, idempotency_key=key)
    again = flaky.quotes.create(body=body, idempotency_key=key)
    assert again == first  # the service's stored answer
    assert _keys(proxy.requests("POST", "/quotes")) == {key}
    with pytest.raises(ApiError) as reused:  # the same key for another request
        flaky.quotes.create(body={**body, "lockedCurrencyAmount": 2_000_000}, idempotency_key=key)
    assert (reused.value.status, reused.value.code) == (422, "IDEMPOTENCY_KEY_REUSED")
    flaky.config.get()
    assert _keys(proxy.requests("GET", "/config")) == {None}  # a read carries no key


def test_retry_after_as_an_http_date(flaky: Any, proxy: Proxy, events: list[RequestEvent]) -> None:
    proxy.script("GET", "/config", "503-date:2", "pass")
    assert flaky.config.get().supportedCurrencies
    (waited,) = [e.retry_in for e in events if e.retry_in is not None]
    assert 0 < waited <= 2


def test_the_tries_run_out(flaky: Any, proxy: Proxy) -> None:
    proxy.script("GET", "/config", "503", "503", "503", "503")
    with pytest.raises(ApiError) as failed:
        flaky.config.get()
    assert (failed.value.status, failed.value.code) == (503, "UNAVAILABLE")
    assert failed.value.operation == "config.get"
    assert len(proxy.requests("GET", "/config")) == 3


def test_a_retry_after_beyond_the_cap_is_raised_at_once(flaky: Any, proxy: Proxy) -> None:
    proxy.script("GET", "/config", "429:3600")
    with pytest.raises(ApiError) as limited:
        flaky.config.get()
    assert (limited.value.status, limited.value.code) == (429, "RATE_LIMITED")
    assert limited.value.retry_after == 3600
    assert len(proxy.requests("GET", "/config")) == 1


def test_500_is_not_retried(flaky: Any, proxy: Proxy) -> None:
    proxy.script("GET", "/config", "500")
    with pytest.raises(ApiError) as failed:
        flaky.config.get()
    assert (failed.value.status, failed.value.code) == (500, "HTTP_500")
    assert len(proxy.requests("GET", "/config")) == 1


def test_no_answer_at_all_is_a_transport_error(mode: str, server: SandboxServer) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    events: list[RequestEvent] = []
    options = client_options(
        server, None, retry=RetryPolicy(max_retries=2, backoff=0.01), event_hook=events.append
    )
    client = make_client(mode, f"http://127.0.0.1:{port}/2025-10-13", **options)
    try:
        with pytest.raises(ApiError) as failed:
            client.config.get()
    finally:
        client.close()
    assert (failed.value.status, failed.value.code) == (0, "TRANSPORT")
    assert "ConnectError" in failed.value.reason and "3 tries" in failed.value.reason
    assert [e.status for e in events] == [None, None, None]
    assert [e.retry_in is None for e in events] == [False, False, True]
