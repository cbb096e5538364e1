"""The sandbox service (``ewc serve``): the service interface, runnable on a laptop.

Needs the ``sandbox`` extra: ``pip install "embedded-wallet-crypto[sandbox]"``.

>>> from embedded_wallet_crypto.sandbox import Settings, create_app
>>> app = create_app(Settings(database="sqlite:///sandbox.db"))  # an ASGI application

The package in layers (``docs/architecture.md``): ``api`` (the routes), ``deps`` (their
dependencies), ``domain`` (the rules), ``db`` (storage), ``models`` (the request and response
bodies, on pydantic alone).

Only ``models`` loads without the sandbox extra (the ``client`` extra brings pydantic): the
service's client reads its answers into the same models. The names below (and every other
module) need the extra; asking for one without it raises an ImportError that names it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import BASE_PATH, create_app
    from .settings import Settings

__all__ = ["BASE_PATH", "Settings", "create_app"]

_HOMES = {"BASE_PATH": ".app", "create_app": ".app", "Settings": ".settings"}


def require_extra() -> None:
    """Raise the ImportError that names the sandbox extra when one of its packages is missing.

    Raises:
        ImportError: FastAPI, fastapi-offline, SQLAlchemy or uvicorn is not installed.
    """
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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require_extra()
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
