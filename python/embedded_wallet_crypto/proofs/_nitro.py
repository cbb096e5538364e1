"""AWS Nitro attestation documents (formats.md section 16): a COSE_Sign1 (ES384) whose leaf
certificate chains to the pinned AWS Nitro root.

CBOR is read with cbor2 and the certificates are checked with ``cryptography``'s X.509 path
validation; the COSE signature is checked with ``cryptography`` (P-384 / SHA-384).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from datetime import datetime, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .._contract import buffer_bytes
from . import _common as c

if TYPE_CHECKING:
    from cryptography import x509

__all__ = ["AWS_NITRO_ROOT_PEM", "AWS_NITRO_ROOT_SHA256", "root_der", "verify_document"]

#: The AWS Nitro Enclaves root certificate (G1), public; valid 2019-10-28 to 2049-10-28.
AWS_NITRO_ROOT_PEM = """-----BEGIN CERTIFICATE-----
MIICETCCAZagAwIBAgIRAPkxdWgbkK/hHUbMtOTn+FYwCgYIKoZIzj0EAwMwSTEL
MAkGA1UEBhMCVVMxDzANBgNVBAoMBkFtYXpvbjEMMAoGA1UECwwDQVdTMRswGQYD
VQQDDBJhd3Mubml0cm8tZW5jbGF2ZXMwHhcNMTkxMDI4MTMyODA1WhcNNDkxMDI4
MTQyODA1WjBJMQswCQYDVQQGEwJVUzEPMA0GA1UECgwGQW1hem9uMQwwCgYDVQQL
DANBV1MxGzAZBgNVBAMMEmF3cy5uaXRyby1lbmNsYXZlczB2MBAGByqGSM49AgEG
BSuBBAAiA2IABPwCVOumCMHzaHDimtqQvkY4MpJzbolL//Zy2YlES1BR5TSksfbb
48C8WBoyt7F2Bw7eEtaaP+ohG2bnUs990d0JX28TcPQXCEPZ3BABIeTPYwEoCWZE
h8l5YoQwTcU/9KNCMEAwDwYDVR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQUkCW1DdkF
R+eWw5b6cp3PmanfS5YwDgYDVR0PAQH/BAQDAgGGMAoGCCqGSM49BAMDA2kAMGYC
MQCjfy+Rocm9Xue4YnwWmNJVA44fA0P5W2OpYow9OYCVRaEevL8uO1XYru5xtMPW
rfMCMQCi85sWBbJwKKXdS6BptQFuZbT73o/gBh1qUxl/nNr12UO8Yfwr6wPLb+6N
IwLz3/Y=
-----END CERTIFICATE-----
"""
#: SHA-256 of the root certificate's DER, AWS's published fingerprint; checked before use.
AWS_NITRO_ROOT_SHA256 = "641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b"

_ES384 = -35  # the COSE algorithm identifier
_DOCUMENT_KEYS = frozenset(
    {
        "module_id",
        "digest",
        "timestamp",
        "pcrs",
        "certificate",
        "cabundle",
        "public_key",
        "user_data",
        "nonce",
    }
)


def verify_document(document: object, now: object) -> tuple[Mapping[str, Any], x509.Certificate]:
    """The attestation document's fields and its leaf certificate, once the COSE_Sign1
    structure, the fields, the chain at ``now`` and the signature are checked.

    Raises:
        ProofError: ``BOOT_PROOF_MALFORMED``, ``BOOT_PROOF_ALGORITHM_UNSUPPORTED``,
            ``BOOT_PROOF_CHAIN_INVALID``, ``BOOT_PROOF_SIGNATURE_INVALID``.
        TypeError: a wrong argument type, or ``now`` not an aware datetime.
    """
    instant = _now(now)
    raw = _document_bytes(document)
    protected, payload, signature = _cose_sign1(raw)
    fields = _attestation(payload)
    leaf = _verify_chain(fields, instant)
    _verify_cose_signature(leaf, protected, payload, signature)
    return fields, leaf


def root_der() -> bytes:
    """The DER of the pinned root."""
    from cryptography.hazmat.primitives.serialization import Encoding

    return _root().public_bytes(Encoding.DER)


def _now(now: object) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    if isinstance(now, datetime) and now.utcoffset() is not None:
        return now
    raise TypeError("now must be a timezone-aware datetime (or None for the current time)")


def _document_bytes(document: object) -> bytes:
    if isinstance(document, str):
        return c.base64_bytes(document, "attestation document", c.BOOT_MALFORMED)
    raw = buffer_bytes(document, "attestation_document")
    if len(raw) > c.MAX_PROOF_LENGTH:
        c.fail(c.BOOT_MALFORMED, f"the attestation document is over {c.MAX_PROOF_LENGTH} bytes")
    return raw


def _cbor(data: bytes, what: str) -> Any:
    """One CBOR item filling ``data`` exactly (cbor2); any decoding failure is malformed."""
    import cbor2

    stream = io.BytesIO(data)
    try:
        value = cbor2.CBORDecoder(stream).decode()
    except Exception:  # cbor2 raises several types on hostile input
        c.fail(c.BOOT_MALFORMED, f"the {what} is not valid CBOR")
    if stream.tell() != len(data):
        c.fail(c.BOOT_MALFORMED, f"the {what} has bytes after its CBOR item")
    return value


def _cose_sign1(raw: bytes) -> tuple[bytes, bytes, bytes]:
    import cbor2

    value = _cbor(raw, "attestation document")
    if isinstance(value, cbor2.CBORTag):
        if value.tag != 18:
            c.fail(c.BOOT_MALFORMED, "the attestation document is not a COSE_Sign1")
        value = value.value
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        c.fail(c.BOOT_MALFORMED, "the attestation document is not a COSE_Sign1 array")
    protected, unprotected, payload, signature = value
    if not all(type(part) is bytes for part in (protected, payload, signature)):
        c.fail(c.BOOT_MALFORMED, "the COSE_Sign1 parts are not byte strings")
    if not isinstance(unprotected, Mapping):
        c.fail(c.BOOT_MALFORMED, "the COSE_Sign1 unprotected header is not a map")
    header = _cbor(protected, "protected header")
    if not isinstance(header, Mapping) or header.get(1) != _ES384 or type(header[1]) is not int:
        c.fail(c.BOOT_ALGORITHM_UNSUPPORTED, "the COSE_Sign1 algorithm is not ES384")
    if len(signature) != 96:
        c.fail(c.BOOT_SIGNATURE_INVALID, "the COSE_Sign1 signature is not 96 bytes (r || s)")
    return protected, payload, signature


def _optional_bytes(document: Mapping[str, Any], name: str, largest: int) -> None:
    value = document[name]
    if value is not None and (type(value) is not bytes or not 0 < len(value) <= largest):
        c.fail(c.BOOT_MALFORMED, f"the attestation document's {name} is not 1..{largest} bytes")


def _attestation(payload: bytes) -> Mapping[str, Any]:
    """The attestation document, its fields checked for type and size (the Nitro spec)."""
    document = _cbor(payload, "attestation payload")
    if not isinstance(document, Mapping) or set(document) != _DOCUMENT_KEYS:
        c.fail(c.BOOT_MALFORMED, "the attestation payload does not have the Nitro fields")
    module_id = document["module_id"]
    if type(module_id) is not str or not module_id:
        c.fail(c.BOOT_MALFORMED, "the attestation document's module_id is not a string")
    if document["digest"] != "SHA384":
        c.fail(c.BOOT_MALFORMED, "the attestation document's digest is not SHA384")
    timestamp = document["timestamp"]
    if type(timestamp) is not int or not 0 < timestamp <= 253_402_300_799_999:
        c.fail(c.BOOT_MALFORMED, "the attestation document's timestamp is out of range")
    pcrs = document["pcrs"]
    if (
        not isinstance(pcrs, Mapping)
        or not 1 <= len(pcrs) <= 32
        or any(type(index) is not int or not 0 <= index < 32 for index in pcrs)
        or any(
            type(value) is not bytes or len(value) not in (32, 48, 64) for value in pcrs.values()
        )
    ):
        c.fail(c.BOOT_MALFORMED, "the attestation document's pcrs are malformed")
    certificate = document["certificate"]
    if type(certificate) is not bytes or not 0 < len(certificate) <= 1024:
        c.fail(c.BOOT_MALFORMED, "the attestation document's certificate is not 1..1024 bytes")
    bundle = document["cabundle"]
    if (
        not isinstance(bundle, (list, tuple))
        or not bundle
        or any(type(item) is not bytes or not 0 < len(item) <= 1024 for item in bundle)
    ):
        c.fail(c.BOOT_MALFORMED, "the attestation document's cabundle is malformed")
    _optional_bytes(document, "public_key", 1024)
    _optional_bytes(document, "user_data", 512)
    _optional_bytes(document, "nonce", 512)
    return document


@lru_cache(maxsize=1)
def _root() -> x509.Certificate:
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    root = x509.load_pem_x509_certificate(AWS_NITRO_ROOT_PEM.encode("ascii"))
    if hashlib.sha256(root.public_bytes(Encoding.DER)).hexdigest() != AWS_NITRO_ROOT_SHA256:
        raise RuntimeError("the pinned AWS Nitro root does not match its fingerprint")
    return root


def _leaf_constraints(policy: object, certificate: object, value: object) -> None:
    from cryptography import x509

    if not isinstance(value, x509.BasicConstraints) or value.ca:
        raise ValueError("the leaf certificate must have CA:FALSE")


def _leaf_key_usage(policy: object, certificate: object, value: object) -> None:
    from cryptography import x509

    if not isinstance(value, x509.KeyUsage) or not value.digital_signature:
        raise ValueError("the leaf certificate's key usage must allow digitalSignature")


def _verify_chain(document: Mapping[str, Any], now: datetime) -> x509.Certificate:
    """The leaf, chained to the pinned root through the bundle (its first entry, the root the
    document carries, is replaced by the pinned one), every certificate valid at ``now``."""
    from cryptography import x509
    from cryptography.x509.verification import (
        Criticality,
        ExtensionPolicy,
        PolicyBuilder,
        Store,
        VerificationError,
    )

    try:
        leaf = x509.load_der_x509_certificate(document["certificate"])
        intermediates = [x509.load_der_x509_certificate(der) for der in document["cabundle"][1:]]
    except ValueError:
        c.fail(c.BOOT_MALFORMED, "a certificate of the attestation document is not DER X.509")
    # Nitro leaves carry no authority key identifier, which the default leaf profile requires;
    # the leaf rules here are the ones the Nitro attestation process states.
    leaf_policy = (
        ExtensionPolicy.permit_all()
        .require_present(x509.BasicConstraints, Criticality.AGNOSTIC, _leaf_constraints)
        .require_present(x509.KeyUsage, Criticality.AGNOSTIC, _leaf_key_usage)
    )
    try:
        verifier = (
            PolicyBuilder()
            .store(Store([_root()]))
            .time(now.astimezone(timezone.utc).replace(tzinfo=None))
            .extension_policies(
                ca_policy=ExtensionPolicy.webpki_defaults_ca(), ee_policy=leaf_policy
            )
            .build_client_verifier()
        )
        verifier.verify(leaf, intermediates)
    except (VerificationError, ValueError, OverflowError) as error:
        c.fail(c.BOOT_CHAIN_INVALID, f"the certificate chain does not verify: {error}"[:300])
    return leaf


def _verify_cose_signature(
    leaf: x509.Certificate, protected: bytes, payload: bytes, signature: bytes
) -> None:
    import cbor2
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    key = leaf.public_key()
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp384r1":
        c.fail(c.BOOT_SIGNATURE_INVALID, "the leaf certificate's key is not P-384")
    to_be_signed = cbor2.dumps(["Signature1", protected, b"", payload])
    der = encode_dss_signature(
        int.from_bytes(signature[:48], "big"), int.from_bytes(signature[48:], "big")
    )
    try:
        key.verify(der, to_be_signed, ec.ECDSA(hashes.SHA384()))
    except InvalidSignature:
        c.fail(c.BOOT_SIGNATURE_INVALID, "the COSE_Sign1 signature does not verify")
