"""``ewc serve --names published``: the one serialization step from the interface's answers to
the published document's.

:class:`PublishedAnswers` wraps the whole service (outside the request gate, so that its 401
and 413 answers pass through it too) and rewrites every JSON answer once it is complete: the
fields of :data:`~.models.names.RENAMED` under their published names, and an error body
``{"status", "code", "reason"}`` as the published ``ErrorNNN`` (``error_codes``). Everything
else (the page, the explorer, the OpenAPI document, which the app makes per mode) passes
through untouched. The routes, the rules and what is stored keep the interface's names, so
that a database serves both modes alike (an ``Idempotency-Key``'s stored answer too).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .error_codes import published_error, published_status
from .models.names import RENAMED, published_resource, to_published

__all__ = ["PUBLISHED_ERROR_SCHEMA", "PublishedAnswers", "published_body", "published_document"]

#: The error body of ``--names published`` in the served OpenAPI document (the published
#: ``ErrorNNN`` schemas have these fields; their codes are listed per status there).
PUBLISHED_ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "required": ["status", "code", "message"],
    "properties": {
        "status": {"type": "integer", "title": "Status"},
        "code": {"type": "string", "title": "Code"},
        "message": {"type": "string", "title": "Message"},
        "details": {"type": "object", "title": "Details", "additionalProperties": True},
    },
    "description": "Every error body with --names published: the published document's code "
    "for the status, the reason as message, the service's own code as details.sandboxCode.",
}


def published_body(status: int, body: Any, path: str = "", method: str = "") -> Any:
    """An answer's parsed JSON body as ``--names published`` answers it (to a request
    ``method path``)."""
    if _is_error(status, body):
        return published_error(body, path, method)
    return published_resource(body)


def _is_error(status: int, body: Any) -> bool:
    return status >= 400 and isinstance(body, dict) and set(body) == {"status", "code", "reason"}


class PublishedAnswers:
    """ASGI middleware: the JSON answers of ``app`` in the published names and error shape,
    except under the paths in ``skip`` (see the module)."""

    def __init__(self, app: ASGIApp, *, skip: tuple[str, ...] = ()) -> None:
        self.app = app
        self.skip = skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].endswith(self.skip):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def rewrite(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=list(message["headers"]))
                if headers.get("content-type", "").startswith("application/json"):
                    start = message  # held until the whole body is here
                    return
            elif message["type"] == "http.response.body" and start is not None:
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                status, body = _rewritten(
                    start["status"], b"".join(chunks), scope["path"], scope["method"]
                )
                headers = MutableHeaders(raw=list(start["headers"]))
                headers["content-length"] = str(len(body))
                await send({**start, "status": status, "headers": headers.raw})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, rewrite)


def published_document(document: dict[str, Any]) -> dict[str, Any]:
    """The service's OpenAPI document as ``--names published`` serves it: the published names
    in every schema (properties and required lists) and the published error body."""
    renamed: dict[str, Any] = to_published(document)
    schemas = renamed.get("components", {}).get("schemas", {})
    for schema in schemas.values():
        if isinstance(schema.get("required"), list):
            schema["required"] = [RENAMED.get(name, name) for name in schema["required"]]
    if "ErrorOut" in schemas:
        schemas["ErrorOut"] = PUBLISHED_ERROR_SCHEMA
    return renamed


def _rewritten(status: int, raw: bytes, path: str, method: str) -> tuple[int, bytes]:
    """The status and body of an answer as ``--names published`` sends them."""
    try:
        body = json.loads(raw)
    except ValueError:  # not JSON after all: as it is
        return status, raw
    if _is_error(status, body):
        status = published_status(status, str(body["code"]), method, path)
    return status, json.dumps(
        published_body(status, body, path, method),
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    ).encode()
