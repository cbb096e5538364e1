"""No secret in what the client logs or reports: the logger ``embedded_wallet_crypto.client``
at DEBUG, every RequestEvent of the ``event_hook``, the reprs of the client and its results,
and its errors, over flows that handle every kind of secret (platform credentials, OTP codes,
encrypted OTP bundles, sealed session keys, stamps, an exported mnemonic, a device code and
an agent's token). The secrets are taken from what actually went over the wire."""

from __future__ import annotations

import base64
import json
import logging
import socket

import httpx
import pytest
from embedded_wallet_crypto.client import ApiError, RequestEvent, RetryPolicy
from sandbox._server import SandboxServer

from ._support import Customer, bank_account, fund_wallet, make_client
from .conftest import client_options

#: Request-body and response-body fields whose values are secrets.
SECRET_FIELDS = {
    "otp",
    "encryptedOtpBundle",
    "oidcToken",
    "encryptedSessionSigningKey",
    "encryptedWalletCredentials",
    "accessToken",
}
SECRET_HEADERS = {"authorization", "service-wallet-signature"}


class Wiretap:
    """Records the secrets that cross the wire, for both httpx transports."""

    def __init__(self) -> None:
        self.secrets: set[str] = set()

    def _fields(self, content: bytes) -> None:
        try:
            value = json.loads(content)
        except ValueError:
            return
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                device = item.get("deviceCode")
                if isinstance(device, dict) and isinstance(device.get("code"), str):
                    self.secrets.add(device["code"])
                for key, inner in item.items():
                    if key in SECRET_FIELDS and isinstance(inner, str) and len(inner) >= 6:
                        self.secrets.add(inner)
                    stack.append(inner)
            elif isinstance(item, list):
                stack.extend(item)

    def request(self, request: httpx.Request) -> None:
        for name, value in request.headers.items():
            if name.lower() in SECRET_HEADERS:
                self.secrets.add(value)
                self.secrets.add(value.partition(" ")[2] or value)
        if "/device-codes/" in request.url.path:
            self.secrets.add(request.url.path.split("/device-codes/")[1].split("/")[0])
        self._fields(request.content)

    def response(self, response: httpx.Response) -> None:
        self._fields(response.content)


class SyncTap(httpx.HTTPTransport):
    def __init__(self, tap: Wiretap) -> None:
        super().__init__()
        self.tap = tap

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.tap.request(request)
        response = super().handle_request(request)
        response.read()
        self.tap.response(response)
        return response


class AsyncTap(httpx.AsyncHTTPTransport):
    def __init__(self, tap: Wiretap) -> None:
        super().__init__()
        self.tap = tap

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.tap.request(request)
        response = await super().handle_async_request(request)
        await response.aread()
        self.tap.response(response)
        return response


def test_no_secret_is_logged_or_shown(
    mode: str,
    server: SandboxServer,
    signer_key: str | None,
    environment: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    tap = Wiretap()
    events: list[RequestEvent] = []
    transport = SyncTap(tap) if mode == "sync" else AsyncTap(tap)
    options = client_options(server, signer_key, event_hook=events.append, transport=transport)
    shown: list[str] = []
    caplog.set_level(logging.DEBUG, logger="embedded_wallet_crypto.client")
    api = make_client(mode, server.base_url, **options)
    try:
        customer = Customer(api, server.mail_dir)
        session = api.login_email_otp(customer.wallet, read_otp=customer.read_otp)
        plain = api.login_email_otp(customer.wallet, read_otp=customer.read_otp, encrypted=False)
        api.add_credential(
            customer.wallet, {"type": "OAUTH", "oidcToken": customer.token()}, session=session
        )
        oauth = api.login_oauth(customer.wallet, oidc_token=customer.token)
        exported = api.export_wallet(customer.wallet, session=session)
        fund_wallet(api, environment, customer, 10_000_000)
        bank = bank_account(api, customer.id)
        quote = api.quotes.create(
            body={
                "source": {"sourceType": "ACCOUNT", "accountId": customer.wallet},
                "destination": {"destinationType": "ACCOUNT", "accountId": bank.id},
                "lockedCurrencySide": "RECEIVING",
                "lockedCurrencyAmount": 1_00,
            }
        )
        api.execute_quote(quote.id, session=oauth)
        created = api.agents.create(
            body={
                "name": "Bot",
                "customerId": customer.id,
                "policy": {
                    "permissions": ["VIEW_TRANSACTIONS"],
                    "defaultExecutionMode": "AUTO",
                    "spendingLimits": {"currency": "USD", "perTransactionLimit": 1_00},
                },
            }
        )
        code = created.deviceCode.code
        api.agents.device_code_status(code)
        credentials = api.redeem_device_code(code)
        with pytest.raises(ApiError) as used:
            api.redeem_device_code(code)
        agent = api.with_agent_token(credentials)
        agent.agent.me()
        agent.close()
        api.revoke_session(plain.id, session=session)
        shown += [repr(api), repr(session), repr(plain), repr(exported), repr(credentials)]
        shown += [str(used.value), repr(used.value)]
    finally:
        api.close()
    # No answer at all, for a call whose path holds a secret.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    retry = RetryPolicy(max_retries=1, backoff=0.01)
    options = client_options(server, signer_key, event_hook=events.append, retry=retry)
    dead = make_client(mode, f"http://127.0.0.1:{port}/2025-10-13", **options)
    try:
        with pytest.raises(ApiError) as unreachable:
            dead.redeem_device_code(code)
    finally:
        dead.close()
    assert unreachable.value.code == "TRANSPORT"
    shown += [str(unreachable.value), repr(unreachable.value), *map(repr, events)]

    # What must not show: everything secret that went over the wire, and what the flows hold.
    secrets = set(tap.secrets)
    secrets |= {
        server.auth[1],
        base64.b64encode(":".join(server.auth).encode()).decode(),
        session.signer.private_key_bytes().hex(),
        plain.signer.private_key_bytes().hex(),
        exported.mnemonic or "",
        credentials.access_token,
        code,
    }
    secrets.discard("")
    assert len(secrets) >= 15, secrets  # the tap saw the flows' secrets
    assert any(len(s) == 6 and s.isdigit() for s in secrets)  # an OTP code among them
    logged = caplog.text
    assert "POST" in logged and "[REDACTED]" in "".join(shown)
    for secret in secrets:
        assert secret not in logged, secret[:4]
        for text in shown:
            assert secret not in text, (secret[:4], text[:80])
    assert any(e.request_headers.get("Authorization") == "[REDACTED]" for e in events)
    assert any(e.request_headers.get("Service-Wallet-Signature") == "[REDACTED]" for e in events)
    assert any("/device-codes/[REDACTED]/" in e.path for e in events)
