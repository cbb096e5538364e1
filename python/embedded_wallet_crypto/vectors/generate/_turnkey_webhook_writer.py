"""A signed delivery of the key infrastructure's webhooks, written independently (formats.md
section 17): the Ed25519 keys (pyca/cryptography, deterministic), the signed input
``v1.ed25519.<keyId>.<timestampMs>.<eventId>.`` followed by the raw body, and the six
``x-turnkey-*`` headers. Nothing here calls the library under test.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ._common import stream

NOW_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
MAX_AGE = 300
KEY_ID = "whk_primary"
OTHER_KEY_ID = "whk_rotated"
EVENT_ID = "evt_01JGZ0Q4B6M3W8X2V9K7T5R1NA"
BODY = b'{"type":"ACTIVITY_COMPLETED","data":{"activityId":"act_1","organizationId":"org_1"}}'
# The Ed25519 group order.
L = 2**252 + 27742317777372353535851937790883648493


def seed(label: str) -> bytes:
    return stream(f"turnkey-webhook/{label}", 32)


def public_hex(label: str) -> str:
    public = Ed25519PrivateKey.from_private_bytes(seed(label)).public_key()
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def signature_hex(label: str, key_id: str, timestamp_ms: int, event_id: str, body: bytes) -> str:
    message = f"v1.ed25519.{key_id}.{timestamp_ms}.{event_id}.".encode("ascii") + body
    return Ed25519PrivateKey.from_private_bytes(seed(label)).sign(message).hex()


def delivery_headers(
    *,
    label: str = "primary",
    key_id: str = KEY_ID,
    timestamp_ms: int = NOW_MS - 1000,
    event_id: str = EVENT_ID,
    body: bytes = BODY,
) -> dict[str, str]:
    return {
        "x-turnkey-timestamp": str(timestamp_ms),
        "x-turnkey-event-id": event_id,
        "x-turnkey-signature-key-id": key_id,
        "x-turnkey-signature-algorithm": "ed25519",
        "x-turnkey-signature-version": "v1",
        "x-turnkey-signature": signature_hex(label, key_id, timestamp_ms, event_id, body),
    }


def configured_keys() -> dict[str, str]:
    return {KEY_ID: public_hex("primary"), OTHER_KEY_ID: public_hex("rotated")}


def replaced(headers: dict[str, str], **changes: str | None) -> dict[str, str]:
    """``headers`` with some values replaced (keys with '_' for '-'); None removes one."""
    result = dict(headers)
    for name, value in changes.items():
        header = "x-turnkey-" + name.replace("_", "-")
        if value is None:
            del result[header]
        else:
            result[header] = value
    return result
