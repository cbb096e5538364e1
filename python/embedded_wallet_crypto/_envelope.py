"""The signed envelope shared by wallet exports and OTP target bundles (FORMATS.md sections 8, 9).

``{"version": "v1.0.0", "data": hex, "dataSignature": hex, "enclaveQuorumPublic": hex}``:
``data`` hex-decodes to UTF-8 JSON, signed (DER ECDSA P-256 / SHA-256) over those exact bytes by
the key in ``enclaveQuorumPublic``. Opening never trusts that embedded key: it must be the
pinned one, and the signature is checked with the pinned key. The sandbox form has both
signature fields empty and opens only when ``policy.sandbox_allowed``; otherwise an envelope that
names no signer is ``ENVELOPE_UNSIGNED`` whatever signature it carries, so that production
refuses the sandbox form exactly like any other envelope without a signer (policy.py).

JSON from the wire is parsed defensively: at most ``MAX_ENVELOPE_BYTES``, UTF-8 only, no
duplicate keys, no NaN/Infinity, no integer longer than 64 digits, no float that overflows, and
nesting deep enough to exhaust the parser is an error too; each of these is an ``EnvelopeError``.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from . import _strict_json as strict_json
from ._types import BytesLike, KeyLike
from .errors import DecodeError, EnvelopeError
from .keys import KeyPair, parse_public_key, verify_signature
from .policy import Environment, sandbox_allowed

__all__ = [
    "DATA_MALFORMED",
    "MALFORMED",
    "MAX_ENVELOPE_BYTES",
    "VERSION",
    "build_signed",
    "compact_json",
    "hex_field",
    "load_json",
    "open_signed",
    "pinned_key",
    "raw_input",
    "refuse_unsigned",
    "require_text",
    "text_field",
    "unhex",
    "verify_by_pinned",
]

VERSION = "v1.0.0"
MAX_ENVELOPE_BYTES = 1 << 20

MALFORMED = "ENVELOPE_MALFORMED"
DATA_MALFORMED = "ENVELOPE_DATA_MALFORMED"


def _fail(reason: str, code: str) -> EnvelopeError:
    return EnvelopeError(reason, code, 400)


def raw_input(value: str | BytesLike, what: str) -> bytes:
    """The bytes of a wire value given as ``str`` (its UTF-8) or bytes-like, size-limited."""
    if isinstance(value, str):
        try:
            raw = value.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates
            raise _fail(f"{what} is not valid UTF-8 text", MALFORMED) from None
    elif isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
    else:
        raise _fail(f"{what} must be str or bytes, not {type(value).__name__}", MALFORMED)
    if len(raw) > MAX_ENVELOPE_BYTES:
        raise _fail(f"{what} is larger than {MAX_ENVELOPE_BYTES} bytes", MALFORMED)
    return raw


def load_json(raw: bytes, what: str, code: str = MALFORMED) -> dict[str, Any]:
    """A JSON object from UTF-8 bytes; anything else (hostile input included) is ``code``."""
    try:
        document: Any = strict_json.loads(raw)
    except (ValueError, RecursionError):  # bad UTF-8 or JSON, duplicate keys, huge numbers
        raise _fail(f"{what} is not valid JSON", code) from None
    if not isinstance(document, dict):
        raise _fail(f"{what} is not a JSON object", code)
    return document


def text_field(document: dict[str, Any], name: str, what: str, code: str = MALFORMED) -> str:
    value = document.get(name)
    if not isinstance(value, str):
        raise _fail(f"{what} has no string field {name!r}", code)
    return value


def unhex(value: str) -> bytes | None:
    """Strict hex (either case, even length, nothing else: ``bytes.fromhex`` alone would skip
    whitespace), or None."""
    try:
        data = bytes.fromhex(value)
    except ValueError:  # odd length, or not hex digits
        return None
    return data if 2 * len(data) == len(value) else None  # whitespace was skipped


def hex_field(document: dict[str, Any], name: str, what: str, code: str = MALFORMED) -> bytes:
    """A field holding hex (either case, even length, nothing else)."""
    data = unhex(text_field(document, name, what, code))
    if data is None:
        raise _fail(f"{what} field {name!r} is not hex", code)
    return data


def verify_by_pinned(
    pinned: bytes, embedded_signer: str, message: bytes, signature_hex: str, what: str
) -> None:
    """Signer pinned (the embedded key, hex of the 65-byte form, must be the pinned key), then
    the DER signature over ``message`` with the pinned key (high-S accepted)."""
    if unhex(embedded_signer) != pinned:
        raise _fail(
            f"the {what} is signed by a key that is not the pinned signer",
            "ENVELOPE_SIGNER_NOT_PINNED",
        )
    invalid = _fail(f"the {what} signature does not verify", "ENVELOPE_SIGNATURE_INVALID")
    signature = unhex(signature_hex)
    if signature is None:
        raise invalid
    try:
        verified = verify_signature(pinned, message, signature)
    except DecodeError:  # not strict DER (an empty signature included)
        raise invalid from None
    if not verified:
        raise invalid


@functools.lru_cache(maxsize=64)
def _parsed_pin(key: str | bytes) -> bytes:
    return parse_public_key(key)


def pinned_key(signer_public_key: KeyLike) -> bytes:
    """The pinned signer as 65 bytes (a pin given as str or bytes is parsed once: it is a
    constant in practice).

    Raises:
        InvalidKey: the pin itself is malformed.
    """
    if isinstance(signer_public_key, (str, bytes)):
        return _parsed_pin(signer_public_key)
    return parse_public_key(signer_public_key)


def refuse_unsigned(sandbox_is_allowed: bool, what: str) -> None:
    """An envelope that names no signer opens only as the sandbox form, with the sandbox
    allowed; otherwise it is refused like any other envelope without a signer (policy.py)."""
    if not sandbox_is_allowed:
        raise _fail(
            f"the {what} names no signer; only the sandbox opens the unsigned form",
            "ENVELOPE_UNSIGNED",
        )


def open_signed(
    document: dict[str, Any],
    signer_public_key: KeyLike,
    sandbox: bool | Environment | None,
    what: str,
) -> dict[str, Any]:
    """Check a v1.0.0 envelope in order (version, signer pinned, signature over the exact data
    bytes) and return the signed data as a JSON object.

    Raises:
        EnvelopeError: ``ENVELOPE_VERSION_UNSUPPORTED``, ``ENVELOPE_MALFORMED``,
            ``ENVELOPE_UNSIGNED``, ``ENVELOPE_SIGNER_NOT_PINNED``, ``ENVELOPE_SIGNATURE_INVALID``
            or ``ENVELOPE_DATA_MALFORMED`` (the signed data is not a UTF-8 JSON object).
        InvalidKey: ``signer_public_key`` itself is malformed.
    """
    # Resolved first, so a misconfigured `sandbox` fails every call, not only unsigned ones.
    sandbox_is_allowed = sandbox_allowed(sandbox)
    pinned = pinned_key(signer_public_key)
    version = document.get("version")
    if version != VERSION:
        raise _fail(f"the {what} version is not {VERSION}", "ENVELOPE_VERSION_UNSUPPORTED")
    data = hex_field(document, "data", what)
    signature = text_field(document, "dataSignature", what)
    signer = text_field(document, "enclaveQuorumPublic", what)
    if signer == "":  # no signer key: only the sandbox form (no signature either) may open
        refuse_unsigned(sandbox_is_allowed and signature == "", what)
    else:
        verify_by_pinned(pinned, signer, data, signature, what)
    return load_json(data, f"the {what} data", DATA_MALFORMED)


def build_signed(data: bytes, signer: KeyPair | None) -> str:
    """The v1.0.0 envelope around ``data``; ``signer=None`` writes the sandbox form."""
    if signer is not None and not isinstance(signer, KeyPair):
        raise TypeError(f"signer must be an ewc.KeyPair or None, not {type(signer).__name__}")
    envelope = {
        "version": VERSION,
        "data": data.hex(),
        "dataSignature": signer.sign(data).hex() if signer is not None else "",
        "enclaveQuorumPublic": signer.public_key_hex() if signer is not None else "",
    }
    return json.dumps(envelope, separators=(",", ":"))


def compact_json(document: dict[str, Any]) -> bytes:
    """Compact JSON bytes in the given key order (the form real enclaves write)."""
    return json.dumps(document, separators=(",", ":")).encode()


def require_text(value: object, name: str) -> str:
    """A non-empty ``str`` argument of a sealing call."""
    if not isinstance(value, str) or not value:
        raise EnvelopeError(
            f"{name} must be a non-empty string", "ENVELOPE_PARAMETERS_INVALID", 400
        )
    return value
