"""Export-envelope benchmark (issue 4): ``ewc.open_export_bundle`` against what a Python client
does without this library (``json``, ``cryptography`` verify, pyhpke open), with fixed inputs.

Like the other bench files, each benchmark checks what it timed, sets ``benchmark.group`` and
``benchmark.extra_info["impl"]``; ``benches/report.py`` pairs rows by (group, impl).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

GROUP = "export-open"
INFO = b"turnkey_hpke"
CURVE = ec.SECP256R1()
ECDSA_SHA256 = ec.ECDSA(hashes.SHA256())
ORGANIZATION = "8d3b1a0c-5f7e-4a2b-9c1d-0e6f4a3b2c1d"
MNEMONIC = (
    b"legal winner thank year wave sausage worth useful legal winner thank year wave sausage "
    b"worth useful legal winner thank year wave sausage worth title"
)


def _scalar(label: bytes) -> bytes:
    return hashlib.sha256(b"embedded-wallet-crypto export bench " + label).digest()


SIGNER = ewc.KeyPair.from_private_bytes(_scalar(b"enclave signer"))
CLIENT = ewc.KeyPair.from_private_bytes(_scalar(b"client"))
PINNED_HEX = SIGNER.public_key_hex()
CLIENT_PUB65 = CLIENT.public_key_bytes()
BUNDLE = ewc.seal_export_bundle(
    CLIENT.public_key_hex(), MNEMONIC, organization_id=ORGANIZATION, signer=SIGNER
)

# The peer's long-lived objects, loaded once as a client would: the pinned signer's key and
# the client's HPKE key.
PEER_SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
PEER_PINNED = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, SIGNER.public_key_bytes())
PEER_CLIENT = KEMKey.from_pyca_cryptography_key(
    ec.derive_private_key(int.from_bytes(CLIENT.private_key_bytes(), "big"), CURVE)
)
assert PEER_PINNED.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint).hex() == PINNED_HEX


def peer_open_export_bundle(bundle: str) -> bytes:
    """The same checks in the same order: version, signer pinned, signature over the data
    bytes, organization, then the HPKE open with the profile AAD (enc || client key)."""
    envelope = json.loads(bundle)
    if envelope.get("version") != "v1.0.0":
        raise ValueError("unsupported version")
    if envelope["enclaveQuorumPublic"].lower() != PINNED_HEX:
        raise ValueError("signer not pinned")
    data = bytes.fromhex(envelope["data"])
    PEER_PINNED.verify(bytes.fromhex(envelope["dataSignature"]), data, ECDSA_SHA256)
    inner = json.loads(data)
    if inner["organizationId"] != ORGANIZATION:
        raise ValueError("organization mismatch")
    enc = bytes.fromhex(inner["encappedPublic"])
    context = PEER_SUITE.create_recipient_context(enc, PEER_CLIENT, INFO)
    return bytes(context.open(bytes.fromhex(inner["ciphertext"]), enc + CLIENT_PUB65))


def _run(benchmark: Any, impl: str, fn: Callable[[], bytes]) -> bytes:
    benchmark.group = GROUP
    benchmark.extra_info["impl"] = impl
    result: bytes = benchmark(fn)
    return result


def test_open_export_bundle_ours(benchmark: Any) -> None:
    opened = _run(
        benchmark,
        "ours",
        lambda: ewc.open_export_bundle(
            BUNDLE, CLIENT, organization_id=ORGANIZATION, signer_public_key=PINNED_HEX
        ),
    )
    assert opened == MNEMONIC
    assert ewc.export.check_mnemonic(opened) == MNEMONIC.decode()


def test_open_export_bundle_peer(benchmark: Any) -> None:
    assert _run(benchmark, "json+cryptography+pyhpke", lambda: peer_open_export_bundle(BUNDLE)) == (
        MNEMONIC
    )
