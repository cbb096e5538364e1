"""``AsyncClient``: the service's client for asyncio (httpx), with the same flows and
operations as ``Client``, each a coroutine."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import Any, TypeVar

import httpx

from ..keys import KeyPair
from ..sandbox.models.quotes import QuoteOut
from ..sandbox.models.wallet import AuthMethodWithBundle
from ._base import ClientBase
from ._errors import ClientError
from ._flows import (
    Effect,
    Flow,
    export_flow,
    operation_flow,
    redeem_flow,
    webhook_key_flow,
)
from ._group_types import ASYNC_GROUPS, AsyncGroups
from ._groups import AsyncGroup, with_agent
from ._login import (
    add_credential_flow,
    login_email_otp_flow,
    login_oauth_flow,
    login_passkey_flow,
    register_passkey_flow,
    relying_party,
)
from ._operations import GROUPS, operation
from ._results import (
    AgentCredentials,
    ExportedWallet,
    PasskeyAuthenticator,
    PasskeyRegistrar,
    WalletSession,
)
from ._transport import (
    AnswerBody,
    after_answer,
    after_transport_error,
    after_unreadable,
    client_options,
)
from ._webhooks import verify_event
from ._wire import Call, ClientConfig, Reply, request_headers

__all__ = ["AsyncClient"]

T = TypeVar("T")


class AsyncClient(ClientBase[httpx.AsyncBaseTransport], AsyncGroups):
    """The service's client for asyncio: the arguments, operations and flows of
    :class:`Client`, each a coroutine (``await client.quotes.get(quote_id)``; lists page with
    ``async for``). Callbacks (``read_otp``, an authenticator, an OIDC token source) may be
    coroutine functions.

    Args:
        base_url: the service's URL with its version segment
            (``https://api.example.com/2025-10-13``); one without it is refused.
        platform_credentials: ``(id, secret)``, sent as HTTP Basic to platform endpoints.
        agent_token: an agent's access token, sent as Bearer to ``/agents/me`` endpoints.
        timeout: seconds for each try of a request (connect, read, write, pool).
        max_retries: tries after the first, on 429, 502, 503, 504 and on no answer.
        sandbox: accept what only a sandbox sends (unsigned export envelopes and OTP target
            bundles). Never set it against a production service.
        signer_public_key: the key the service signs export envelopes and OTP target bundles
            with (hex); default: the real service's keys.
        webhook_public_key: the webhooks' verification key (SPKI PEM); default: fetched once
            from ``GET /sandbox/webhook-public-key``.
        retry: the whole retry policy (overrides ``max_retries``).
        event_hook: called with a :class:`RequestEvent` after every try (secrets redacted).
        transport: an httpx transport (a proxy, a mock) instead of the network's; a client
            made by :meth:`with_agent_token` shares it.

    Every operation of the service is a method of its group, one attribute per tag of the
    service's published API reference (``client.quotes.execute(quote_id, session=...)``); the
    table of them is :data:`OPERATIONS`.
    """

    def _open(self, settings: ClientConfig, transport: httpx.AsyncBaseTransport | None) -> None:
        self._http = httpx.AsyncClient(transport=transport, **client_options(settings))  # type: ignore[arg-type]
        for group in GROUPS:
            setattr(self, group, ASYNC_GROUPS.get(group, AsyncGroup)(self, group))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- the driver --------------------------------------------------------------------

    async def _send(self, call: Call) -> Reply:
        settings = self._settings
        headers = request_headers(settings, call)
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            body = AnswerBody(settings, call, started)
            try:
                async with self._http.stream(
                    call.operation.method,
                    call.path,
                    content=call.content,
                    params=call.params,
                    headers=headers,
                ) as response:
                    async for chunk in response.aiter_bytes():
                        body.add(chunk)
            except httpx.TransportError as error:
                wait = after_transport_error(settings, call, headers, attempt, error, started)
            except (ClientError, httpx.DecodingError) as error:
                status = response.status_code
                raise after_unreadable(
                    settings, call, headers, attempt, status, error, started
                ) from None
            else:
                content = body.content
                reply, wait = after_answer(
                    settings, call, headers, attempt, response, content, started
                )
                if reply is not None:
                    return reply
            await asyncio.sleep(wait)

    async def _run(self, flow: Flow[T]) -> T:
        try:
            step = next(flow)
            while True:
                if isinstance(step, Effect):
                    result = step.function(*step.args, **(step.kwargs or {}))
                    if inspect.isawaitable(result):
                        result = await result
                    step = flow.send(result)
                else:
                    step = flow.send(await self._send(step))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        finally:
            flow.close()

    # --- the flows -----------------------------------------------------------------------

    async def login_email_otp(
        self,
        account_id: str,
        *,
        otp: str | None = None,
        read_otp: Callable[[], str] | None = None,
        session: WalletSession | Any = None,
        encrypted: bool | None = None,
    ) -> WalletSession:
        """Log in with the account's EMAIL_OTP credential (created first when the account
        has none: its first code goes out then).

        Args:
            account_id: the embedded wallet's internal account.
            otp: the code, when you have it already (no new code is asked for).
            read_otp: a callable that returns the code the user received; the client asks
                the service for a fresh code first (unless creating the credential sent one).
            session: a session of the account, to add the credential by signed retry when
                the account has another credential already.
            encrypted: the encrypted login (the code sealed to the service's target bundle,
                a fresh key stamps the verification token and becomes the session key):
                None uses it when the service sends a bundle, True requires it, False never.
        """
        flow = login_email_otp_flow(
            self._settings,
            account_id,
            otp=otp,
            read_otp=read_otp,
            session=session,
            encrypted=encrypted,
        )
        return await self._run(flow)

    async def login_oauth(
        self,
        account_id: str,
        *,
        oidc_token: str | Callable[[str], str],
        client_key: KeyPair | None = None,
        session: WalletSession | Any = None,
    ) -> WalletSession:
        """Log in with the account's OAUTH credential (created first when it has none).

        ``oidc_token`` is a callable that gets the nonce (the client key's, formats.md
        section 7) and returns a fresh ID token with it; or a token already minted for
        ``client_key``'s nonce (``ewc.oidc.nonce_for(client_key.public_key_hex())``).
        """
        flow = login_oauth_flow(
            account_id, oidc_token=oidc_token, client_key=client_key, session=session
        )
        return await self._run(flow)

    async def login_passkey(
        self,
        account_id: str,
        *,
        authenticator: PasskeyAuthenticator,
        rp_id: str | None = None,
        origin: str | None = None,
    ) -> WalletSession:
        """Log in with the account's PASSKEY credential; ``authenticator`` signs the
        challenge for ``rp_id`` and ``origin`` (``ewc.passkeys.SoftwareAuthenticator`` or an
        adapter to a real authenticator). Defaults: the base URL's origin, and its host as
        the RP ID (``localhost`` for an IP address), which is what ``ewc serve`` expects."""
        flow = login_passkey_flow(
            account_id,
            authenticator=authenticator,
            party=relying_party(self._settings, rp_id, origin),
        )
        return await self._run(flow)

    async def register_passkey(
        self,
        account_id: str,
        *,
        authenticator: PasskeyRegistrar,
        nickname: str,
        rp_id: str | None = None,
        origin: str | None = None,
        session: WalletSession | Any = None,
    ) -> AuthMethodWithBundle:
        """Create the account's PASSKEY credential (a signed retry with ``session`` when the
        account has a credential already); returns the AuthMethod."""
        flow = register_passkey_flow(
            account_id,
            authenticator=authenticator,
            nickname=nickname,
            party=relying_party(self._settings, rp_id, origin),
            session=session,
        )
        return AuthMethodWithBundle.model_validate(await self._run(flow))

    async def add_credential(
        self, account_id: str, body: dict[str, Any], *, session: WalletSession | Any
    ) -> AuthMethodWithBundle:
        """Add a credential (``body``: its type's fields; ``accountId`` is set) by signed
        retry with ``session``; returns the AuthMethod."""
        flow = add_credential_flow(account_id, body, session)
        return AuthMethodWithBundle.model_validate(await self._run(flow))

    async def revoke_credential(self, credential_id: str, *, session: WalletSession | Any) -> None:
        """Revoke a credential by signed retry (a session of another credential)."""
        op = operation("auth.revoke_credential")
        await self._run(operation_flow(op, (credential_id,), session=session))

    async def revoke_session(self, session_id: str, *, session: WalletSession | Any) -> None:
        """Revoke a session by signed retry (any active session of the account)."""
        op = operation("auth.revoke_session")
        await self._run(operation_flow(op, (session_id,), session=session))

    async def export_wallet(
        self, account_id: str, *, session: WalletSession | Any
    ) -> ExportedWallet:
        """Export the wallet: the signed retry binds a fresh one-time key, and the envelope
        is verified (its signer pinned) and opened."""
        return await self._run(export_flow(self._settings, account_id, session))

    async def execute_quote(
        self,
        quote_id: str,
        *,
        session: WalletSession | Any = None,
        idempotency_key: str | None = None,
    ) -> QuoteOut:
        """Execute a quote; from an embedded wallet, ``session`` stamps the quote's
        ``payloadToSign``. The Idempotency-Key (given, or made once) is the same on every
        try, so a retried execution executes once."""
        op = operation("quotes.execute")
        flow = operation_flow(op, (quote_id,), idempotency_key=idempotency_key, session=session)
        executed: QuoteOut = await self._run(flow)
        return executed

    async def redeem_device_code(self, code: str) -> AgentCredentials:
        """Redeem an agent's device code (once) for its access token."""
        return await self._run(redeem_flow(code))

    def with_agent_token(self, agent_token: str | AgentCredentials) -> AsyncClient:
        """A new client with the same settings that calls ``/agents/me`` as the agent
        (``agent_token``: the access token, or the redemption's :class:`AgentCredentials`)."""
        other = AsyncClient.__new__(AsyncClient)
        other._setup(with_agent(self._settings, agent_token), self._transport)
        return other

    async def verify_webhook(
        self, headers: Mapping[str, str] | Iterable[tuple[str, str]], body: bytes | str
    ) -> dict[str, Any]:
        """Verify a webhook's ``X-Grid-Signature`` over its raw body and return the event.

        Raises:
            StampError: a missing, malformed or forged signature (a WalletCryptoError).
            DecodeError: a signed body that is not a JSON object.
        """
        if self._webhook_key is None:
            self._webhook_key = await self._run(webhook_key_flow())
        return verify_event(headers, body, self._webhook_key)
