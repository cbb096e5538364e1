"""What :class:`Client` and :class:`AsyncClient` share: their arguments, made into one
:class:`ClientConfig`, and the properties read from it. Each subclass opens its own httpx client
and groups in ``_open`` (blocking or async); the I/O loops stay in the subclasses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from ._events import RequestEvent
from ._retry import RetryPolicy
from ._wire import ClientConfig

__all__ = ["ClientBase"]

TransportT = TypeVar("TransportT")


class ClientBase(Generic[TransportT]):
    """The arguments and settings of a client (see :class:`Client` for each argument)."""

    _settings: ClientConfig
    _transport: TransportT | None
    _webhook_key: str | None

    def __init__(
        self,
        base_url: str,
        *,
        platform_credentials: tuple[str, str] | None = None,
        agent_token: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        sandbox: bool = False,
        signer_public_key: str | None = None,
        webhook_public_key: str | None = None,
        retry: RetryPolicy | None = None,
        event_hook: Callable[[RequestEvent], None] | None = None,
        transport: TransportT | None = None,
    ) -> None:
        settings = ClientConfig.build(
            base_url,
            platform_credentials=platform_credentials,
            agent_token=agent_token,
            timeout=timeout,
            max_retries=max_retries,
            sandbox=sandbox,
            signer_public_key=signer_public_key,
            webhook_public_key=webhook_public_key,
            retry=retry,
            event_hook=event_hook,
        )
        self._setup(settings, transport)

    def _setup(self, settings: ClientConfig, transport: TransportT | None) -> None:
        self._settings = settings
        self._transport = transport
        self._webhook_key = settings.webhook_public_key
        self._open(settings, transport)

    def _open(self, settings: ClientConfig, transport: TransportT | None) -> None:
        """Open the httpx client and the operation groups (blocking or async)."""
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    @property
    def is_sandbox(self) -> bool:
        """Whether the client accepts what only a sandbox sends."""
        return self._settings.sandbox

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, sandbox={self.is_sandbox})"
