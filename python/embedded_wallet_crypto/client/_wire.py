"""What the client sends and reads, independent of sync or async I/O: the settings
(:class:`ClientConfig`), one request as the flows describe it (:class:`Call`), one answer
(:class:`Reply`), the headers, the JSON, and the errors of an answer."""

from __future__ import annotations

import base64
import json
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._native import __version__
from ._errors import ClientError, error_from_body
from ._operations import Operation
from ._retry import RetryPolicy

if TYPE_CHECKING:
    from ._events import RequestEvent

__all__ = ["Call", "ClientConfig", "Reply", "check_base_url", "encode_json"]

SIGNATURE_HEADER = "Service-Wallet-Signature"
_VERSION = re.compile(r"/\d{4}-\d{2}-\d{2}$")
USER_AGENT = f"embedded-wallet-crypto/{__version__} (python client)"


def check_base_url(base_url: object) -> str:
    """The base URL without a trailing slash; it must be http(s) and end with the version
    segment (``https://api.example.com/2025-10-13``).

    Raises:
        TypeError: not a ``str``.
        ClientError: ``BASE_URL_INVALID``.
    """
    if not isinstance(base_url, str):
        raise TypeError(f"base_url must be a str, not {type(base_url).__name__}")
    url = base_url.rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(
            "base_url must be an http or https URL, such as https://api.example.com/2025-10-13",
            "BASE_URL_INVALID",
        )
    if parts.query or parts.fragment or not _VERSION.search(parts.path):
        raise ClientError(
            "base_url must end with the interface's version segment, such as "
            "https://api.example.com/2025-10-13 (no query, no fragment)",
            "BASE_URL_INVALID",
        )
    return url


def _credentials(platform_credentials: object) -> str | None:
    if platform_credentials is None:
        return None
    if (
        not isinstance(platform_credentials, tuple)
        or len(platform_credentials) != 2
        or not all(isinstance(part, str) for part in platform_credentials)
    ):
        raise TypeError("platform_credentials must be a tuple (id, secret) of two str")
    identifier, secret = platform_credentials
    if not identifier or not secret or ":" in identifier:
        raise ClientError(
            "platform_credentials must be a non-empty id without ':' and a non-empty secret",
            "INVALID_SETTING",
        )
    token = base64.b64encode(f"{identifier}:{secret}".encode()).decode("ascii")
    return f"Basic {token}"


def bearer(agent_token: object) -> str | None:
    if agent_token is None:
        return None
    if not isinstance(agent_token, str):
        raise TypeError(f"agent_token must be a str, not {type(agent_token).__name__}")
    if not agent_token or not agent_token.isascii() or not agent_token.isprintable():
        raise ClientError("agent_token must be printable ASCII text", "INVALID_SETTING")
    return f"Bearer {agent_token}"


@dataclass(frozen=True)
class ClientConfig:
    """A client's settings; the secret header values never show in its ``repr``."""

    base_url: str
    sandbox: bool
    timeout: float
    retry: RetryPolicy
    platform_authorization: str | None = field(default=None, repr=False)
    agent_authorization: str | None = field(default=None, repr=False)
    signer_public_key: str | None = None
    webhook_public_key: str | None = None
    event_hook: Callable[[RequestEvent], None] | None = None

    @classmethod
    def build(
        cls,
        base_url: object,
        *,
        platform_credentials: object,
        agent_token: object,
        timeout: object,
        max_retries: object,
        sandbox: object,
        signer_public_key: object,
        webhook_public_key: object,
        retry: RetryPolicy | None,
        event_hook: Callable[[RequestEvent], None] | None,
    ) -> ClientConfig:
        if not isinstance(sandbox, bool):
            raise TypeError(f"sandbox must be True or False, not {type(sandbox).__name__}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number, not {type(timeout).__name__}")
        if not 0 < timeout <= 3600:
            raise ClientError("timeout must be more than 0 and at most 3600 s", "INVALID_SETTING")
        if retry is None:
            if isinstance(max_retries, bool) or not isinstance(max_retries, int):
                raise TypeError(f"max_retries must be an int, not {type(max_retries).__name__}")
            retry = RetryPolicy(max_retries=max_retries)
        elif not isinstance(retry, RetryPolicy):
            raise TypeError(f"retry must be a RetryPolicy, not {type(retry).__name__}")
        for name, value in (
            ("signer_public_key", signer_public_key),
            ("webhook_public_key", webhook_public_key),
        ):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{name} must be a str, not {type(value).__name__}")
        if event_hook is not None and not callable(event_hook):
            raise TypeError("event_hook must be callable")
        return cls(
            base_url=check_base_url(base_url),
            sandbox=sandbox,
            timeout=float(timeout),
            retry=retry,
            platform_authorization=_credentials(platform_credentials),
            agent_authorization=bearer(agent_token),
            signer_public_key=signer_public_key,  # type: ignore[arg-type]
            webhook_public_key=webhook_public_key,  # type: ignore[arg-type]
            event_hook=event_hook,
        )


def encode_json(body: object) -> bytes:
    """The request body's bytes: compact JSON, encoded once, so that a signed retry repeats
    its first request byte for byte. A model with ``model_dump`` (pydantic) is dumped first.

    Raises:
        TypeError: the body is not JSON-serialisable.
    """
    dump = getattr(body, "model_dump", None)
    if callable(dump):
        body = dump(mode="json", by_alias=True, exclude_none=True)
    try:
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise TypeError(f"the request body is not JSON: {error}") from None
    return text.encode("utf-8")


def query_params(params: Mapping[str, object] | None) -> tuple[tuple[str, str], ...]:
    """Query parameters as text pairs: None values dropped, booleans ``true``/``false``."""
    pairs: list[tuple[str, str]] = []
    for name, value in (params or {}).items():
        if value is None:
            continue
        if isinstance(value, bool):
            pairs.append((name, "true" if value else "false"))
        elif isinstance(value, (str, int)):
            pairs.append((name, str(value)))
        else:
            raise TypeError(f"query parameter {name} must be str, int or bool")
    return tuple(pairs)


def new_idempotency_key() -> str:
    return f"ewc-{uuid.uuid4()}"


@dataclass(frozen=True)
class Call:
    """One request of a flow; the client sends it, with retries, and hands back its
    :class:`Reply` (or raises its :class:`ApiError`).

    ``accept`` lists error statuses handed back as a Reply instead of raised.
    """

    operation: Operation
    path: str
    content: bytes | None = None
    params: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    idempotency_key: str | None = None
    secrets: tuple[str, ...] = field(default=(), repr=False)
    accept: frozenset[int] = frozenset()

    def with_headers(self, *headers: tuple[str, str], idempotency_key: str | None) -> Call:
        return Call(
            self.operation,
            self.path,
            self.content,
            self.params,
            self.headers + headers,
            idempotency_key,
            self.secrets,
            self.accept,
        )


@dataclass(frozen=True)
class Reply:
    """One answer: its status, headers (lower-case names) and body (parsed JSON, text, or
    None when empty)."""

    status: int
    headers: Mapping[str, str]
    data: Any


def encode_form(body: object) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body and its Content-Type (encoded by httpx, once, so that a
    retry repeats it byte for byte): ``body`` maps text fields to strings, and ``file`` to
    ``(file name, bytes)`` (required: the service's forms all carry one).

    Raises:
        TypeError: ``body`` is not such a mapping.
    """
    import httpx  # the client's own dependency (the ``client`` extra)

    if not isinstance(body, Mapping) or "file" not in body:
        raise TypeError("a form body must be a mapping with a file: (file name, bytes)")
    fields: dict[str, str] = {}
    files: dict[str, tuple[str, bytes]] = {}
    for name, value in body.items():
        if name == "file":
            if not (
                isinstance(value, tuple)
                and len(value) == 2
                and isinstance(value[0], str)
                and isinstance(value[1], (bytes, bytearray))
            ):
                raise TypeError("the form's file must be (file name, bytes)")
            files["file"] = (value[0], bytes(value[1]))
        elif isinstance(name, str) and isinstance(value, str):
            fields[name] = value
        else:
            raise TypeError(f"the form field {name!r} must be a str")
    request = httpx.Request("POST", "http://form.invalid/", data=fields, files=files)
    return request.read(), request.headers["Content-Type"]


def request_headers(config: ClientConfig, call: Call) -> dict[str, str]:
    """The headers of ``call``: authentication by the operation's ``auth``, JSON content,
    the Idempotency-Key, and the flow's own (signature, Request-Id).

    Raises:
        ClientError: ``PLATFORM_CREDENTIALS_REQUIRED`` or ``AGENT_TOKEN_REQUIRED``.
    """
    headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
    auth = call.operation.auth
    if auth == "platform":
        if config.platform_authorization is None:
            raise ClientError(
                f"{call.operation.qualified_name} needs platform_credentials",
                "PLATFORM_CREDENTIALS_REQUIRED",
            )
        headers["Authorization"] = config.platform_authorization
    elif auth == "agent":
        if config.agent_authorization is None:
            raise ClientError(
                f"{call.operation.qualified_name} needs an agent_token", "AGENT_TOKEN_REQUIRED"
            )
        headers["Authorization"] = config.agent_authorization
    if call.content is not None:
        headers["Content-Type"] = "application/json"
    if call.idempotency_key is not None:
        headers["Idempotency-Key"] = call.idempotency_key
    headers.update(call.headers)
    return headers


def read_reply(status: int, headers: Mapping[str, str], content: bytes) -> Reply:
    """An answer's :class:`Reply`: JSON when it says so (or looks like it), text otherwise."""
    lowered = {name.lower(): value for name, value in headers.items()}
    data: Any = None
    if content:
        kind = lowered.get("content-type", "")
        text = content.decode("utf-8", errors="replace")
        if "json" in kind or kind == "":
            try:
                data = json.loads(text)
            except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
                data = text
        else:
            data = text
    return Reply(status, lowered, data)


def error_code(reply: Reply) -> str | None:
    code = reply.data.get("code") if isinstance(reply.data, dict) else None
    return code if isinstance(code, str) else None


def raise_for_error(
    call: Call, reply: Reply, retry_after: float | None, secrets: tuple[str, ...] = ()
) -> Reply:
    """``reply`` when it is a success (or an accepted error); its ApiError otherwise (a
    redirect too: the client follows none, so that no credential goes to another host),
    with the request's ``secrets`` redacted."""
    if reply.status < 300 or reply.status in call.accept:
        return reply
    operation = call.operation.qualified_name
    raise error_from_body(reply.status, reply.data, operation, retry_after, secrets)
