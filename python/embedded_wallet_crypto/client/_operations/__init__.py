"""The operation table: every operation of the service, one line each, grouped as the
service's published document groups them (its tags), in one module per area (:data:`AREAS`:
``platform``, ``customers``, ``payments``...), whose rows and groups are concatenated here. A
group belongs to one area. A new operation is one more row in its area's module (a new area,
one more module in :data:`AREAS`); the typed groups (``_group_types``) are generated from the
table by ``scripts/client_group_types.py``.

A row names the group (the client attribute: ``client.quotes``), the method's name in it
(``execute``), the HTTP method and path template (relative to the base URL, which ends with the
version segment), the published document's ``operationId``, and whether the operation is
idempotent. A non-idempotent operation carries an ``Idempotency-Key`` that the client
generates once per call and reuses across its retries. The options say who authenticates
(``platform``: HTTP Basic; ``agent``: the agent's Bearer token; ``none``), how it is signed
(``retry``: the 202 signed retry; ``payload``: a ``Service-Wallet-Signature`` over the
``payloadToSign`` of the resource ``payload_from`` reads), whether it lists pages, which path
parameters are secrets (kept out of logs), which body key a signed payload must bind, and the
model its answer is read into: the service's own response model (``ewc.sandbox.models``, on
pydantic alone), the one its routes declare, so that the two cannot drift.
"""

from __future__ import annotations

from . import agents, cards, customers, payments, platform, sandbox, sca, wallet
from ._row import Auth, Operation, Signing

__all__ = [
    "AREAS",
    "GROUPS",
    "OPERATIONS",
    "Auth",
    "Operation",
    "Signing",
    "operation",
    "operations_of",
]

#: The table's areas, in order: each a module with its ``GROUPS`` and ``ROWS``.
AREAS = (platform, customers, payments, cards, wallet, sca, agents, sandbox)

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {group: tag for area in AREAS for group, tag in area.GROUPS.items()}
#: Every operation the service serves; a new one is one more row of its area's ``ROWS``.
OPERATIONS: tuple[Operation, ...] = tuple(row for area in AREAS for row in area.ROWS)
_BY_NAME = {op.qualified_name: op for op in OPERATIONS}


def operation(qualified_name: str) -> Operation:
    """The operation ``group.name`` of the table.

    Raises:
        KeyError: there is none.
    """
    return _BY_NAME[qualified_name]


def operations_of(group: str) -> tuple[Operation, ...]:
    """The rows of one group, in table order."""
    return tuple(op for op in OPERATIONS if op.group == group)
