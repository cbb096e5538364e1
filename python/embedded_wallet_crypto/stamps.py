"""Stamps: the ``Service-Wallet-Signature`` header (formats.md section 4), rust/core/src/stamp.rs.

A stamp is ``base64url(JSON {publicKey, scheme, signature})``: a DER ECDSA P-256 / SHA-256
signature by the session key over the payload bytes exactly as received. Verification of one
stamp or of many (on every core, without the GIL) runs in the core; parsed public keys are
cached there, so a session key that stamps many requests is decompressed once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import _native
from . import _strict_json as strict_json
from ._contract import buffer_bytes
from ._types import BytesLike, KeyLike
from .errors import StampError
from .keys import KeyPair, parse_public_key, same_public_key
from .policy import Environment, sandbox_allowed

__all__ = [
    "SANDBOX_STAMP",
    "SCHEME",
    "Stamp",
    "check_payload_binding",
    "create_stamp",
    "verify_stamp",
    "verify_stamps",
]

SCHEME: str = _native.STAMP_SCHEME
#: The interface's sandbox value, accepted only with ``sandbox=True``.
SANDBOX_STAMP = "sandbox-valid-signature"

Payload = str | BytesLike


@dataclass(frozen=True)
class Stamp:
    """A stamp that verified: the signer's compressed public key (hex), scheme and DER bytes."""

    public_key: str
    scheme: str
    signature: bytes


def create_stamp(payload: Payload, key: KeyPair) -> str:
    """Sign ``payload`` (a ``str`` means its UTF-8 bytes) with the session key; return the stamp."""
    return _native.create_stamp(payload, key)


def verify_stamp(
    stamp: str | None,
    payload: Payload,
    *,
    expected_public_key: KeyLike | None = None,
    sandbox: bool | Environment | None = None,
) -> Stamp:
    """Verify a stamp over the exact payload bytes.

    Args:
        stamp: the header value (padded or unpadded base64url).
        payload: the ``payloadToSign`` exactly as the server issued it.
        expected_public_key: the session key that must have signed, compressed or not.
        sandbox: also accept the literal ``sandbox-valid-signature`` (see ``ewc.policy``;
            None means the process default, PRODUCTION unless set).

    Returns:
        The verified :class:`Stamp`.

    Raises:
        StampError: ``WALLET_SIGNATURE_MISSING``, ``WALLET_SIGNATURE_MALFORMED`` (base64url,
            JSON, scheme, key or DER), ``WALLET_SIGNATURE_INVALID`` (wrong signature or payload)
            or ``WALLET_SIGNATURE_KEY_MISMATCH`` (valid, but not the expected key).
        InvalidKey: ``expected_public_key`` itself is malformed.
    """
    if sandbox_allowed(sandbox) and stamp == SANDBOX_STAMP:  # a bad sandbox fails every call
        return Stamp(public_key="", scheme="SANDBOX", signature=b"")
    text = "" if stamp is None or (isinstance(stamp, (str, bytes)) and not stamp) else stamp
    public_key, scheme, signature = _native.verify_stamp(text, payload, expected_public_key)
    return Stamp(public_key=public_key, scheme=scheme, signature=signature)


def verify_stamps(
    stamps: Sequence[str],
    payloads: Sequence[Payload],
    expected_public_keys: Iterable[KeyLike | None] | None = None,
) -> list[bool]:
    """Verify many stamps at once on every core, without the GIL.

    Returns one verdict per stamp: True exactly where :func:`verify_stamp` would succeed.

    Raises:
        DecodeError: the sequences differ in length.
        InvalidKey: an expected public key is malformed.
    """
    for name, value in (("stamps", stamps), ("payloads", payloads), ("keys", expected_public_keys)):
        if isinstance(value, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"{name} must be a sequence, not {type(value).__name__}")
    if sandbox_allowed(None):  # read an iterable once: the verdicts and the sandbox check share it
        stamps = stamps if isinstance(stamps, (list, tuple)) else list(stamps)
    verdicts = _native.verify_stamps(stamps, payloads, expected_public_keys)
    if sandbox_allowed(None):  # the process default is SANDBOX: as verify_stamp would decide
        verdicts = [
            ok or stamp == SANDBOX_STAMP for ok, stamp in zip(verdicts, stamps, strict=True)
        ]
    return verdicts


def _payload_malformed(reason: str) -> StampError:
    return StampError(reason, "PAYLOAD_MALFORMED", 400)


def check_payload_binding(payload_to_sign: Payload, client_public_key: KeyLike) -> None:
    """Client-side key-swap check before stamping an export or refresh payload.

    The payload's ``parameters.targetPublicKey`` must be the key this client sent (formats.md
    section 5); otherwise a server could have the client authorize an export to another key.

    Raises:
        InvalidKey: ``client_public_key`` itself is malformed (checked first).
        StampError: code ``PAYLOAD_MALFORMED`` when the payload is not the expected JSON, or
            ``PAYLOAD_KEY_MISMATCH`` when the target key is absent, malformed or another key.
    """
    parse_public_key(client_public_key)  # the caller's own key: InvalidKey before other work
    raw = (
        payload_to_sign
        if isinstance(payload_to_sign, str)
        else buffer_bytes(payload_to_sign, "payload_to_sign")
    )
    body = strict_json.json_object(raw, what="payloadToSign", error=_payload_malformed)
    parameters = body.get("parameters")
    if not isinstance(parameters, dict):
        raise StampError("payloadToSign has no parameters object", "PAYLOAD_MALFORMED", 400)
    target = parameters.get("targetPublicKey")
    if not isinstance(target, str):
        raise StampError(
            "payloadToSign does not bind a targetPublicKey", "PAYLOAD_KEY_MISMATCH", 400
        )
    if not same_public_key(target, client_public_key):
        raise StampError(
            "payloadToSign's targetPublicKey is not the clientPublicKey this client sent",
            "PAYLOAD_KEY_MISMATCH",
            400,
        )
