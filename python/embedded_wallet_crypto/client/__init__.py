"""The service's Python client: every operation of the interface, and its flows in one call
each (log in, signed retries, wallet export, quotes, agents, webhooks), over httpx.

Needs the ``client`` extra: ``pip install "embedded-wallet-crypto[client]"`` (httpx and
pydantic). Every answer is read into the service's own response model (the pydantic models of
``embedded_wallet_crypto.sandbox.models``, which load with this extra alone), typed for a type
checker: ``client.quotes.get(quote_id)`` is a ``QuoteOut``.

>>> from embedded_wallet_crypto.client import Client
>>> with Client("http://127.0.0.1:8000/2025-10-13", platform_credentials=(ID, SECRET)) as api:
...     customer = api.customers.create(body={"customerType": "INDIVIDUAL", "email": EMAIL})
...     accounts = api.internal_accounts.list.items(customerId=customer.id)
...     wallet = next(a for a in accounts if a.type == "EMBEDDED_WALLET")
...     session = api.login_email_otp(wallet.id, read_otp=lambda: input("code: "))
...     exported = api.export_wallet(wallet.id, session=session)
"""

from __future__ import annotations

try:
    import httpx  # noqa: F401
    import pydantic  # noqa: F401
except ImportError as missing:
    raise ImportError(
        f"the service client needs the client extra ({missing.name} is missing): "
        'pip install "embedded-wallet-crypto[client]"'
    ) from None

from ._async import AsyncClient
from ._errors import TRANSPORT, ApiError, ClientError
from ._events import REDACTED, RequestEvent
from ._groups import (
    AsyncGroup,
    AsyncListOperation,
    AsyncOperation,
    SyncGroup,
    SyncListOperation,
    SyncOperation,
)
from ._operations import GROUPS, OPERATIONS, Operation
from ._results import (
    AgentCredentials,
    ExportedWallet,
    PasskeyAuthenticator,
    PasskeyRegistrar,
    WalletSession,
)
from ._retry import RETRY_STATUSES, RetryPolicy, parse_retry_after
from ._sync import Client

__all__ = [
    "GROUPS",
    "OPERATIONS",
    "REDACTED",
    "RETRY_STATUSES",
    "TRANSPORT",
    "AgentCredentials",
    "ApiError",
    "AsyncClient",
    "AsyncGroup",
    "AsyncListOperation",
    "AsyncOperation",
    "Client",
    "ClientError",
    "ExportedWallet",
    "Operation",
    "PasskeyAuthenticator",
    "PasskeyRegistrar",
    "RequestEvent",
    "RetryPolicy",
    "SyncGroup",
    "SyncListOperation",
    "SyncOperation",
    "WalletSession",
    "parse_retry_after",
]
