"""App proofs (formats.md section 16): what an enclave signs with its ephemeral key, checked in
the Rust core."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from .. import _native
from .. import _strict_json as strict_json
from ..errors import InvalidKey, ProofError
from . import _common as c

__all__ = ["APP_PROOF_SCHEME", "AppProof", "verify_app_proof"]

#: The one app-proof signature scheme: P-256 by the enclave's ephemeral signing key.
APP_PROOF_SCHEME = "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MILLIS = re.compile(r"0|[1-9][0-9]{0,14}")
_MAX_MS = 253_402_300_799_999  # the end of year 9999


@dataclass(frozen=True)
class AppProof:
    """A verified app proof.

    Attributes:
        public_key: the 130 bytes of ``publicKey``: the enclave's ephemeral encryption key,
            then its signing key (both uncompressed SEC1 P-256).
        encryption_public_key: the first 65 bytes of ``public_key``.
        signing_public_key: the last 65 bytes, the key that made ``signature``.
        proof_payload: the signed text, exactly as received.
        payload: ``proof_payload`` decoded (a JSON object).
        proof_type: the payload's ``type`` (for instance ``"APP_PROOF_TYPE_ADDRESS_DERIVATION"``),
            or None.
        timestamp: the payload's ``timestampMs`` as a UTC datetime, or None when absent.
        signature: the 64-byte ``r || s`` signature.
    """

    public_key: bytes
    encryption_public_key: bytes
    signing_public_key: bytes
    proof_payload: str
    payload: dict[str, Any] = field(repr=False)
    proof_type: str | None
    timestamp: datetime | None
    signature: bytes = field(repr=False)


def verify_app_proof(app_proof: Mapping[str, Any] | str) -> AppProof:
    """Verify an app proof (formats.md section 16) and return its payload and keys.

    The proof is ``{"scheme", "publicKey", "proofPayload", "signature"}`` (other members are
    ignored): the scheme must be ``SIGNATURE_SCHEME_EPHEMERAL_KEY_P256``; ``publicKey`` hex of
    130 bytes, two valid uncompressed P-256 keys (encryption, then signing); ``signature`` hex
    of a 64-byte ``r || s`` that verifies with the signing key over SHA-256 of the UTF-8
    ``proofPayload``; then ``proofPayload`` must be a JSON object whose ``timestampMs``, when
    present, is a millisecond epoch written as a decimal string.

    This checks what the ephemeral key signed. That the key belongs to a genuine enclave
    running the expected image is the boot proof's part
    (:func:`verify_app_proof_against_boot_proof`).

    Args:
        app_proof: the proof as a dict or as JSON text.

    Raises:
        ProofError: ``PROOF_MALFORMED``, ``PROOF_SCHEME_UNSUPPORTED``,
            ``PROOF_PUBLIC_KEY_INVALID``, ``PROOF_SIGNATURE_MALFORMED``,
            ``PROOF_SIGNATURE_INVALID``, ``PROOF_PAYLOAD_INVALID``.
        TypeError: ``app_proof`` is neither a mapping nor a str.
    """
    proof = c.proof_object(app_proof, "app proof")
    scheme = c.text_member(proof, "scheme", "app proof")
    if scheme != APP_PROOF_SCHEME:
        c.fail(c.SCHEME_UNSUPPORTED, f"the app proof scheme must be {APP_PROOF_SCHEME}")
    public_key = c.hex_bytes(
        c.text_member(proof, "publicKey", "app proof"), "publicKey", c.PUBLIC_KEY_INVALID
    )
    if len(public_key) != 130:
        c.fail(c.PUBLIC_KEY_INVALID, f"publicKey is {len(public_key)} bytes, not 65 + 65")
    encryption_key, signing_key = public_key[:65], public_key[65:]
    for half, name in ((encryption_key, "encryption"), (signing_key, "signing")):
        if half[0] != 0x04:
            c.fail(c.PUBLIC_KEY_INVALID, f"the {name} key is not an uncompressed P-256 point")
        try:
            _native.parse_public_key(half)
        except InvalidKey:
            c.fail(c.PUBLIC_KEY_INVALID, f"the {name} key is not a valid P-256 point")
    signature = c.hex_bytes(
        c.text_member(proof, "signature", "app proof"), "signature", c.SIGNATURE_MALFORMED
    )
    if len(signature) != 64:
        c.fail(c.SIGNATURE_MALFORMED, f"the signature is {len(signature)} bytes, not 64")
    proof_payload = c.text_member(proof, "proofPayload", "app proof")
    try:
        message = proof_payload.encode("utf-8")
    except UnicodeEncodeError:
        c.fail(c.PAYLOAD_INVALID, "proofPayload is not valid Unicode (a lone surrogate)")
    if not _native.verify_signature_p1363(signing_key, message, signature):
        c.fail(c.SIGNATURE_INVALID, "the app proof signature does not verify")
    payload = strict_json.json_object(
        message,
        what="proofPayload",
        error=lambda reason: ProofError(reason, c.PAYLOAD_INVALID),
    )
    proof_type = payload.get("type")
    if proof_type is not None and not isinstance(proof_type, str):
        c.fail(c.PAYLOAD_INVALID, "the proof payload's type is not a string")
    return AppProof(
        public_key,
        encryption_key,
        signing_key,
        proof_payload,
        payload,
        proof_type,
        _timestamp(payload),
        signature,
    )


def _timestamp(payload: Mapping[str, Any]) -> datetime | None:
    if "timestampMs" not in payload:
        return None
    value = payload["timestampMs"]
    if not isinstance(value, str) or not _MILLIS.fullmatch(value) or int(value) > _MAX_MS:
        c.fail(c.PAYLOAD_INVALID, "timestampMs is not a millisecond epoch as a decimal string")
    return _EPOCH + timedelta(milliseconds=int(value))
