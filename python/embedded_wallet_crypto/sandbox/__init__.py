"""The sandbox service (``ewc serve``): the service interface, runnable on a laptop.

Needs the ``sandbox`` extra: ``pip install "embedded-wallet-crypto[sandbox]"``.

>>> from embedded_wallet_crypto.sandbox import Settings, create_app
>>> app = create_app(Settings(database="sqlite:///sandbox.db"))  # an ASGI application

The package in layers (``docs/architecture.md``): ``api`` (the routes), ``deps`` (their
dependencies), ``domain`` (the rules), ``db`` (storage), ``models`` (the request and response
bodies, on pydantic alone).
"""

from __future__ import annotations

try:
    import fastapi  # noqa: F401
    import fastapi_offline  # noqa: F401
    import sqlalchemy  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as missing:  # pragma: no cover - exercised by the clean-room script
    raise ImportError(
        f"the sandbox service needs the sandbox extra ({missing.name} is missing): "
        'pip install "embedded-wallet-crypto[sandbox]"'
    ) from None

from .app import BASE_PATH, create_app
from .settings import Settings

__all__ = ["BASE_PATH", "Settings", "create_app"]
