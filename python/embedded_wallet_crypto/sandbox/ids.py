"""Resource identifiers of the form ``<Kind>:<id>`` (the interface's Resources)."""

from __future__ import annotations

import uuid

__all__ = ["id_part", "new_id"]


def new_id(kind: str) -> str:
    """A fresh ``Kind:<uuid4>`` identifier."""
    return f"{kind}:{uuid.uuid4()}"


def id_part(identifier: str, *kinds: str) -> str | None:
    """The ``<id>`` of ``Kind:<id>`` when ``Kind`` is one of ``kinds``; None otherwise."""
    kind, separator, rest = identifier.partition(":")
    if not separator or kind not in kinds or not rest:
        return None
    return rest
