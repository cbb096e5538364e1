"""The platform's webhooks: ``X-Grid-Signature`` (formats.md section 10), an ECDSA P-256
signature of the raw body, checked with the service's webhook key before the body is read.

The published document says the key is "provided to you during integration": pass it as
``webhook_public_key=`` (SPKI PEM). Without it, the client fetches the key once from the
sandbox service's ``GET /sandbox/webhook-public-key`` (with the platform credentials) and
keeps it for its own life.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .._contract import buffer_bytes
from ..errors import DecodeError, StampError
from ..webhooks import verify_webhook_signature

__all__ = ["SIGNATURE_HEADER", "verify_event"]

SIGNATURE_HEADER = "X-Grid-Signature"


def _header(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    found = [value for name, value in pairs if str(name).lower() == SIGNATURE_HEADER.lower()]
    if len(found) != 1 or not isinstance(found[0], str):
        raise StampError(
            f"the webhook needs exactly one {SIGNATURE_HEADER} header",
            "WEBHOOK_SIGNATURE_MALFORMED",
            401,
        )
    return found[0]


def verify_event(
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    body: bytes | bytearray | memoryview | str,
    public_key_pem: str,
) -> dict[str, Any]:
    """Verify the webhook's signature over its raw body, then return the event.

    Raises:
        StampError: ``WEBHOOK_SIGNATURE_MALFORMED`` (no header, several, or not the
            signature's form) or ``WEBHOOK_SIGNATURE_INVALID`` (forged, or another body).
        DecodeError: ``WEBHOOK_BODY_INVALID``: signed, but not a JSON object.
    """
    raw = body.encode("utf-8") if isinstance(body, str) else buffer_bytes(body, "body")
    verify_webhook_signature(_header(headers), raw, public_key_pem)
    try:
        event = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
        event = None
    if not isinstance(event, dict):
        raise DecodeError("the webhook body is not a JSON object", "WEBHOOK_BODY_INVALID")
    return event
