"""Building blocks of passkey.json: a deterministic ES256 key for the software authenticator,
the COSE key encoded independently (cbor2), and edits that damage a WebAuthn response the way a
hostile client would (re-encoding one field, keeping every other byte)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cbor2
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from ...passkeys import SoftwareAuthenticator
from . import _reference as ref
from ._common import key, stream

__all__ = [
    "AAGUID",
    "Device",
    "VectorKey",
    "attestation_object",
    "b64url",
    "client_data",
    "edit",
    "high_s",
    "standard_json",
    "unb64url",
]

AAGUID = stream("passkey aaguid", 16)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class VectorKey:
    """A derived P-256 key signing with RFC 6979 (pyca/cryptography)."""

    def __init__(self, label: str) -> None:
        self.scalar, self.point = key(label)

    def sign(self, message: bytes, /) -> bytes:
        return ref.der_signature(*ref.sign_deterministic(self.scalar, message))

    def public_key_bytes(self, compressed: bool = False) -> bytes:
        return ref.compress(self.point) if compressed else self.point


@dataclass
class Device:
    """A software authenticator over a derived key and credential id, and what a server stores
    for it (computed here, not read back from the authenticator)."""

    label: str
    attestation: str = "none"

    def __post_init__(self) -> None:
        self.key = VectorKey(f"passkey {self.label}")
        self.credential_id = stream(f"passkey credential {self.label}", 32)
        self.authenticator = SoftwareAuthenticator(
            self.key,
            credential_id=self.credential_id,
            attestation=self.attestation,
            aaguid=AAGUID,
        )
        point = self.key.point
        # RFC 9053 EC2 key; cbor2's canonical order is CTAP2's: 1, 3, -1, -2, -3.
        fields = {1: 2, 3: -7, -1: 1, -2: point[1:33], -3: point[33:]}
        self.cose_key = cbor2.dumps(fields, canonical=True)


def edit(obj: dict[str, Any], field: str, change: Callable[[bytes], bytes]) -> dict[str, Any]:
    """``obj`` with the bytes of its base64url ``field`` passed through ``change``."""
    return {**obj, field: b64url(change(unb64url(obj[field])))}


def client_data(obj: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``obj`` with members of its clientDataJSON replaced (nothing re-signed)."""

    def rewrite(raw: bytes) -> bytes:
        return json.dumps({**json.loads(raw), **changes}, separators=(",", ":")).encode()

    return edit(obj, "clientDataJson", rewrite)


def attestation_object(obj: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``obj`` with members of its attestationObject map replaced (nothing re-signed)."""
    return edit(obj, "attestationObject", lambda raw: cbor2.dumps({**cbor2.loads(raw), **changes}))


def high_s(obj: dict[str, Any]) -> dict[str, Any]:
    """The same ECDSA signature with s replaced by n - s (valid too)."""

    def flip(signature: bytes) -> bytes:
        r, s = decode_dss_signature(signature)
        return ref.der_signature(r, ref.N - s)

    return edit(obj, "signature", flip)


def standard_json(obj: dict[str, Any]) -> dict[str, Any]:
    """The interface's object as ``PublicKeyCredential.toJSON()`` writes it."""
    response = {k: v for k, v in obj.items() if k != "credentialId" and v is not None}
    response["clientDataJSON"] = response.pop("clientDataJson")
    credential_id = obj["credentialId"]
    return {"id": credential_id, "rawId": credential_id, "type": "public-key", "response": response}
