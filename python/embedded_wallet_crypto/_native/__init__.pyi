"""Stubs for the Rust extension (rust/python). Thin conversions over rust/core.

The test-only primitives are in the submodule ``test_support``.
"""

from collections.abc import Iterable
from typing import NoReturn, final

from typing_extensions import Buffer

from . import test_support as test_support

_Bytes = Buffer
_Key = str | Buffer

__all__ = [
    "AEAD_AES_128_GCM",
    "AEAD_AES_256_GCM",
    "ENVELOPE_VERSION",
    "KDF_HKDF_SHA256",
    "KEM_DHKEM_P256_HKDF_SHA256",
    "MAX_ENVELOPE_BYTES",
    "STAMP_SCHEME",
    "STAMP_SCHEME_ED25519",
    "STAMP_SCHEME_SECP256K1",
    "Ed25519KeyPair",
    "HpkeContext",
    "KeyPair",
    "Secp256k1KeyPair",
    "__version__",
    "assemble_stamp",
    "b58check_decode",
    "b58check_encode",
    "b58decode",
    "b58encode",
    "compress_public_key",
    "create_stamp",
    "decrypt_otp_bundle",
    "der_to_p1363",
    "encrypt_otp_code",
    "hpke_derive_key_pair",
    "hpke_open",
    "hpke_seal",
    "hpke_seal_deterministic_for_tests",
    "hpke_setup_receiver",
    "hpke_setup_sender",
    "open_export_bundle",
    "open_import_bundle",
    "open_session_key",
    "p1363_to_der",
    "parse_public_key",
    "seal_export_bundle",
    "seal_import_bundle",
    "seal_session_key",
    "seal_target_bundle",
    "seal_to_import_target",
    "test_support",
    "verify_import_bundle",
    "verify_signature",
    "verify_signature_p1363",
    "verify_stamp",
    "verify_stamps",
]

__version__: str

AEAD_AES_128_GCM: int
AEAD_AES_256_GCM: int
KEM_DHKEM_P256_HKDF_SHA256: int
KDF_HKDF_SHA256: int

@final
class KeyPair:
    @staticmethod
    def generate() -> KeyPair: ...
    @staticmethod
    def from_private_bytes(private_key: _Bytes) -> KeyPair: ...
    @staticmethod
    def from_private_hex(private_key_hex: str) -> KeyPair: ...
    def public_key_bytes(self, compressed: bool = False) -> bytes: ...
    def public_key_hex(self, compressed: bool = False) -> str: ...
    def private_key_bytes(self) -> bytes: ...
    def sign(self, message: _Bytes) -> bytes: ...
    def __reduce__(self) -> NoReturn: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Secp256k1KeyPair:
    @staticmethod
    def generate() -> Secp256k1KeyPair: ...
    @staticmethod
    def from_private_bytes(private_key: _Bytes) -> Secp256k1KeyPair: ...
    @property
    def scheme(self) -> str: ...
    def public_key_bytes(self) -> bytes: ...
    def public_key_hex(self) -> str: ...
    def private_key_bytes(self) -> bytes: ...
    def sign(self, message: _Bytes) -> bytes: ...
    def __reduce__(self) -> NoReturn: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Ed25519KeyPair:
    @staticmethod
    def generate() -> Ed25519KeyPair: ...
    @staticmethod
    def from_private_bytes(private_key: _Bytes) -> Ed25519KeyPair: ...
    @property
    def scheme(self) -> str: ...
    def public_key_bytes(self) -> bytes: ...
    def public_key_hex(self) -> str: ...
    def private_key_bytes(self) -> bytes: ...
    def sign(self, message: _Bytes) -> bytes: ...
    def __reduce__(self) -> NoReturn: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class HpkeContext:
    @property
    def sequence_number(self) -> int: ...
    def seal(self, aad: _Bytes, plaintext: _Bytes) -> bytes: ...
    def open(self, aad: _Bytes, ciphertext: _Bytes) -> bytes: ...
    def export(self, exporter_context: _Bytes, length: int) -> bytes: ...

def parse_public_key(key: _Key) -> bytes: ...
def compress_public_key(key: _Key) -> bytes: ...
def verify_signature(public_key: _Key, message: _Bytes, signature_der: _Bytes) -> bool: ...
def verify_signature_p1363(public_key: _Key, message: _Bytes, signature: _Bytes) -> bool: ...
def der_to_p1363(signature: _Bytes) -> bytes: ...
def p1363_to_der(signature: _Bytes) -> bytes: ...
def hpke_seal(
    recipient_public_key: _Key, plaintext: _Bytes, info: _Bytes, aad: _Bytes | None = None
) -> tuple[bytes, bytes]: ...
def hpke_seal_deterministic_for_tests(
    recipient_public_key: _Key,
    plaintext: _Bytes,
    ephemeral_key: KeyPair,
    info: _Bytes,
    aad: _Bytes | None = None,
) -> tuple[bytes, bytes]: ...
def hpke_open(
    recipient_key: KeyPair | _Bytes,
    enc: _Key,
    ciphertext: _Bytes,
    info: _Bytes,
    aad: _Bytes | None = None,
) -> bytes: ...
def hpke_derive_key_pair(ikm: _Bytes) -> KeyPair: ...
def hpke_setup_sender(
    recipient_public_key: _Key,
    info: _Bytes,
    aead_id: int,
    ephemeral_key: KeyPair | None = None,
) -> tuple[bytes, HpkeContext]: ...
def hpke_setup_receiver(
    recipient_key: KeyPair | _Bytes, enc: _Key, info: _Bytes, aead_id: int
) -> HpkeContext: ...
def b58encode(data: _Bytes) -> str: ...
def b58decode(text: str) -> bytes: ...
def b58check_encode(data: _Bytes) -> str: ...
def b58check_decode(text: str) -> bytes: ...

STAMP_SCHEME: str
STAMP_SCHEME_SECP256K1: str
STAMP_SCHEME_ED25519: str

def seal_session_key(client_public_key: _Key, session_key: KeyPair) -> str: ...
def open_session_key(
    encrypted_session_signing_key: str, client_key: KeyPair | _Bytes
) -> KeyPair: ...
def create_stamp(
    payload: str | _Bytes, key: KeyPair | Secp256k1KeyPair | Ed25519KeyPair
) -> str: ...
def assemble_stamp(
    payload: str | _Bytes, scheme: str, public_key: str, signature: _Bytes
) -> str: ...
def verify_stamp(
    stamp: str,
    payload: str | _Bytes,
    expected_public_key: _Key | None = None,
    schemes: Iterable[str] | None = None,
) -> tuple[str, str, bytes]: ...
def verify_stamps(
    stamps: Iterable[str],
    payloads: Iterable[str | _Bytes],
    expected_public_keys: Iterable[_Key | None] | None = None,
    schemes: Iterable[str] | None = None,
) -> list[bool]: ...

# Envelopes (rust/python/src/envelope.rs over rust/core/src/envelope.rs). The caller resolves
# the sandbox policy; `ephemeral_key` is for known-answer vectors only (see ewc.testing).

ENVELOPE_VERSION: str
MAX_ENVELOPE_BYTES: int

def open_export_bundle(
    bundle: str | _Bytes,
    client_key: KeyPair | _Bytes,
    signer_public_key: _Key,
    sandbox_allowed: bool,
    organization_id: str | None = None,
) -> bytes: ...
def seal_export_bundle(
    client_public_key: _Key,
    secret: str | _Bytes,
    organization_id: str,
    signer: KeyPair | None = None,
    ephemeral_key: KeyPair | None = None,
) -> str: ...
def seal_target_bundle(
    target_public_key: _Key, organization_id: str, user_id: str, signer: KeyPair | None = None
) -> str: ...
def encrypt_otp_code(
    target_bundle: str | _Bytes,
    otp_code: str,
    client_public_key: _Key,
    signer_public_key: _Key,
    sandbox_allowed: bool,
    organization_id: str | None = None,
    user_id: str | None = None,
    ephemeral_key: KeyPair | None = None,
) -> str: ...
def decrypt_otp_bundle(
    encrypted_otp_bundle: str | _Bytes, target_key: KeyPair | _Bytes
) -> tuple[str, str]: ...
def seal_import_bundle(
    target_public_key: _Key, organization_id: str, user_id: str, signer: KeyPair | None = None
) -> str: ...
def verify_import_bundle(
    import_bundle: str | _Bytes,
    signer_public_key: _Key,
    sandbox_allowed: bool,
    organization_id: str | None = None,
    user_id: str | None = None,
) -> bytes: ...
def seal_to_import_target(
    target_public_key: _Key, plaintext: _Bytes, ephemeral_key: KeyPair | None = None
) -> str: ...
def open_import_bundle(encrypted_bundle: str | _Bytes, target_key: KeyPair | _Bytes) -> bytes: ...
