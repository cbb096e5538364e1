"""What the webhook tests share: the published document's webhook schemas (read from
``$EWC_GRID_OPENAPI`` or ``../shared/spec/grid-openapi.yaml`` next to the checkout; missing, the
tests skip, and fail under ``CI=true``), the published signature check, a scripted receiver (a
real HTTP server) and the events list."""

from __future__ import annotations

import base64
import http.server
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from _ci import skip_or_fail

from ._client import SandboxClient
from ._server import SandboxServer

REPO = Path(__file__).resolve().parents[2]
GRID_DEFAULT = REPO.parent / "shared" / "spec" / "grid-openapi.yaml"

#: The published webhook (its ``webhooks:`` name) of each event type's resource.
WEBHOOK_OF = {
    "OUTGOING_PAYMENT": "outgoing-payment",
    "INCOMING_PAYMENT": "incoming-payment",
    "AGENT_ACTION": "agent-action",
    "TEST": "test-webhook",
    "BULK_UPLOAD": "bulk-upload",
    "INVITATION": "invitation-claimed",
    "CUSTOMER": "customer-update",
    "INTERNAL_ACCOUNT": "internal-account-status",
    "EXTERNAL_ACCOUNT": "external-account-status",
    "VERIFICATION": "verification-update",
}


def grid_document() -> dict[str, Any]:
    """The published document (skip, or fail under CI=true, when it is missing)."""
    override = os.environ.get("EWC_GRID_OPENAPI")
    path = Path(override) if override else GRID_DEFAULT
    if not path.is_file():
        skip_or_fail(f"the published OpenAPI is not at {path} (EWC_GRID_OPENAPI)")
    return _load(str(path))


@cache
def _load(path: str) -> dict[str, Any]:
    import yaml

    document: dict[str, Any] = yaml.safe_load(Path(path).read_text())
    return document


@cache
def _validator(path: str, webhook: str) -> Any:
    import jsonschema_rs

    document = _load(path)
    operation = document["webhooks"][webhook]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    return jsonschema_rs.Draft202012Validator({**schema, "components": document["components"]})


#: The interface's names of the quote's rate fields -> the published ones: ``data`` is the
#: resource as the API answers it, and the service answers the interface's names unless it runs
#: with the published names.
RENAMED = {
    "serviceApiMultiplier": "gridApiMultiplier",
    "serviceApiFixedFee": "gridApiFixedFee",
    "serviceApiVariableFeeRate": "gridApiVariableFeeRate",
    "serviceApiVariableFeeAmount": "gridApiVariableFeeAmount",
}


def published_names(body: Any) -> Any:
    """``body`` with the interface's field names (``RENAMED``) replaced by the published ones."""
    if isinstance(body, dict):
        return {RENAMED.get(key, key): published_names(value) for key, value in body.items()}
    if isinstance(body, list):
        return [published_names(value) for value in body]
    return body


def published_errors(event: dict[str, Any], *, rename: bool = True) -> list[str]:
    """Why ``event`` (its rate fields under their published names, unless ``rename`` is False:
    then as it is) does not validate against the published webhook schema of its type."""
    grid_document()
    override = os.environ.get("EWC_GRID_OPENAPI")
    path = str(Path(override) if override else GRID_DEFAULT)
    webhook = WEBHOOK_OF[event["type"].split(".", 1)[0]]
    body = published_names(event) if rename else event
    return [str(e) for e in _validator(path, webhook).iter_errors(body)]


def verify_published(header: str, body: bytes, public_key_pem: str) -> None:
    """The published verification: the header's base64 signature (inside ``{"v","s"}`` JSON, or
    the header itself), ECDSA P-256 with SHA-256 over the raw body, the public key (SPKI PEM).
    Raises ``cryptography``'s InvalidSignature when it does not verify."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        parsed = json.loads(header)
        encoded = parsed["s"] if isinstance(parsed, dict) and parsed.get("v") else header
    except ValueError:
        encoded = header
    key = serialization.load_pem_public_key(public_key_pem.encode())
    assert isinstance(key, ec.EllipticCurvePublicKey)
    key.verify(base64.b64decode(encoded), body, ec.ECDSA(hashes.SHA256()))


class Hooks:
    """A receiver that answers each event type from a script: ``script[type]`` is a list of
    ``(status, body)`` answered in turn (the last one repeats); 200 with no body otherwise.
    ``delay`` seconds before each answer; ``hold``, when set, is called with each event
    before its answer (it may block, to hold the answer back)."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.script: dict[str, list[tuple[int, dict[str, Any] | None]]] = {}
        self.lock = threading.Lock()
        self.url = ""
        self.delay = 0.0
        self.hold: Callable[[dict[str, Any]], None] | None = None

    def events(self, event_type: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            bodies = [json.loads(body) for _, body in self.requests]
        return [b for b in bodies if event_type is None or b["type"] == event_type]

    def answer(self, event: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        with self.lock:
            queue = self.script.get(event["type"], [])
            if len(queue) > 1:
                return queue.pop(0)
            return queue[0] if queue else (200, None)


@contextmanager
def hooks_server() -> Iterator[Hooks]:
    hooks = Hooks()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with hooks.lock:
                hooks.requests.append((dict(self.headers.items()), body))
            if hooks.delay:
                time.sleep(hooks.delay)
            if hooks.hold is not None:
                hooks.hold(json.loads(body))
            status, answer = hooks.answer(json.loads(body))
            raw = b"" if answer is None else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    hooks.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hooks
    finally:
        server.shutdown()
        server.server_close()


def poll(fetch: Callable[[], Any], done: Callable[[Any], bool], timeout: float = 120) -> Any:
    """``fetch()`` until ``done`` holds (the timeout only guards against a hang)."""
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def event(client: SandboxClient, event_id: str) -> dict[str, Any]:
    """One event of ``GET /sandbox/events`` (searched page by page)."""
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 100}
        if cursor:
            params["cursor"] = cursor
        listed = client.get("/sandbox/events", params=params)
        assert listed.status_code == 200, listed.text
        body = listed.json()
        for item in body["data"]:
            if item["id"] == event_id:
                found: dict[str, Any] = item
                return found
        cursor = body.get("nextCursor")
        assert cursor, f"{event_id} is not listed"


def settled_event(client: SandboxClient, event_id: str) -> dict[str, Any]:
    """The event once no attempt is due any more."""
    found: dict[str, Any] = poll(
        lambda: event(client, event_id), lambda e: e["status"] != "PENDING"
    )
    return found


def trigger(client: SandboxClient, event_type: str, data: dict[str, Any] | None = None) -> str:
    body: dict[str, Any] = {"type": event_type}
    if data is not None:
        body["data"] = data
    made = client.post("/sandbox/events/trigger", body)
    assert made.status_code == 201, made.text
    event_id: str = made.json()["id"]
    return event_id


@contextmanager
def hooked_server(root: Path, hooks: Hooks, **options: Any) -> Iterator[SandboxServer]:
    """An ``ewc serve`` (``options`` as :class:`SandboxServer` takes them) whose webhook
    endpoint is ``hooks``; it must stop cleanly."""
    running = SandboxServer(root, **options)
    running.start()
    api = SandboxClient(running.base_url, running.auth)
    try:
        patched = api.request("PATCH", "/config", json={"webhookEndpoint": hooks.url})
        assert patched.status_code == 200, patched.text
    finally:
        api.close()
    yield running
    assert running.stop() == 0
