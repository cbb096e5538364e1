"""Helpers the passkey tests share: base64url, the standard WebAuthn JSON form, and a
hypothesis strategy that damages bytes the way an attacker or a broken client would."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import strategies as st

P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def standard_form(interface: dict[str, Any]) -> dict[str, Any]:
    """The interface's attestation or assertion as ``PublicKeyCredential.toJSON()`` writes it."""
    response = {k: v for k, v in interface.items() if k != "credentialId"}
    response["clientDataJSON"] = response.pop("clientDataJson")
    if response.get("userHandle", "") is None:
        del response["userHandle"]
    cid = interface["credentialId"]
    return {"id": cid, "rawId": cid, "type": "public-key", "response": response}


@st.composite
def mutated(draw: st.DrawFn, original: bytes) -> bytes:
    """``original`` with 1 to 4 bit flips, truncations or insertions."""
    raw = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "cut", "insert"]))
        index = draw(st.integers(0, max(len(raw) - 1, 0)))
        if kind == "flip" and raw:
            raw[index] ^= 1 << draw(st.integers(0, 7))
        elif kind == "cut":
            del raw[index:]
        else:
            raw[index:index] = draw(st.binary(min_size=1, max_size=8))
    return bytes(raw)


def mutated_field(base: dict[str, Any], field: str) -> st.SearchStrategy[dict[str, Any]]:
    """``base`` with the bytes of one base64url ``field`` damaged."""
    return mutated(unb64url(base[field])).map(lambda raw: {**base, field: b64url(raw)})


class DeterministicKey:
    """A P-256 signer with RFC 6979 signatures (cryptography), for reproducible examples; it
    fits ``passkeys.SoftwareAuthenticator(key=...)``."""

    def __init__(self, label: bytes) -> None:
        scalar = int.from_bytes(hashlib.sha256(label).digest(), "big") % (P256_N - 1) + 1
        self._key = ec.derive_private_key(scalar, ec.SECP256R1())

    def sign(self, message: bytes, /) -> bytes:
        return self._key.sign(message, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))

    def public_key_bytes(self, compressed: bool = False) -> bytes:
        encoding = PublicFormat.CompressedPoint if compressed else PublicFormat.UncompressedPoint
        return self._key.public_key().public_bytes(Encoding.X962, encoding)
