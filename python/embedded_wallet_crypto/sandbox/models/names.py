"""The field names the interface gave differently from the published document, in one table.

``ewc serve --names published`` answers with the published names (the serialization step:
:func:`to_published`); requests and the models here accept either spelling in both modes
(:func:`either`). On pydantic alone, so that a client can read the same table.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices

__all__ = [
    "NAMES",
    "OUTGOING_STATUSES",
    "RENAMED",
    "either",
    "published_resource",
    "to_interface",
    "to_published",
]

#: The two modes of ``ewc serve --names``: the interface's names (default) or the published
#: document's.
NAMES = ("interface", "published")

#: Interface name -> published name, for every field the interface renamed.
RENAMED: dict[str, str] = {
    "serviceApiMultiplier": "gridApiMultiplier",
    "serviceApiFixedFee": "gridApiFixedFee",
    "serviceApiVariableFeeRate": "gridApiVariableFeeRate",
    "serviceApiVariableFeeAmount": "gridApiVariableFeeAmount",
}

_BACK = {published: interface for interface, published in RENAMED.items()}


def _renamed(body: Any, table: dict[str, str]) -> Any:
    if isinstance(body, dict):
        return {table.get(key, key): _renamed(value, table) for key, value in body.items()}
    if isinstance(body, list):
        return [_renamed(value, table) for value in body]
    return body


def to_published(body: Any) -> Any:
    """``body`` (parsed JSON) with every interface name of :data:`RENAMED` replaced by the
    published one, at any depth."""
    return _renamed(body, RENAMED)


#: An outgoing transaction's status the interface has and the published
#: ``OutgoingTransactionStatus`` does not -> the published one. A payment the receiving side
#: rejected or that was refunded is ``FAILED`` there; its ``refund`` (and the webhook's type,
#: ``OUTGOING_PAYMENT.REFUND_COMPLETED``) tells the rest.
OUTGOING_STATUSES: dict[str, str] = {"REJECTED": "FAILED", "REFUNDED": "FAILED"}


def published_resource(body: Any) -> Any:
    """``body`` (parsed JSON) as ``--names published`` answers it: :func:`to_published`, and
    every outgoing transaction's status of :data:`OUTGOING_STATUSES` the published one."""
    return _outgoing(to_published(body))


def _outgoing(body: Any) -> Any:
    if isinstance(body, list):
        return [_outgoing(value) for value in body]
    if not isinstance(body, dict):
        return body
    found = {key: _outgoing(value) for key, value in body.items()}
    status = found.get("status")
    if (
        found.get("type") == "OUTGOING"
        and str(found.get("id", "")).startswith("Transaction:")
        and isinstance(status, str)
        and status in OUTGOING_STATUSES
    ):
        found["status"] = OUTGOING_STATUSES[status]
    return found


def to_interface(body: Any) -> Any:
    """The reverse of :func:`to_published`."""
    return _renamed(body, _BACK)


def either(interface_name: str) -> AliasChoices:
    """A model field's validation alias: the interface's name or its published one."""
    return AliasChoices(interface_name, RENAMED.get(interface_name, interface_name))
