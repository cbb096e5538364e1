"""The request and response bodies of the service, one module per area, on pydantic alone (no
web framework, no database): the routes declare them, the rules read the parsed requests, and
the service's client (``ewc.client``) reads its answers into the same models.

Loads with either the ``client`` or the ``sandbox`` extra (both bring pydantic)."""

from __future__ import annotations

try:
    import pydantic  # noqa: F401
except ImportError as missing:  # pragma: no cover - exercised by test_packaging
    raise ImportError(
        f"the service's models need pydantic ({missing.name} is missing): "
        'pip install "embedded-wallet-crypto[client]" (or [sandbox])'
    ) from None
