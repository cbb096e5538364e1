"""Test ID tokens made by the project's own test keys, the same bytes on every run.

Nothing here verifies anything: it mints tokens for the vectors, the tests and the benchmarks,
without the library under test. ES256 keys come from RFC 9180 DeriveKeyPair over fixed labels
(``_common.key``) and sign with RFC 6979 deterministic ECDSA, encoded as JWS wants it (raw
r||s, RFC 7518 section 3.4). The RSA key is derived from a label too: two 1024-bit primes found
by a deterministic search (SHA-256 counter stream, trial division, Miller-Rabin), so no private
key file is committed and RS256 (PKCS #1 v1.5, deterministic) tokens are reproducible.
These keys are TEST MATERIAL: public labels, never for anything real.
"""

from __future__ import annotations

import base64
import functools
import json
import math
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from . import _reference as ref
from ._common import key, stream

__all__ = ["b64url", "es256_jwk", "rsa_jwk", "rsa_test_key", "sign_es256", "sign_rs256"]

_E = 65537
_SMALL_PRIMES = [p for p in range(3, 2000) if all(p % d for d in range(2, math.isqrt(p) + 1))]
_MR_BASES = _SMALL_PRIMES[:24]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def segment(value: dict[str, Any]) -> str:
    """A header or claims object, compact JSON, base64url."""
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def _uint(value: int, length: int | None = None) -> str:
    size = length or (value.bit_length() + 7) // 8
    return b64url(value.to_bytes(size, "big"))


def es256_jwk(label: str, kid: str) -> dict[str, str]:
    _, public = key(label)
    return {
        "kty": "EC",
        "crv": "P-256",
        "kid": kid,
        "alg": "ES256",
        "use": "sig",
        "x": b64url(public[1:33]),
        "y": b64url(public[33:]),
    }


def sign_es256(label: str, header: dict[str, Any], claims: dict[str, Any]) -> str:
    scalar, _ = key(label)
    signing_input = f"{segment(header)}.{segment(claims)}"
    r, s = ref.sign_deterministic(scalar, signing_input.encode("ascii"))
    return f"{signing_input}.{b64url(ref.int32(r) + ref.int32(s))}"


def _is_probable_prime(n: int) -> bool:
    if any(n % p == 0 for p in _SMALL_PRIMES):
        return n in _SMALL_PRIMES
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for base in _MR_BASES:
        x = pow(base, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(label: str, bits: int) -> int:
    start = int.from_bytes(stream(label, bits // 8), "big")
    candidate = start | (3 << (bits - 2)) | 1  # two top bits: p*q has exactly 2*bits bits
    while not (_is_probable_prime(candidate) and math.gcd(candidate - 1, _E) == 1):
        candidate += 2
    return candidate


@functools.lru_cache(maxsize=4)
def rsa_test_key(label: str, bits: int = 2048) -> rsa.RSAPrivateKey:
    """A deterministic RSA key from a label (test material only)."""
    p = _prime(f"embedded-wallet-crypto RSA test key {label}/p", bits // 2)
    q = _prime(f"embedded-wallet-crypto RSA test key {label}/q", bits // 2)
    d = pow(_E, -1, math.lcm(p - 1, q - 1))
    numbers = rsa.RSAPrivateNumbers(
        p=p,
        q=q,
        d=d,
        dmp1=d % (p - 1),
        dmq1=d % (q - 1),
        iqmp=pow(q, -1, p),
        public_numbers=rsa.RSAPublicNumbers(_E, p * q),
    )
    return numbers.private_key(unsafe_skip_rsa_key_validation=True)  # built right above


def rsa_jwk(label: str, kid: str) -> dict[str, str]:
    numbers = rsa_test_key(label).public_key().public_numbers()
    return {
        "kty": "RSA",
        "kid": kid,
        "alg": "RS256",
        "use": "sig",
        "n": _uint(numbers.n),
        "e": _uint(numbers.e),
    }


def sign_rs256(label: str, header: dict[str, Any], claims: dict[str, Any]) -> str:
    signing_input = f"{segment(header)}.{segment(claims)}"
    signature = rsa_test_key(label).sign(
        signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256()
    )
    return f"{signing_input}.{b64url(signature)}"
