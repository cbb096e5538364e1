"""Pieces shared by the vector generators: the file schema of vectors/README.md and the fixed
inputs every generator derives its keys and data from."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from . import _reference as ref

#: The wallet profile's HPKE info (formats.md section 1).
PROFILE_INFO = b"turnkey_hpke"

SCHEMA = "ewc-vectors/1"
SOURCE = (
    "embedded_wallet_crypto.vectors (ewc vectors generate). Expected values are computed "
    "without the library under test: an RFC 9180 reference on pyca/cryptography ECDH and "
    "AES-GCM with HMAC-SHA256 from the Python standard library, pyca/cryptography for public "
    "keys and RFC 6979 deterministic ECDSA, Python integers for P-256 point checks, hashlib "
    "for base58check."
)

Case = dict[str, Any]


def case(
    case_id: str,
    operation: str,
    inputs: dict[str, Any],
    *,
    expected: dict[str, Any] | None = None,
    error: str | None = None,
    comment: str | None = None,
) -> Case:
    """One case in the README's field order; exactly one of ``expected`` and ``error``."""
    if (expected is None) == (error is None):
        raise ValueError(f"case {case_id}: give exactly one of expected and error")
    result: Case = {"id": case_id, "operation": operation, "valid": error is None}
    if comment is not None:
        result["comment"] = comment
    result["inputs"] = inputs
    if expected is not None:
        result["expected"] = expected
    else:
        result["error"] = error
    return result


def vector_file(description: str, cases: list[Case]) -> dict[str, Any]:
    ids = [c["id"] for c in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate case ids: {duplicates}")
    return {"schema": SCHEMA, "description": description, "source": SOURCE, "cases": cases}


def dump(document: dict[str, Any]) -> str:
    """The committed byte form: indent=2, keys in insertion order, one trailing newline."""
    return json.dumps(document, indent=2, sort_keys=False, ensure_ascii=True) + "\n"


def write(directory: Path, name: str, document: dict[str, Any]) -> Path:
    path = directory / name
    path.write_bytes(dump(document).encode("ascii"))
    return path


def stream(label: str, length: int) -> bytes:
    """Deterministic filler bytes: SHA-256 in counter mode over a label."""
    output = b""
    counter = 0
    while len(output) < length:
        output += hashlib.sha256(f"{label}/{counter}".encode()).digest()
        counter += 1
    return output[:length]


def ikm(label: str) -> bytes:
    """The fixed 32-byte input keying material of a named vector key."""
    return hashlib.sha256(f"embedded-wallet-crypto vectors key {label}".encode()).digest()


def key(label: str) -> tuple[bytes, bytes]:
    """(private scalar, uncompressed public key) of a named vector key (RFC 9180 DeriveKeyPair)."""
    return ref.derive_key_pair(ikm(label))


def seal(
    recipient_public: bytes,
    plaintext: bytes,
    ephemeral_label: str,
    *,
    info: bytes = PROFILE_INFO,
    aad: bytes | None = None,
) -> tuple[bytes, bytes]:
    """(65-byte enc, ciphertext) by the RFC 9180 reference with the named ephemeral key;
    ``aad=None`` is the wallet profile's (enc || recipient public key)."""
    return ref.hpke_seal(
        recipient_public,
        plaintext,
        ephemeral_private_key=key(ephemeral_label)[0],
        info=info,
        aad=aad,
    )


def flip_bit(data: bytes, index: int, bit: int = 0) -> bytes:
    """``data`` with one bit of byte ``index`` (negative counts from the end) inverted."""
    mutable = bytearray(data)
    mutable[index] ^= 1 << bit
    return bytes(mutable)
