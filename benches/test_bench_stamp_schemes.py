"""Stamp-scheme benchmarks (formats.md section 15): secp256k1 and Ed25519 stamp verification
against what a Python server does without this library, and a mixed-scheme batch.

Like the other bench files, every benchmark also tests what it timed, sets ``benchmark.group``
and ``benchmark.extra_info["impl"]``, and ``benches/report.py`` pairs rows by (group, impl).
The peers are ``base64`` + ``json`` + pyca/cryptography (secp256k1 and Ed25519), and the same
with coincurve (libsecp256k1) for secp256k1. The signatures are low-S, which libsecp256k1
requires.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from typing import Any

import coincurve
import embedded_wallet_crypto as ewc
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

K1, ED, P256 = ewc.STAMP_SCHEME_SECP256K1, ewc.STAMP_SCHEME_ED25519, ewc.STAMP_SCHEME_P256
ALL = (P256, K1, ED)
K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
PAYLOAD = (
    b'{"organizationId":"org-bench","parameters":{"apiKeys":[{"apiKeyName":"bench",'
    b'"publicKey":"02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316"}],'
    b'"userId":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},"timestampMs":"1767225600000",'
    b'"type":"ACTIVITY_TYPE_CREATE_API_KEYS"}'
)


def _secret(label: bytes) -> bytes:
    return hashlib.sha256(b"embedded-wallet-crypto stamp-scheme bench " + label).digest()


def _write(public_key: bytes, scheme: str, signature: bytes) -> str:
    fields = {"publicKey": public_key.hex(), "scheme": scheme, "signature": signature.hex()}
    return base64.urlsafe_b64encode(json.dumps(fields, separators=(",", ":")).encode()).decode()


def k1_stamp(label: bytes, payload: bytes) -> tuple[str, bytes]:
    """A secp256k1 stamp with a low-S RFC 6979 signature (pyca/cryptography)."""
    key = ec.derive_private_key(int.from_bytes(_secret(label), "big"), ec.SECP256K1())
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint
    )
    der = key.sign(payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    r, s = decode_dss_signature(der)
    return _write(public, K1, encode_dss_signature(r, min(s, K1_N - s))), public


def ed_stamp(label: bytes, payload: bytes) -> tuple[str, bytes]:
    key = ed25519.Ed25519PrivateKey.from_private_bytes(_secret(label))
    public = key.public_key().public_bytes_raw()
    return _write(public, ED, key.sign(payload)), public


K1_STAMP, K1_PUBLIC = k1_stamp(b"k1", PAYLOAD)
ED_STAMP, ED_PUBLIC = ed_stamp(b"ed", PAYLOAD)


def _fields(stamp: str, scheme: str) -> dict[str, str]:
    fields: dict[str, str] = json.loads(base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4)))
    if fields["scheme"] != scheme:
        raise ValueError("unexpected stamp scheme")
    return fields


def cryptography_verify_k1(stamp: str, payload: bytes) -> str:
    """base64 + json + cryptography: raises on any failure; returns the signer's key hex."""
    fields = _fields(stamp, K1)
    key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256K1(), bytes.fromhex(fields["publicKey"])
    )
    key.verify(bytes.fromhex(fields["signature"]), payload, ec.ECDSA(hashes.SHA256()))
    return fields["publicKey"]


def coincurve_verify_k1(stamp: str, payload: bytes) -> str:
    """base64 + json + coincurve (libsecp256k1, low-S only)."""
    fields = _fields(stamp, K1)
    key = coincurve.PublicKey(bytes.fromhex(fields["publicKey"]))
    if not key.verify(bytes.fromhex(fields["signature"]), payload):  # SHA-256 by default
        raise ValueError("bad signature")
    return fields["publicKey"]


def cryptography_verify_ed(stamp: str, payload: bytes) -> str:
    fields = _fields(stamp, ED)
    key = ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(fields["publicKey"]))
    key.verify(bytes.fromhex(fields["signature"]), payload)
    return fields["publicKey"]


def _run(benchmark: Any, group: str, impl: str, fn: Callable[[], Any]) -> Any:
    benchmark.group = group
    benchmark.extra_info["impl"] = impl
    return benchmark(fn)


# --- one secp256k1 stamp (one API key: every verifier's key cache, where it has one, is hot) ---

K1_IMPLS: dict[str, Callable[[], Any]] = {
    "ours": lambda: ewc.verify_stamp(K1_STAMP, PAYLOAD, schemes=ALL).public_key,
    "python-cryptography": lambda: cryptography_verify_k1(K1_STAMP, PAYLOAD),
    "python-coincurve": lambda: coincurve_verify_k1(K1_STAMP, PAYLOAD),
}


K1_TAMPERED: dict[str, Callable[[], Any]] = {
    "ours": lambda: ewc.verify_stamp(K1_STAMP, PAYLOAD + b" ", schemes=ALL),
    "python-cryptography": lambda: cryptography_verify_k1(K1_STAMP, PAYLOAD + b" "),
    "python-coincurve": lambda: coincurve_verify_k1(K1_STAMP, PAYLOAD + b" "),
}


@pytest.mark.parametrize("impl", list(K1_IMPLS))
def test_verify_secp256k1_stamp(benchmark: Any, impl: str) -> None:
    assert _run(benchmark, "stamp-verify-secp256k1", impl, K1_IMPLS[impl]) == K1_PUBLIC.hex()
    with pytest.raises((ewc.StampError, InvalidSignature, ValueError)):
        K1_TAMPERED[impl]()  # the same stamp over another payload fails in every verifier


# --- one Ed25519 stamp ---------------------------------------------------------------------------

ED_IMPLS: dict[str, Callable[[], Any]] = {
    "ours": lambda: ewc.verify_stamp(ED_STAMP, PAYLOAD, schemes=ALL).public_key,
    "python-cryptography": lambda: cryptography_verify_ed(ED_STAMP, PAYLOAD),
}


@pytest.mark.parametrize("impl", list(ED_IMPLS))
def test_verify_ed25519_stamp(benchmark: Any, impl: str) -> None:
    assert _run(benchmark, "stamp-verify-ed25519", impl, ED_IMPLS[impl]) == ED_PUBLIC.hex()
    with pytest.raises((ewc.StampError, InvalidSignature)):
        if impl == "ours":
            ewc.verify_stamp(ED_STAMP, PAYLOAD + b" ", schemes=ALL)
        else:
            cryptography_verify_ed(ED_STAMP, PAYLOAD + b" ")


# --- a batch of mixed schemes: verify_stamps on every core vs verify_stamp in a Python loop ------

MIXED = 9_000
MIXED_KEYS = 64


@pytest.fixture(scope="module")
def mixed_batch() -> tuple[list[str], list[bytes]]:
    session_keys = [ewc.KeyPair.from_private_bytes(_secret(b"p%d" % i)) for i in range(MIXED_KEYS)]
    stamps, payloads = [], []
    for i in range(MIXED):
        payload = PAYLOAD.replace(b"1767225600000", str(1767225600000 + i).encode())
        which = i % 3
        if which == 0:
            stamp = ewc.create_stamp(payload, session_keys[i % MIXED_KEYS])
        elif which == 1:
            stamp, _ = k1_stamp(b"k%d" % (i % MIXED_KEYS), payload)
        else:
            stamp, _ = ed_stamp(b"e%d" % (i % MIXED_KEYS), payload)
        stamps.append(stamp)
        payloads.append(payload)
    return stamps, payloads


def _mixed_loop(stamps: list[str], payloads: list[bytes]) -> list[bool]:
    verify = ewc.verify_stamp
    return [bool(verify(s, p, schemes=ALL).scheme) for s, p in zip(stamps, payloads, strict=True)]


def _mixed_batch(stamps: list[str], payloads: list[bytes]) -> list[bool]:
    return ewc.verify_stamps(stamps, payloads, schemes=ALL)


@pytest.mark.parametrize("impl", ["ours-verify_stamps", "ours-verify_stamp-loop"])
def test_verify_stamps_mixed_schemes(
    benchmark: Any, mixed_batch: tuple[list[str], list[bytes]], impl: str
) -> None:
    stamps, payloads = mixed_batch
    benchmark.group = f"stamp-verify-mixed-batch-x{MIXED}"
    benchmark.extra_info["impl"] = impl
    benchmark.extra_info["ops"] = MIXED
    fn = _mixed_batch if impl == "ours-verify_stamps" else _mixed_loop
    verdicts = benchmark.pedantic(fn, args=(stamps, payloads), rounds=5, warmup_rounds=1)
    assert verdicts == [True] * MIXED
    if impl == "ours-verify_stamps":
        assert ewc.verify_stamps(stamps, payloads)[:3] == [True, False, False]  # P-256 only
