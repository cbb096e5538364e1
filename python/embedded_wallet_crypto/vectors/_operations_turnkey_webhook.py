"""The webhook operations of the key infrastructure (vectors/README.md), run through the public
Python API: ``turnkey_webhook_verify`` and ``turnkey_webhook_sign``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc

from ._inputs import Inputs, MalformedCase, Mismatch, input_bytes, input_text

# vectors/README.md, "Error codes": every webhook code comes with WebhookError.
TURNKEY_WEBHOOK_EXCEPTIONS: dict[str, type[ewc.WalletCryptoError]] = {
    f"TURNKEY_WEBHOOK_{name}": ewc.WebhookError
    for name in (
        "HEADER_MISSING",
        "HEADER_DUPLICATE",
        "HEADER_MALFORMED",
        "TIMESTAMP_MALFORMED",
        "TIMESTAMP_TOO_OLD",
        "TIMESTAMP_IN_FUTURE",
        "VERSION_UNSUPPORTED",
        "ALGORITHM_UNSUPPORTED",
        "KEY_UNKNOWN",
        "SIGNATURE_MALFORMED",
        "SIGNATURE_INVALID",
        "CONFIG_INVALID",
    )
}
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _integer(inputs: Inputs, name: str) -> int:
    value = inputs.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedCase(f"input {name!r} must be an integer")
    return value


def _headers(inputs: Inputs) -> dict[str, str] | list[tuple[str, str]]:
    """An object of header names to values, or an array of ``[name, value]`` pairs."""
    value = inputs.get("headers")
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return value
    if isinstance(value, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in value
    ):
        return [(p[0], p[1]) for p in value]
    raise MalformedCase("input 'headers' must be an object or an array of [name, value] pairs")


def _keys(inputs: Inputs) -> dict[str, str]:
    value = inputs.get("verification_keys")
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise MalformedCase("input 'verification_keys' must be an object of hex strings")
    return value


def _verify(inputs: Inputs) -> dict[str, Any]:
    now = _EPOCH + timedelta(milliseconds=_integer(inputs, "now_ms"))
    body = input_bytes(inputs, "body")
    keys = _keys(inputs)
    arguments: dict[str, Any] = {"max_age_seconds": _integer(inputs, "max_age_seconds"), "now": now}
    verified = ewc.verify_turnkey_webhook(
        _headers(inputs), body, verification_keys=keys, **arguments
    )
    # The same delivery with the keys as raw bytes must give the same verdict.
    raw_keys = {k: bytes.fromhex(v) for k, v in keys.items() if len(v) == 64}
    if len(raw_keys) == len(keys):
        again = ewc.verify_turnkey_webhook(
            _headers(inputs), body, verification_keys=raw_keys, **arguments
        )
        if again != verified:
            raise Mismatch("keys as bytes and as hex gave different results")
    if verified.timestamp != _EPOCH + timedelta(milliseconds=verified.timestamp_ms):
        raise Mismatch("timestamp and timestamp_ms disagree")
    return {
        "event_id": verified.event_id,
        "key_id": verified.key_id,
        "timestamp_ms": verified.timestamp_ms,
    }


def _sign(inputs: Inputs) -> dict[str, Any]:
    key_id, body = input_text(inputs, "key_id"), input_bytes(inputs, "body")
    timestamp_ms = _integer(inputs, "timestamp_ms")
    headers = ewc.sign_turnkey_webhook(
        body,
        private_key=input_bytes(inputs, "private_key"),
        key_id=key_id,
        event_id=input_text(inputs, "event_id"),
        timestamp_ms=timestamp_ms,
    )
    verified = ewc.verify_turnkey_webhook(
        headers,
        body,
        verification_keys={key_id: input_bytes(inputs, "public_key")},
        max_age_seconds=0,
        now=_EPOCH + timedelta(milliseconds=timestamp_ms),
    )
    if (verified.key_id, verified.timestamp_ms) != (key_id, timestamp_ms):
        raise Mismatch("the signed headers do not verify back to their own key id and time")
    return {"headers": headers}


TURNKEY_WEBHOOK_OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "turnkey_webhook_verify": _verify,
    "turnkey_webhook_sign": _sign,
}
