"""One row of the operation table: :class:`Operation` (see the package for the table)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from .._errors import ClientError

__all__ = ["Auth", "Operation", "Signing"]

Auth = Literal["platform", "agent", "none"]
Signing = Literal["none", "retry", "payload"]

_PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Operation:
    """One operation of the service (one row of :data:`OPERATIONS`).

    Attributes:
        group: the client attribute of its group (``quotes``).
        name: its method's name in the group (``execute``).
        method: the HTTP method.
        path: the path template under the base URL (``/quotes/{quoteId}/execute``).
        operation_id: the published document's ``operationId`` (the sandbox's own
            operations have one of the same style).
        idempotent: False when a repeat could act twice: the call carries an
            ``Idempotency-Key``, one per call, the same on every retry.
        auth: ``platform`` (HTTP Basic), ``agent`` (Bearer) or ``none``.
        signing: ``none``, ``retry`` (202 SignedRequestChallenge, then the stamped retry with
            ``Request-Id``) or ``payload`` (the stamp of the ``payloadToSign`` that the
            operation ``payload_from`` reads, sent with the request).
        paginated: a list envelope ``{data, hasMore, nextCursor}`` read page by page.
        secret_params: path parameters that are secrets (a device code): never logged.
        payload_from: for ``payload`` signing, the operation (``group.name``) whose answer
            holds the ``payloadToSign``.
        binds_key: for ``retry`` signing, the body field with a key that the ``payloadToSign``
            must bind (``parameters.targetPublicKey``) before the client stamps it: an export
            is refused if it would go to another key.
        response_model: the type the answer is read into (a pydantic model, a union of
            them, ``str``), validated by pydantic; None for an operation that answers 204.
            A retry-signed operation's 202 is read into ``SignedRequestChallengeOut``.
        multipart: the body is a ``multipart/form-data`` form (a document or CSV upload): a
            mapping of text fields whose ``file`` is ``(file name, bytes)``.
    """

    group: str
    name: str
    method: str
    path: str
    operation_id: str
    idempotent: bool
    auth: Auth = "platform"
    signing: Signing = "none"
    paginated: bool = False
    secret_params: tuple[str, ...] = ()
    payload_from: str | None = None
    binds_key: str | None = None
    response_model: Any = None
    multipart: bool = False

    @property
    def qualified_name(self) -> str:
        """``group.name``, as the client spells it."""
        return f"{self.group}.{self.name}"

    @property
    def path_params(self) -> tuple[str, ...]:
        """The path template's parameters, in order."""
        return tuple(_PARAMETER.findall(self.path))

    def render(self, args: tuple[object, ...]) -> str:
        """The path with ``args`` (percent-encoded) in the template's parameters.

        Raises:
            TypeError: the wrong number of arguments, or one that is not a ``str``.
            ClientError: ``INVALID_ARGUMENT`` for an empty one.
        """
        names = self.path_params
        if len(args) != len(names):
            raise TypeError(
                f"{self.qualified_name}() takes {len(names)} path argument(s) "
                f"({', '.join(names) or 'none'}), not {len(args)}"
            )
        values = iter(args)

        def fill(match: re.Match[str]) -> str:
            value = next(values)
            if not isinstance(value, str):
                raise TypeError(f"{match.group(1)} must be a str, not {type(value).__name__}")
            if not value:
                raise ClientError(f"{match.group(1)} must not be empty", "INVALID_ARGUMENT")
            return quote(value, safe=":@$")

        return _PARAMETER.sub(fill, self.path)

    def secret_values(self, args: tuple[object, ...]) -> tuple[str, ...]:
        """The values of ``args`` that are secrets (to keep out of logs)."""
        return tuple(
            value
            for name, value in zip(self.path_params, args, strict=False)
            if name in self.secret_params and isinstance(value, str)
        )
