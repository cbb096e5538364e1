"""Stamps in every scheme made through a StampSigner, keys the library never sees: a
pyca/cryptography key wrapped, and scripted signers that return garbage (typed errors)."""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _stamp_schemes_support import (
    ALL,
    ED,
    ED_KEY,
    K1,
    K1_KEY,
    P256,
    P256_KEY,
)
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

# --- StampSigner: keys the library never sees -----------------------------------------------------


class CryptographySigner:
    """A `cryptography` private key standing in for a KMS: the library never sees the secret."""

    def __init__(self, key: Any, scheme: str) -> None:
        self._key, self.scheme = key, scheme

    def public_key_hex(self) -> str:
        public = self._key.public_key()
        if isinstance(public, ed25519.Ed25519PublicKey):
            return public.public_bytes_raw().hex()
        return public.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint
        ).hex()

    def sign(self, message: bytes) -> bytes:
        if isinstance(self._key, ed25519.Ed25519PrivateKey):
            return self._key.sign(message)
        signature: bytes = self._key.sign(message, ec.ECDSA(hashes.SHA256()))
        return signature


SIGNERS = {
    "p256": lambda: CryptographySigner(ec.generate_private_key(ec.SECP256R1()), P256),
    "secp256k1": lambda: CryptographySigner(ec.generate_private_key(ec.SECP256K1()), K1),
    "ed25519": lambda: CryptographySigner(ed25519.Ed25519PrivateKey.generate(), ED),
}


@pytest.mark.parametrize("name", list(SIGNERS))
def test_stamp_signer_wrapping_a_cryptography_key_verifies(name: str) -> None:
    signer = SIGNERS[name]()
    assert isinstance(signer, ewc.StampSigner)
    payload = '{"type":"ACTIVITY_TYPE_CREATE_API_KEYS","memo":"café"}'
    stamp = ewc.create_stamp(payload, signer)
    verified = ewc.verify_stamp(
        stamp, payload.encode(), expected_public_key=signer.public_key_hex(), schemes=ALL
    )
    assert (verified.scheme, verified.public_key) == (signer.scheme, signer.public_key_hex())
    assert ewc.verify_stamps([stamp], [payload], schemes=ALL) == [True]


class Scripted:
    """A signer whose every answer is given."""

    def __init__(self, scheme: object, public: object, sign: object) -> None:
        self._scheme, self._public, self._sign = scheme, public, sign

    @property
    def scheme(self) -> Any:
        if isinstance(self._scheme, Exception):
            raise self._scheme
        return self._scheme

    def public_key_hex(self) -> Any:
        if isinstance(self._public, Exception):
            raise self._public
        return self._public

    def sign(self, message: bytes) -> Any:
        if isinstance(self._sign, Exception):
            raise self._sign
        return self._sign(message) if callable(self._sign) else self._sign


def test_stamp_signer_garbage_is_a_typed_error() -> None:
    payload = b"payload"
    pub, good = ED_KEY.public_key_hex(), ED_KEY.sign
    released = memoryview(b"x" * 64)
    released.release()
    cases = {
        "scheme raises": (Scripted(RuntimeError("hsm down"), pub, good), "STAMP_SIGNER_FAILED"),
        "public key raises": (Scripted(ED, OSError("kms"), good), "STAMP_SIGNER_FAILED"),
        "sign raises": (Scripted(ED, pub, TimeoutError("kms")), "STAMP_SIGNER_FAILED"),
        "unknown scheme": (Scripted("ED25519", pub, good), "WALLET_SIGNATURE_SCHEME_UNSUPPORTED"),
        "scheme not str": (Scripted(7, pub, good), "WALLET_SIGNATURE_SCHEME_UNSUPPORTED"),
        "public key bytes": (Scripted(ED, bytes.fromhex(pub), good), "WALLET_SIGNATURE_MALFORMED"),
        "public key not hex": (Scripted(ED, "zz" * 32, good), "WALLET_SIGNATURE_MALFORMED"),
        "public key surrogate": (Scripted(ED, "\ud800", good), "WALLET_SIGNATURE_MALFORMED"),
        "signature str": (Scripted(ED, pub, "ab" * 64), "WALLET_SIGNATURE_MALFORMED"),
        "signature None": (Scripted(ED, pub, None), "WALLET_SIGNATURE_MALFORMED"),
        "signature released": (Scripted(ED, pub, released), "WALLET_SIGNATURE_MALFORMED"),
        "signature short": (Scripted(ED, pub, b"\x01" * 63), "WALLET_SIGNATURE_MALFORMED"),
        "signature over other bytes": (
            Scripted(ED, pub, lambda m: ED_KEY.sign(m + b"!")),
            "WALLET_SIGNATURE_INVALID",
        ),
        "another key's signature": (
            Scripted(ED, ewc.Ed25519KeyPair.generate().public_key_hex(), good),
            "WALLET_SIGNATURE_INVALID",
        ),
        "ECDSA over a prehash": (
            Scripted(K1, K1_KEY.public_key_hex(), lambda m: K1_KEY.sign(hashes_sha256(m))),
            "WALLET_SIGNATURE_INVALID",
        ),
        "DER where Ed25519 is due": (
            Scripted(ED, pub, lambda m: K1_KEY.sign(m)),
            "WALLET_SIGNATURE_MALFORMED",
        ),
        "P1363 where DER is due": (
            Scripted(
                P256,
                P256_KEY.public_key_hex(compressed=True),
                lambda m: ewc.der_to_p1363(P256_KEY.sign(m)),
            ),
            "WALLET_SIGNATURE_MALFORMED",
        ),
        "uncompressed P-256 key": (
            Scripted(P256, P256_KEY.public_key_hex(), lambda m: P256_KEY.sign(m)),
            "WALLET_SIGNATURE_MALFORMED",
        ),
    }
    for name, (signer, code) in cases.items():
        with pytest.raises(ewc.StampError) as caught:
            ewc.create_stamp(payload, signer)  # type: ignore[arg-type]
        assert caught.value.code == code, name
    # The signer's own exception is chained for the operator, not copied into the reason.
    with pytest.raises(ewc.StampError) as caught:
        ewc.create_stamp(payload, Scripted(ED, pub, RuntimeError("secret-ish detail")))  # type: ignore[arg-type]
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert "secret-ish" not in str(caught.value)


def hashes_sha256(message: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(message).digest()


def test_create_stamp_refuses_other_types() -> None:
    for key in (None, "key", b"\x11" * 32, object(), P256_KEY.public_key_hex()):
        with pytest.raises(TypeError):
            ewc.create_stamp("p", key)  # type: ignore[arg-type]
