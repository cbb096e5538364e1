"""Webhook signatures (formats.md section 10).

The sender signs the raw request body with DER ECDSA P-256 / SHA-256 and sends the header value
``{"v":"1","s":"<standard base64 of the DER signature>"}``; the receiver verifies it with the
sender's public key, given as SPKI PEM or DER. Verification is strict: exactly the fields ``v``
and ``s``, version ``"1"``, canonical padded standard base64, strict DER. The signature check
itself runs in the core (``verify_signature``); ``cryptography`` only reads the SPKI.
"""

from __future__ import annotations

import base64
import binascii
import json

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from . import _strict_json as strict_json
from ._contract import buffer_bytes
from ._types import BytesLike
from .errors import DecodeError, InvalidKey, StampError
from .keys import KeyPair, verify_signature

__all__ = ["VERSION", "sign_webhook", "verify_webhook_signature"]

#: The only header version (formats.md section 10).
VERSION = "1"

_MALFORMED = "WEBHOOK_SIGNATURE_MALFORMED"
_INVALID = "WEBHOOK_SIGNATURE_INVALID"
_UNAUTHORIZED = 401
# A compact header is about 110 characters (a DER P-256 signature is at most 72 bytes).
_MAX_HEADER_LENGTH = 1024


def sign_webhook(body: BytesLike, key: KeyPair) -> str:
    """Sign the raw request ``body``; return the compact header value ``{"v":"1","s":...}``."""
    if not isinstance(key, KeyPair):
        raise TypeError(f"key must be a KeyPair, not {type(key).__name__}")
    signature = base64.b64encode(key.sign(body)).decode("ascii")
    return json.dumps({"v": VERSION, "s": signature}, separators=(",", ":"))


def verify_webhook_signature(
    header: str, body: BytesLike, public_key_pem_or_der: BytesLike | str
) -> None:
    """Verify a webhook signature header over the raw request body.

    Args:
        header: the signature header value, ``{"v":"1","s":"<base64 DER signature>"}``.
        body: the request body exactly as received.
        public_key_pem_or_der: the sender's P-256 public key as SPKI PEM (text or bytes) or DER.

    Raises:
        InvalidKey: the public key is not a P-256 SPKI in PEM or DER.
        StampError: code ``WEBHOOK_SIGNATURE_MALFORMED`` (not the header JSON, another version,
            non-canonical base64, not strict DER) or ``WEBHOOK_SIGNATURE_INVALID`` (the
            signature does not verify over this body with this key); status 401.
    """
    point = _p256_point(public_key_pem_or_der)
    signature = _signature_from_header(header)
    try:
        verified = verify_signature(point, body, signature)
    except DecodeError:
        raise _malformed("the webhook signature is not a strict-DER ECDSA signature") from None
    if not verified:
        raise StampError(
            "the webhook signature does not verify over this body", _INVALID, _UNAUTHORIZED
        )


def _malformed(reason: str) -> StampError:
    return StampError(reason, _MALFORMED, _UNAUTHORIZED)


def _signature_from_header(header: str) -> bytes:
    """The DER bytes of a header that has exactly ``v == "1"`` and a canonical base64 ``s``."""
    if not isinstance(header, str) or not header:
        raise _malformed("the webhook signature header is missing")
    if len(header) > _MAX_HEADER_LENGTH:
        raise _malformed("the webhook signature header is too long")
    fields = strict_json.json_object(header, what="the webhook signature header", error=_malformed)
    if set(fields) != {"v", "s"}:  # a repeated field is already refused as not valid JSON
        raise _malformed("the webhook signature header must be a JSON object with exactly v and s")
    if not isinstance(fields["v"], str) or fields["v"] != VERSION:
        raise _malformed('the webhook signature version must be the string "1"')
    encoded = fields["s"]
    if not isinstance(encoded, str) or not encoded.isascii():
        raise _malformed("the webhook signature s must be an ASCII base64 string")
    try:
        signature = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        raise _malformed("the webhook signature s is not valid standard base64") from None
    # b64decode ignores non-zero padding bits; the canonical form is the only one accepted.
    if base64.b64encode(signature).decode("ascii") != encoded:
        raise _malformed("the webhook signature s is not canonical padded standard base64")
    return signature


def _p256_point(public_key: BytesLike | str) -> bytes:
    """The 65-byte uncompressed point of a P-256 SPKI given as PEM (text or bytes) or DER."""
    if isinstance(public_key, str):
        data = public_key.encode("utf-8", "replace")  # a lone surrogate: not a key, below
    else:
        data = buffer_bytes(public_key, "public_key_pem_or_der")
    try:
        if data.lstrip().startswith(b"-----BEGIN"):
            loaded = serialization.load_pem_public_key(data)
        else:
            loaded = serialization.load_der_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise InvalidKey(
            "the webhook verification key is not an SPKI public key in PEM or DER",
            "INVALID_KEY_ENCODING",
        ) from None
    if not isinstance(loaded, ec.EllipticCurvePublicKey) or not isinstance(
        loaded.curve, ec.SECP256R1
    ):
        raise InvalidKey(
            "the webhook verification key is not a P-256 (secp256r1) public key",
            "UNSUPPORTED_CURVE",
        )
    return loaded.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
