"""Webhooks of the key infrastructure: Ed25519 with key ids and a replay window (formats.md
section 17).

A delivery carries six headers: ``x-turnkey-timestamp`` (Unix milliseconds),
``x-turnkey-event-id``, ``x-turnkey-signature-key-id``, ``x-turnkey-signature-algorithm``
(``ed25519``), ``x-turnkey-signature-version`` (``v1``) and ``x-turnkey-signature`` (hex of the
64-byte signature). The signed input is the ASCII text
``v1.ed25519.<keyId>.<timestampMs>.<eventId>.`` followed by the raw body bytes. The receiver
picks the public key by key id from its own configuration and refuses a timestamp further than
``max_age_seconds`` from its clock, in either direction.

This is a different scheme from the payments service's webhooks (formats.md section 10,
``ewc.verify_webhook_signature``). The Ed25519 arithmetic is ``cryptography``'s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, NoReturn

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ._contract import buffer_bytes
from ._types import BytesLike
from .errors import WebhookError

__all__ = [
    "ALGORITHM",
    "HEADER_ALGORITHM",
    "HEADER_EVENT_ID",
    "HEADER_KEY_ID",
    "HEADER_SIGNATURE",
    "HEADER_TIMESTAMP",
    "HEADER_VERSION",
    "MAX_AGE_LIMIT_SECONDS",
    "VERSION",
    "TurnkeyWebhook",
    "sign_turnkey_webhook",
    "signed_input",
    "verify_turnkey_webhook",
]

HEADER_TIMESTAMP = "x-turnkey-timestamp"
HEADER_EVENT_ID = "x-turnkey-event-id"
HEADER_KEY_ID = "x-turnkey-signature-key-id"
HEADER_ALGORITHM = "x-turnkey-signature-algorithm"
HEADER_VERSION = "x-turnkey-signature-version"
HEADER_SIGNATURE = "x-turnkey-signature"
#: The headers in the order they are checked for presence.
HEADERS = (
    HEADER_TIMESTAMP,
    HEADER_EVENT_ID,
    HEADER_KEY_ID,
    HEADER_ALGORITHM,
    HEADER_VERSION,
    HEADER_SIGNATURE,
)
ALGORITHM = "ed25519"
VERSION = "v1"
#: The widest replay window accepted (one day); the usual one is five minutes.
MAX_AGE_LIMIT_SECONDS = 86400

# The codes of WebhookError (status 401, except the configuration's 500).
HEADER_MISSING = "TURNKEY_WEBHOOK_HEADER_MISSING"
HEADER_DUPLICATE = "TURNKEY_WEBHOOK_HEADER_DUPLICATE"
HEADER_MALFORMED = "TURNKEY_WEBHOOK_HEADER_MALFORMED"
TIMESTAMP_MALFORMED = "TURNKEY_WEBHOOK_TIMESTAMP_MALFORMED"
TIMESTAMP_TOO_OLD = "TURNKEY_WEBHOOK_TIMESTAMP_TOO_OLD"
TIMESTAMP_IN_FUTURE = "TURNKEY_WEBHOOK_TIMESTAMP_IN_FUTURE"
VERSION_UNSUPPORTED = "TURNKEY_WEBHOOK_VERSION_UNSUPPORTED"
ALGORITHM_UNSUPPORTED = "TURNKEY_WEBHOOK_ALGORITHM_UNSUPPORTED"
KEY_UNKNOWN = "TURNKEY_WEBHOOK_KEY_UNKNOWN"
SIGNATURE_MALFORMED = "TURNKEY_WEBHOOK_SIGNATURE_MALFORMED"
SIGNATURE_INVALID = "TURNKEY_WEBHOOK_SIGNATURE_INVALID"
CONFIG_INVALID = "TURNKEY_WEBHOOK_CONFIG_INVALID"
CODES = (
    HEADER_MISSING,
    HEADER_DUPLICATE,
    HEADER_MALFORMED,
    TIMESTAMP_MALFORMED,
    TIMESTAMP_TOO_OLD,
    TIMESTAMP_IN_FUTURE,
    VERSION_UNSUPPORTED,
    ALGORITHM_UNSUPPORTED,
    KEY_UNKNOWN,
    SIGNATURE_MALFORMED,
    SIGNATURE_INVALID,
    CONFIG_INVALID,
)

# Ids are printable ASCII without the signed input's separator "."; bounded in length.
_ID = re.compile(r"[\x21-\x2d\x2f-\x7e]{1,256}")
_TIMESTAMP = re.compile(r"[0-9]{1,16}")
_MAX_SAFE_INTEGER = 2**53 - 1  # the senders' JavaScript bound on the millisecond timestamp
_SIGNATURE = re.compile(r"[0-9a-fA-F]{128}")
_KEY_HEX = re.compile(r"[0-9a-fA-F]{64}")
_MAX_HEADER_VALUE = 1024
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class TurnkeyWebhook:
    """A verified delivery: which event, signed by which key, when (UTC)."""

    event_id: str
    key_id: str
    timestamp: datetime
    timestamp_ms: int


def _fail(code: str, reason: str) -> NoReturn:
    raise WebhookError(reason, code, 401)


def _config(reason: str) -> WebhookError:
    return WebhookError(reason, CONFIG_INVALID, 500)


def signed_input(key_id: str, timestamp_ms: int, event_id: str, body: bytes) -> bytes:
    """The bytes the sender signs: ``v1.ed25519.<keyId>.<timestampMs>.<eventId>.`` + body."""
    prefix = f"{VERSION}.{ALGORITHM}.{key_id}.{timestamp_ms}.{event_id}."
    return prefix.encode("ascii") + body


# --- configuration ----------------------------------------------------------------------------


def _max_age_ms(max_age_seconds: object) -> float:
    if isinstance(max_age_seconds, bool) or not isinstance(max_age_seconds, (int, float)):
        if isinstance(max_age_seconds, bool):
            raise _config("max_age_seconds must be a number of seconds, not a bool")
        raise TypeError(f"max_age_seconds must be a number, not {type(max_age_seconds).__name__}")
    if isinstance(max_age_seconds, int):
        if not 0 <= max_age_seconds <= MAX_AGE_LIMIT_SECONDS:
            raise _config(f"max_age_seconds must be between 0 and {MAX_AGE_LIMIT_SECONDS}")
        return float(max_age_seconds * 1000)
    if not (math.isfinite(max_age_seconds) and 0 <= max_age_seconds <= MAX_AGE_LIMIT_SECONDS):
        raise _config(
            f"max_age_seconds must be a finite number between 0 and {MAX_AGE_LIMIT_SECONDS}"
        )
    return max_age_seconds * 1000


def _now_ms(now: object) -> int:
    if now is None:
        now = datetime.now(timezone.utc)
    if not isinstance(now, datetime):
        raise TypeError(f"now must be a timezone-aware datetime or None, not {type(now).__name__}")
    if now.utcoffset() is None:
        raise _config("now must be a timezone-aware datetime")
    return (now - _EPOCH) // timedelta(milliseconds=1)


def _public_key(key_id: str, value: object) -> Ed25519PublicKey:
    if isinstance(value, str):
        if not _KEY_HEX.fullmatch(value):
            raise _config(f"the key {key_id[:64]!r} is not 64 hex digits (a 32-byte Ed25519 key)")
        raw = bytes.fromhex(value)
    else:
        raw = buffer_bytes(value, "a verification key")
        if len(raw) != 32:
            raise _config(f"the key {key_id[:64]!r} is not 32 bytes (a raw Ed25519 public key)")
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:  # pragma: no cover - every 32 bytes load; invalid points fail verify
        raise _config(f"the key {key_id[:64]!r} is not an Ed25519 public key") from None


def _keys(verification_keys: object) -> Mapping[str, object]:
    if not isinstance(verification_keys, Mapping):
        raise TypeError(
            "verification_keys must be a mapping from key id to a 32-byte Ed25519 public key, "
            f"not {type(verification_keys).__name__}"
        )
    for key_id, value in verification_keys.items():
        if not isinstance(key_id, str):
            raise TypeError(f"a key id must be str, not {type(key_id).__name__}")
        if not _ID.fullmatch(key_id):
            raise _config(
                "a configured key id is not 1 to 256 printable ASCII characters without '.'"
            )
        if not isinstance(value, str):
            buffer_bytes(value, "a verification key")  # TypeError for a non-buffer
    return verification_keys


# --- headers ----------------------------------------------------------------------------------


def _text(value: object, what: str) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = buffer_bytes(value, what)
        if len(data) > _MAX_HEADER_VALUE:
            _fail(HEADER_MALFORMED, f"the {what} is too long")
        try:
            return data.decode("ascii")
        except UnicodeDecodeError:
            _fail(HEADER_MALFORMED, f"the {what} is not ASCII")
    if isinstance(value, str):
        return value
    raise TypeError(f"the {what} must be str or bytes, not {type(value).__name__}")


def _pairs(headers: object) -> Iterable[Any]:
    if isinstance(headers, Mapping):
        return headers.items()
    if isinstance(headers, (str, bytes, bytearray, memoryview)) or not isinstance(
        headers, Iterable
    ):
        raise TypeError(
            "headers must be a mapping or a list of (name, value) pairs, "
            f"not {type(headers).__name__}"
        )
    return headers


def _collect(headers: object) -> dict[str, str]:
    """The six headers by lower-case name; any other header is ignored. A header given twice
    (two names differing in case, two pairs, or a list of values) is refused."""
    found: dict[str, str] = {}
    for pair in _pairs(headers):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("headers must be (name, value) pairs")
        name = _text(pair[0], "header name").lower()
        if name not in HEADERS:
            continue
        value = pair[1]
        if isinstance(value, (list, tuple)):  # multi-value mappings (Node-style string[])
            if not value:
                continue
            if len(value) != 1:
                _fail(HEADER_DUPLICATE, f"the header {name} is given {len(value)} times")
            value = value[0]
        text = _text(value, f"header {name}")
        if name in found:
            _fail(HEADER_DUPLICATE, f"the header {name} is given more than once")
        if len(text) > _MAX_HEADER_VALUE:
            _fail(HEADER_MALFORMED, f"the header {name} is too long")
        found[name] = text
    for name in HEADERS:
        if not found.get(name):
            _fail(HEADER_MISSING, f"the header {name} is missing or empty")
    return found


# --- verify and sign --------------------------------------------------------------------------


def verify_turnkey_webhook(
    headers: Mapping[str, Any] | Iterable[tuple[Any, Any]],
    body: BytesLike | str,
    *,
    verification_keys: Mapping[str, BytesLike | str],
    max_age_seconds: float,
    now: datetime | None = None,
) -> TurnkeyWebhook:
    """Verify a webhook delivery of the key infrastructure (formats.md section 17).

    Args:
        headers: the request headers: any mapping (names in any case), or the ``(name, value)``
            pairs a web framework gives (ASGI's byte pairs, Werkzeug's ``Headers``). Other
            headers are ignored; one of the six given twice is refused.
        body: the raw request body exactly as received (a ``str`` is taken as its UTF-8).
        verification_keys: key id -> the 32-byte Ed25519 public key (raw bytes or 64 hex
            digits) of each signing key you trust.
        max_age_seconds: the replay window: a timestamp further than this from ``now``, in
            either direction, is refused (0 to 86400; five minutes is usual).
        now: a timezone-aware ``datetime``; None for the current time.

    Returns:
        The verified :class:`TurnkeyWebhook` (event id, key id, timestamp). Remember the event
        ids you have processed for at least the replay window: a replayed delivery inside the
        window verifies again.

    Raises:
        WebhookError: status 401 with ``code`` ``TURNKEY_WEBHOOK_HEADER_MISSING``,
            ``..._HEADER_DUPLICATE``, ``..._HEADER_MALFORMED`` (not ASCII, too long, an id
            with ``.`` or a control character), ``..._TIMESTAMP_MALFORMED``,
            ``..._TIMESTAMP_TOO_OLD``, ``..._TIMESTAMP_IN_FUTURE``,
            ``..._VERSION_UNSUPPORTED``, ``..._ALGORITHM_UNSUPPORTED``, ``..._KEY_UNKNOWN``,
            ``..._SIGNATURE_MALFORMED`` (not 128 hex digits) or ``..._SIGNATURE_INVALID``;
            status 500 ``TURNKEY_WEBHOOK_CONFIG_INVALID`` for an unusable ``max_age_seconds``,
            a naive ``now`` or a verification key that is not 32 bytes.
        TypeError: an argument of the wrong Python type.
    """
    window_ms = _max_age_ms(max_age_seconds)
    now_ms = _now_ms(now)
    keys = _keys(verification_keys)
    if isinstance(body, str):
        try:
            raw_body = body.encode("utf-8")
        except UnicodeEncodeError:
            _fail(SIGNATURE_INVALID, "the body is not valid Unicode text")
    else:
        raw_body = buffer_bytes(body, "body")
    found = _collect(headers)

    timestamp_text = found[HEADER_TIMESTAMP]
    if not _TIMESTAMP.fullmatch(timestamp_text) or int(timestamp_text) > _MAX_SAFE_INTEGER:
        _fail(TIMESTAMP_MALFORMED, "the timestamp is not a whole number of milliseconds")
    timestamp_ms = int(timestamp_text)
    if now_ms - timestamp_ms > window_ms:
        _fail(TIMESTAMP_TOO_OLD, "the webhook's timestamp is older than the replay window")
    if timestamp_ms - now_ms > window_ms:
        _fail(TIMESTAMP_IN_FUTURE, "the webhook's timestamp is ahead of the replay window")
    if found[HEADER_VERSION] != VERSION:
        _fail(VERSION_UNSUPPORTED, f"the signature version is not {VERSION}")
    if found[HEADER_ALGORITHM] != ALGORITHM:
        _fail(ALGORITHM_UNSUPPORTED, f"the signature algorithm is not {ALGORITHM}")
    event_id, key_id = found[HEADER_EVENT_ID], found[HEADER_KEY_ID]
    for name, value in ((HEADER_EVENT_ID, event_id), (HEADER_KEY_ID, key_id)):
        if not _ID.fullmatch(value):
            _fail(HEADER_MALFORMED, f"the header {name} is not printable ASCII without '.'")
    if key_id not in keys:
        _fail(KEY_UNKNOWN, f"no verification key is configured for the key id {key_id[:64]!r}")
    public_key = _public_key(key_id, keys[key_id])
    signature_text = found[HEADER_SIGNATURE]
    if not _SIGNATURE.fullmatch(signature_text):
        _fail(SIGNATURE_MALFORMED, "the signature is not 128 hex digits (64 bytes)")
    message = signed_input(key_id, timestamp_ms, event_id, raw_body)
    try:
        public_key.verify(bytes.fromhex(signature_text), message)
    except InvalidSignature:
        _fail(SIGNATURE_INVALID, "the webhook signature does not verify over this delivery")
    return TurnkeyWebhook(
        event_id, key_id, _EPOCH + timedelta(milliseconds=timestamp_ms), timestamp_ms
    )


def sign_turnkey_webhook(
    body: BytesLike | str,
    *,
    private_key: BytesLike | Ed25519PrivateKey,
    key_id: str,
    event_id: str,
    timestamp_ms: int,
) -> dict[str, str]:
    """The six headers of a signed delivery of ``body`` (formats.md section 17): for a server
    that sends such webhooks, and for tests of a receiver.

    Args:
        body: the raw body that will be sent (a ``str`` is taken as its UTF-8).
        private_key: the 32-byte Ed25519 seed, or a ``cryptography`` ``Ed25519PrivateKey``.
        key_id: the id the receiver knows the public key by.
        event_id: the delivery's event id.
        timestamp_ms: the signing time in Unix milliseconds.

    Raises:
        WebhookError: ``TURNKEY_WEBHOOK_CONFIG_INVALID`` for a seed that is not 32 bytes, an
            id with ``.`` or characters outside printable ASCII, or a negative timestamp.
        TypeError: an argument of the wrong Python type.
    """
    if isinstance(private_key, Ed25519PrivateKey):
        signer = private_key
    else:
        seed = buffer_bytes(private_key, "private_key")
        if len(seed) != 32:
            raise _config("private_key must be a 32-byte Ed25519 seed")
        signer = Ed25519PrivateKey.from_private_bytes(seed)
    for what, value in (("key_id", key_id), ("event_id", event_id)):
        if not isinstance(value, str):
            raise TypeError(f"{what} must be str, not {type(value).__name__}")
        if not _ID.fullmatch(value):
            raise _config(f"{what} must be 1 to 256 printable ASCII characters without '.'")
    if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, int):
        raise TypeError(f"timestamp_ms must be an int, not {type(timestamp_ms).__name__}")
    if not 0 <= timestamp_ms <= _MAX_SAFE_INTEGER:
        raise _config("timestamp_ms must be between 0 and 2**53 - 1")
    if isinstance(body, str):
        try:
            raw_body = body.encode("utf-8")
        except UnicodeEncodeError:
            raise _config("the body is not valid Unicode text") from None
    else:
        raw_body = buffer_bytes(body, "body")
    signature = signer.sign(signed_input(key_id, timestamp_ms, event_id, raw_body))
    return {
        HEADER_TIMESTAMP: str(timestamp_ms),
        HEADER_EVENT_ID: event_id,
        HEADER_KEY_ID: key_id,
        HEADER_ALGORITHM: ALGORITHM,
        HEADER_VERSION: VERSION,
        HEADER_SIGNATURE: signature.hex(),
    }
