"""Stubs for ``_native.test_support`` (rust/python/src/test_support.rs): primitives for tests
and upstream vectors only, never called by the library."""

from typing_extensions import Buffer

from . import KeyPair

_Bytes = Buffer
_Key = str | Buffer

__all__ = [
    "aes_gcm_open",
    "aes_gcm_seal",
    "ecdh_for_tests",
    "hkdf_expand",
    "hkdf_extract",
    "sha256",
]

def ecdh_for_tests(private_key: KeyPair | _Bytes, peer_public_key: _Key) -> bytes: ...
def aes_gcm_seal(key: _Bytes, nonce: _Bytes, aad: _Bytes, plaintext: _Bytes) -> bytes: ...
def aes_gcm_open(key: _Bytes, nonce: _Bytes, aad: _Bytes, ciphertext: _Bytes) -> bytes: ...
def hkdf_extract(salt: _Bytes, ikm: _Bytes) -> bytes: ...
def hkdf_expand(prk: _Bytes, info: _Bytes, length: int) -> bytes: ...
def sha256(data: _Bytes) -> bytes: ...
