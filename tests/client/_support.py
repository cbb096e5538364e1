"""Helpers of the client tests: the parties the client talks to besides the service (the
user's mailbox, an OIDC issuer, a passkey), a customer with an embedded wallet, funding in
both environments, a synchronous view of an AsyncClient (so that one scenario runs through
both clients), an operation path's shape, and a base URL for the tests without a service."""

from __future__ import annotations

import asyncio
import inspect
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _oidc_helpers import AUDIENCE, ES_KID, ES_LABEL, ISSUER
from embedded_wallet_crypto.client import AsyncClient, Client
from embedded_wallet_crypto.client._groups import AsyncGroup, AsyncOperation
from embedded_wallet_crypto.vectors.generate._jwt_mint import sign_es256
from sandbox._client import read_otp

FINAL = ("COMPLETED", "FAILED", "REJECTED", "REFUNDED", "EXPIRED")
RP_ID, ORIGIN = "localhost", "http://localhost:8000"
#: A base URL of the right shape (the API version as its last segment), for the tests of the
#: client without a service.
BASE = "https://api.example.com/2025-10-13"


def mint_token(nonce: str | None, *, subject: str, email: str) -> str:
    """A fresh ES256 ID token of the test issuer (the service trusts its JWKS)."""
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": subject,
        "email": email,
        "iat": now - 1,
        "exp": now + 600,
    }
    if nonce is not None:
        claims["nonce"] = nonce
    return sign_es256(ES_LABEL, {"alg": "ES256", "kid": ES_KID, "typ": "JWT"}, claims)


class Customer:
    """A customer with an email address, an identity at the issuer, and an embedded wallet."""

    def __init__(self, api: Any, mail_dir: Path, currencies: tuple[str, ...] = ("USD",)) -> None:
        self.email = f"{uuid.uuid4().hex[:12]}@example.com"
        self.subject = f"user-{uuid.uuid4().hex[:12]}"
        self.mail_dir = mail_dir
        created = api.customers.create(
            body={
                "customerType": "INDIVIDUAL",
                "currencies": list(currencies),
                "email": self.email,
            }
        )
        self.id: str = created.id
        self.accounts = {
            ("WALLET" if a.type == "EMBEDDED_WALLET" else a.balance.currency.code): a
            for a in api.internal_accounts.list.items(customerId=self.id)
        }
        self.wallet: str = self.accounts["WALLET"].id

    def read_otp(self) -> str:
        """The newest code sent to the customer (what a user types in)."""
        return read_otp(self.mail_dir, self.email)[0]

    def token(self, nonce: str | None = None) -> str:
        return mint_token(nonce, subject=self.subject, email=self.email)


def bank_account(api: Any, customer_id: str, suffix: str = "010") -> Any:
    """A USD bank account of the customer (its last digits choose the sandbox outcome): an
    ``ExternalAccountOut``."""
    account = api.external_accounts.create_for_customer(
        body={
            "customerId": customer_id,
            "currency": "USD",
            "accountInfo": {
                "accountType": "USD_ACCOUNT",
                "accountNumber": "1234567" + suffix,
                "routingNumber": "021000021",
                "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
            },
        }
    )
    return account


def _template(path: str) -> str:
    """A path with each ``{parameter}`` as ``{}``: the shape the app's routes, the OpenAPI
    document and the client's table share."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def settled(api: Any, transaction_id: str, timeout: float = 60) -> dict[str, Any]:
    """The transaction once final (the timeout only guards against a hang)."""
    deadline = time.monotonic() + timeout
    while True:
        transaction: dict[str, Any] = api.transactions.get(transaction_id)
        if transaction.status in FINAL or time.monotonic() > deadline:
            return transaction
        time.sleep(0.05)


def fund_wallet(api: Any, environment: str, customer: Customer, amount: int) -> None:
    """Put ``amount`` USDC units into the wallet: the sandbox endpoint, or in production a
    transfer in from the bank and a quote from the USD account into the wallet."""
    if environment == "sandbox":
        api.sandbox.fund(customer.wallet, body={"amount": amount})
        return
    bank = bank_account(api, customer.id)
    usd = customer.accounts["USD"].id
    pulled = api.transfers.transfer_in(
        body={
            "source": {"accountId": bank.id},
            "destination": {"accountId": usd},
            "amount": 100_00,
        }
    )
    assert settled(api, pulled.id).status == "COMPLETED"
    quote = api.quotes.create(
        body={
            "source": {"sourceType": "ACCOUNT", "accountId": usd},
            "destination": {"destinationType": "ACCOUNT", "accountId": customer.wallet},
            "lockedCurrencySide": "RECEIVING",
            "lockedCurrencyAmount": amount,
            "immediatelyExecute": True,
        }
    )
    assert settled(api, quote.transactionId).status == "COMPLETED"


class SyncView:
    """An AsyncClient seen synchronously: every coroutine runs to its end on one event loop
    (the one the AsyncClient's connections live on), async iterators are collected. The
    requests go through the AsyncClient and httpx's async transport for real."""

    def __init__(self, client: AsyncClient, loop: asyncio.AbstractEventLoop) -> None:
        self._client = client
        self._loop = loop

    def _wait(self, value: Any) -> Any:
        if inspect.isawaitable(value):
            return self._loop.run_until_complete(value)  # type: ignore[arg-type]
        if inspect.isasyncgen(value):

            async def collect() -> list[Any]:
                return [item async for item in value]

            return iter(self._loop.run_until_complete(collect()))
        return value

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._client, name)
        if isinstance(value, AsyncGroup):
            return _GroupView(value, self)
        if name == "with_agent_token":
            return lambda token: SyncView(value(token), self._loop)
        if callable(value):
            return lambda *args, **kwargs: self._wait(value(*args, **kwargs))
        return value

    def close(self) -> None:
        self._loop.run_until_complete(self._client.aclose())


class _GroupView:
    def __init__(self, group: AsyncGroup, view: SyncView) -> None:
        self._group, self._view = group, view

    def __getattr__(self, name: str) -> Any:
        return _OperationView(getattr(self._group, name), self._view)


class _OperationView:
    def __init__(self, operation: AsyncOperation, view: SyncView) -> None:
        self._operation, self._view = operation, view

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._view._wait(self._operation(*args, **kwargs))

    def pages(self, *args: Any, **kwargs: Any) -> Any:
        return self._view._wait(self._operation.pages(*args, **kwargs))

    def items(self, *args: Any, **kwargs: Any) -> Any:
        return self._view._wait(self._operation.items(*args, **kwargs))


def callback(mode: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as the mode's callers write it: a coroutine function for async."""
    if mode == "sync":
        return function

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        return function(*args, **kwargs)

    return wrapped


class AsyncAuthenticator:
    """A passkey authenticator with an async ``authenticate`` (as a browser bridge has)."""

    def __init__(self, authenticator: Any) -> None:
        self.inner = authenticator

    async def authenticate(self, **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        return self.inner.authenticate(**kwargs)

    async def register(self, **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        return self.inner.register(**kwargs)


def make_client(mode: str, base_url: str, **options: Any) -> Any:
    """A Client, or an AsyncClient's SyncView on a fresh event loop."""
    if mode == "sync":
        return Client(base_url, **options)
    loop = asyncio.new_event_loop()

    async def build() -> AsyncClient:
        return AsyncClient(base_url, **options)

    return SyncView(loop.run_until_complete(build()), loop)
