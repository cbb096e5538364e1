"""``SoftwareAuthenticator``: a real ES256 authenticator in software, for tests, demos, vectors.

It writes exactly what a platform authenticator and browser hand a server: clientDataJSON,
authenticator data with an attested credential (registration) or a sign count that increases
on every assertion, an attestation object with ``fmt`` ``none`` or ``packed`` self-attestation
(WebAuthn Level 3 section 8.2: ``sig`` over ``authData || SHA-256(clientDataJSON)`` with the
credential key itself, no ``x5c``), and ES256 signatures. Its key is an ``ewc.KeyPair`` unless
another signer is given (the vector generator passes RFC 6979 deterministic ECDSA).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import partial
from typing import Any, Protocol

import cbor2

from .._contract import buffer_bytes, utf8
from ..keys import KeyPair
from ._checks import FLAG_AT, FLAG_UP, FLAG_UV, flag
from ._codec import b64url_encode
from ._cose import COSE_ALG_ES256, es256_cose_key
from ._errors import CONFIG_INVALID, fail

__all__ = ["Signer", "SoftwareAuthenticator"]

_FORMATS = ("none", "packed")


class Signer(Protocol):
    """An ES256 key: DER ECDSA P-256 / SHA-256 signatures and its SEC1 public key."""

    def sign(self, message: bytes, /) -> bytes: ...

    def public_key_bytes(self, compressed: bool = False) -> bytes: ...


def _client_data(kind: str, challenge: bytes, origin: str) -> bytes:
    # The member order browsers use (WebAuthn Level 3 section 5.8.1.1).
    data = {
        "type": kind,
        "challenge": b64url_encode(challenge),
        "origin": origin,
        "crossOrigin": False,
    }
    return json.dumps(data, separators=(",", ":")).encode()


def _flags(*, user_present: bool, user_verified: bool, attested: bool = False) -> int:
    user_present = flag(user_present, "user_present")
    user_verified = flag(user_verified, "user_verified")
    return (
        (FLAG_UP if user_present else 0)
        | (FLAG_UV if user_verified else 0)
        | (FLAG_AT if attested else 0)
    )


class SoftwareAuthenticator:
    """One ES256 credential on a software authenticator.

    Args:
        key: the credential's signer (default: a fresh ``ewc.KeyPair``).
        credential_id: default 32 random bytes.
        attestation: ``"none"`` or ``"packed"`` (self-attestation).
        aaguid: 16 bytes identifying the authenticator model (default all zero).
        sign_count: the counter before the first assertion.
    """

    def __init__(
        self,
        key: Signer | None = None,
        *,
        credential_id: bytes | None = None,
        attestation: str = "none",
        aaguid: bytes = bytes(16),
        sign_count: int = 0,
    ) -> None:
        if not isinstance(attestation, str):
            raise TypeError(f"attestation must be str, not {type(attestation).__name__}")
        if attestation not in _FORMATS:
            raise fail(CONFIG_INVALID, f"attestation must be one of {_FORMATS}")
        aaguid = buffer_bytes(aaguid, "aaguid")
        if len(aaguid) != 16:
            raise fail(CONFIG_INVALID, "aaguid must be 16 bytes")
        if isinstance(sign_count, bool) or not isinstance(sign_count, int):
            raise TypeError(f"sign_count must be an int, not {type(sign_count).__name__}")
        if not 0 <= sign_count < 2**32:
            raise fail(CONFIG_INVALID, "sign_count must be between 0 and 2**32 - 1")
        if key is not None and not (hasattr(key, "sign") and hasattr(key, "public_key_bytes")):
            raise TypeError(f"key must be a KeyPair (a Signer), not {type(key).__name__}")
        self._key: Signer = key if key is not None else KeyPair.generate()
        self.credential_id = (
            buffer_bytes(credential_id, "credential_id")
            if credential_id is not None
            else os.urandom(32)
        )
        self.attestation = attestation
        self.aaguid = aaguid
        self.sign_count = sign_count
        self.public_key = es256_cose_key(self._key.public_key_bytes())

    def __repr__(self) -> str:
        return f"SoftwareAuthenticator(credential_id={b64url_encode(self.credential_id)!r})"

    def _rp_header(self, rp_id: str, flags: int, sign_count: int) -> bytes:
        rp_id_hash = hashlib.sha256(utf8(rp_id, "rp_id", partial(fail, CONFIG_INVALID))).digest()
        return rp_id_hash + bytes([flags]) + sign_count.to_bytes(4, "big")

    def register(
        self,
        *,
        rp_id: str,
        origin: str,
        challenge: bytes,
        user_verified: bool = True,
        user_present: bool = True,
        transports: tuple[str, ...] = ("internal",),
    ) -> dict[str, Any]:
        """Create the credential: the interface's attestation object (base64url values)."""
        flags = _flags(user_present=user_present, user_verified=user_verified, attested=True)
        auth_data = (
            self._rp_header(rp_id, flags, self.sign_count)
            + self.aaguid
            + len(self.credential_id).to_bytes(2, "big")
            + self.credential_id
            + self.public_key
        )
        client_data = _client_data("webauthn.create", buffer_bytes(challenge, "challenge"), origin)
        statement: dict[str, Any] = {}
        if self.attestation == "packed":
            signed = auth_data + hashlib.sha256(client_data).digest()
            statement = {"alg": COSE_ALG_ES256, "sig": self._key.sign(signed)}
        attestation_object = cbor2.dumps(
            {"fmt": self.attestation, "attStmt": statement, "authData": auth_data},
            canonical=True,
        )
        return {
            "credentialId": b64url_encode(self.credential_id),
            "clientDataJson": b64url_encode(client_data),
            "attestationObject": b64url_encode(attestation_object),
            "transports": _transports(transports),
        }

    def authenticate(
        self,
        *,
        rp_id: str,
        origin: str,
        challenge: bytes,
        user_verified: bool = True,
        user_present: bool = True,
        user_handle: bytes | None = None,
    ) -> dict[str, Any]:
        """Sign in: the interface's assertion object; the sign count goes up by one."""
        self.sign_count += 1
        flags = _flags(user_present=user_present, user_verified=user_verified)
        auth_data = self._rp_header(rp_id, flags, self.sign_count)
        client_data = _client_data("webauthn.get", buffer_bytes(challenge, "challenge"), origin)
        signature = self._key.sign(auth_data + hashlib.sha256(client_data).digest())
        return {
            "credentialId": b64url_encode(self.credential_id),
            "clientDataJson": b64url_encode(client_data),
            "authenticatorData": b64url_encode(auth_data),
            "signature": b64url_encode(signature),
            "userHandle": (
                None
                if user_handle is None
                else b64url_encode(buffer_bytes(user_handle, "user_handle"))
            ),
        }


def _transports(transports: object) -> list[str]:
    if isinstance(transports, (str, bytes, bytearray, memoryview)) or not isinstance(
        transports, (list, tuple)
    ):
        raise TypeError("transports must be a tuple of str")
    if not all(isinstance(item, str) for item in transports):
        raise TypeError("transports must be a tuple of str")
    return list(transports)
