"""``ewc trigger`` and ``ewc listen``: the sandbox's webhook events from a shell, as the Stripe
CLI's ``trigger`` and ``listen`` (docs/sandbox-webhooks.md).

``ewc trigger TYPE [--data JSON]`` asks a running sandbox service to emit an event of a
published webhook type (``POST /sandbox/events/trigger``). ``ewc listen --forward-to URL``
prints the webhooks' verification key, then forwards every new event of the service
(``GET /sandbox/events``) to URL with the service's own ``X-Grid-Signature``, printing what URL
answered (the answers decide nothing: the configured ``webhookEndpoint`` still gets its
deliveries). Both talk to ``--base-url`` (default ``$EWC_BASE_URL``, else
``http://localhost:8000/2025-10-13``) with the platform credentials of ``--credentials
ID:SECRET`` or ``$EWC_PLATFORM_CREDENTIALS``. Needs ``httpx`` (the ``client`` or ``sandbox``
extra).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from typing import Any

from ._io import EXIT_FAILED, EXIT_OK, STDIN, UsageError, read_bytes

__all__ = ["add_event_commands"]

DEFAULT_BASE_URL = "http://localhost:8000/2025-10-13"
_SEEN = 10_000  # event ids listen remembers
_PAGES = 10  # pages listen reads per poll when every event on them is new


class ServiceError(Exception):
    """The service refused, or could not be reached (exit status 1)."""


def _client(args: argparse.Namespace) -> Any:
    try:
        import httpx
    except ImportError:
        raise UsageError(
            "this command needs httpx: pip install 'embedded-wallet-crypto[client]'"
        ) from None
    credentials = args.credentials or os.environ.get("EWC_PLATFORM_CREDENTIALS", "")
    token_id, found, secret = credentials.partition(":")
    if not found or not token_id or not secret:
        raise UsageError(
            "give the platform credentials as --credentials ID:SECRET or "
            "EWC_PLATFORM_CREDENTIALS=ID:SECRET"
        )
    base = (args.base_url or os.environ.get("EWC_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise UsageError("--base-url must be an http:// or https:// URL")
    return httpx.Client(base_url=base, auth=(token_id, secret), timeout=30.0)


def _call(client: Any, method: str, path: str, **options: Any) -> Any:
    import httpx

    try:
        response = client.request(method, path, **options)
    except httpx.HTTPError as problem:
        raise ServiceError(f"cannot reach the service at {client.base_url}: {problem}") from None
    if response.is_success:
        return response
    try:
        body = response.json()
        detail = f"{body['code']}: {body['reason']}"
    except (ValueError, KeyError, TypeError):
        detail = response.text[:200]
    raise ServiceError(f"{method} {path} answered {response.status_code} {detail}")


def _data(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    raw = read_bytes(STDIN, "--data").decode("utf-8", "replace") if text == STDIN else text
    try:
        data = json.loads(raw)
    except ValueError:
        raise UsageError("--data must be a JSON object") from None
    if not isinstance(data, dict):
        raise UsageError("--data must be a JSON object")
    return data


def _cmd_trigger(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"type": args.type}
    data = _data(args.data)
    if data is not None:
        body["data"] = data
    try:
        with _client(args) as client:
            made = _call(client, "POST", "/sandbox/events/trigger", json=body).json()
    except ServiceError as problem:
        print(f"ewc: error: {problem}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(made["payload"], indent=2))
    else:
        print(f"{made['type']} {made['id']} ({made['status']})")
    return EXIT_OK


def _new_events(client: Any, seen: set[str]) -> list[dict[str, Any]]:
    """The events not seen yet, oldest first (newest pages read until a seen event)."""
    found: list[dict[str, Any]] = []
    cursor = None
    for _ in range(_PAGES):
        params: dict[str, Any] = {"limit": 100}
        if cursor:
            params["cursor"] = cursor
        listed = _call(client, "GET", "/sandbox/events", params=params).json()
        fresh = [item for item in listed["data"] if item["id"] not in seen]
        found.extend(fresh)
        cursor = listed.get("nextCursor")
        if len(fresh) < len(listed["data"]) or not cursor:
            break
    return found[::-1]


def _forward(client: Any, url: str, item: dict[str, Any]) -> str:
    import httpx

    headers = {
        "Content-Type": "application/json",
        "X-Grid-Signature": item["signature"],
        "X-Grid-Webhook-Id": item["id"],
        "User-Agent": "ewc-listen",
    }
    try:
        answer = client.post(url, content=item["body"].encode("utf-8"), headers=headers)
    except httpx.HTTPError as problem:
        return f"not delivered ({type(problem).__name__})"
    return str(answer.status_code)


def _listen(args: argparse.Namespace, client: Any) -> int:
    import httpx

    pem = _call(client, "GET", "/sandbox/webhook-public-key").text
    seen_order: deque[str] = deque(maxlen=_SEEN)
    seen: set[str] = set()

    def remember(event_id: str) -> None:
        if len(seen_order) == seen_order.maxlen:
            seen.discard(seen_order[0])
        seen_order.append(event_id)
        seen.add(event_id)

    for item in _new_events(client, seen):  # what happened before listen started
        remember(item["id"])
    print("Ready. The webhooks' verification key (X-Grid-Signature, SPKI PEM):")
    print(pem.strip())
    print(f"Forwarding events to {args.forward_to} (Ctrl-C to stop)", flush=True)
    forwarded = 0
    with httpx.Client(timeout=10.0) as target:
        while args.max_events is None or forwarded < args.max_events:
            for item in _new_events(client, seen):
                if args.max_events is not None and forwarded >= args.max_events:
                    break
                remember(item["id"])
                if args.events and item["type"] not in args.events:
                    continue
                status = _forward(target, args.forward_to, item)
                print(f"{item['createdAt']}  {item['type']}  {item['id']}  -> {status}", flush=True)
                forwarded += 1
            time.sleep(args.interval)
    return EXIT_OK


def _cmd_listen(args: argparse.Namespace) -> int:
    if not args.forward_to.startswith(("http://", "https://")):
        raise UsageError("--forward-to must be an http:// or https:// URL")
    if not 0.05 <= args.interval <= 60:
        raise UsageError("--interval must be from 0.05 to 60 seconds")
    if args.max_events is not None and args.max_events < 1:
        raise UsageError("--max-events must be a positive number")
    try:
        with _client(args) as client:
            return _listen(args, client)
    except ServiceError as problem:
        print(f"ewc: error: {problem}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_OK


def _service_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        default=None,
        help=f"the service's base URL (default: $EWC_BASE_URL, else {DEFAULT_BASE_URL})",
    )
    parser.add_argument(
        "--credentials",
        metavar="ID:SECRET",
        default=None,
        help="the platform credentials (default: $EWC_PLATFORM_CREDENTIALS)",
    )


def add_event_commands(commands: Any) -> None:
    """``ewc trigger`` and ``ewc listen``."""
    trigger = commands.add_parser(
        "trigger",
        help="sandbox: ask a running service to emit a webhook event of a published type",
    )
    trigger.add_argument("type", metavar="EVENT", help="a webhook type, e.g. INVITATION.CLAIMED")
    trigger.add_argument(
        "--data",
        metavar="JSON",
        default=None,
        help="a JSON object whose fields replace the sample resource's ('-': standard input)",
    )
    trigger.add_argument("--json", action="store_true", help="print the webhook body sent")
    _service_options(trigger)
    trigger.set_defaults(handler=_cmd_trigger)

    listen = commands.add_parser(
        "listen",
        help="sandbox: forward the service's webhook events to a local endpoint, signed",
    )
    listen.add_argument("--forward-to", required=True, metavar="URL", help="where to POST them")
    listen.add_argument(
        "--events",
        type=lambda text: set(text.split(",")),
        default=None,
        metavar="TYPE,...",
        help="forward only these types",
    )
    listen.add_argument(
        "--interval", type=float, default=0.5, help="seconds between polls (default 0.5)"
    )
    listen.add_argument(
        "--max-events", type=int, default=None, help="stop after forwarding this many"
    )
    _service_options(listen)
    listen.set_defaults(handler=_cmd_listen)
