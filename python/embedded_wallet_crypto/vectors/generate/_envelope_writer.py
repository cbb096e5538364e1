"""An independent writer of signed envelopes for the export and OTP vectors (formats.md sections
8 and 9): ``json`` from the standard library, RFC 6979 ECDSA and the RFC 9180 reference of
``_reference``; never the library under test."""

from __future__ import annotations

import json
from typing import Any

from . import _reference as ref
from ._common import key

VERSION = "v1.0.0"
# Every negative of the export and OTP vectors that must be raised as an EnvelopeError.
MALFORMED = "ENVELOPE_MALFORMED"
DATA_MALFORMED = "ENVELOPE_DATA_MALFORMED"
VERSION_UNSUPPORTED = "ENVELOPE_VERSION_UNSUPPORTED"
UNSIGNED = "ENVELOPE_UNSIGNED"
NOT_PINNED = "ENVELOPE_SIGNER_NOT_PINNED"
SIGNATURE_INVALID = "ENVELOPE_SIGNATURE_INVALID"
ORGANIZATION_MISMATCH = "ENVELOPE_ORGANIZATION_MISMATCH"
DECRYPTION = "DECRYPTION_FAILED"
# Deep enough for every JSON parser's nesting limit (serde_json 128, CPython's recursion limit).
DEEP_NESTING = 5000


def compact(document: dict[str, Any]) -> bytes:
    return json.dumps(document, separators=(",", ":")).encode()


def public_hex(label: str) -> str:
    return key(label)[1].hex()


def private_hex(label: str) -> str:
    return key(label)[0].hex()


def signature(signer: str, message: bytes, *, high_s: bool = False) -> bytes:
    """DER of the RFC 6979 signature by the named key, low-S or high-S."""
    r, s = ref.sign_deterministic(key(signer)[0], message)
    low = min(s, ref.N - s)
    return ref.der_signature(r, ref.N - low if high_s else low)


def envelope(
    data: bytes,
    signer: str | None,
    /,
    *,
    high_s: bool = False,
    embedded: str | None = None,
    **overrides: Any,
) -> str:
    """The v1.0.0 JSON around ``data``: signed by ``signer`` (None: the sandbox form) with
    ``embedded`` (default: the signer's own key) as ``enclaveQuorumPublic``; ``overrides``
    replace (or, with the value None, remove) fields."""
    fields: dict[str, Any] = {
        "version": VERSION,
        "data": data.hex(),
        "dataSignature": signature(signer, data, high_s=high_s).hex() if signer else "",
        "enclaveQuorumPublic": public_hex(embedded or signer) if signer else "",
    }
    for name, value in overrides.items():
        if value is None:
            fields.pop(name, None)
        else:
            fields[name] = value
    return json.dumps(fields, separators=(",", ":"))


def point_off_curve(label: str) -> bytes:
    """An uncompressed encoding of the named key's x with y + 1: not on the curve."""
    x, y = ref.coordinates(key(label)[1])
    return ref.uncompressed(x, (y + 1) % ref.P)


def deeply_nested() -> str:
    """A version-1 envelope with an extra field nested deeper than any parser allows."""
    return '{"version":"v1.0.0","x":' + "[" * DEEP_NESTING + "]" * DEEP_NESTING + "}"


def huge_integer() -> str:
    """An extra field holding an integer of 1000 digits (beyond any float and 64-bit int)."""
    return '{"version":"v1.0.0","x":' + "9" * 1000 + "}"
