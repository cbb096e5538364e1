"""Differential tests for the signed envelopes (formats.md sections 8 and 9): an independent
implementation written here on ``cryptography`` (ECDSA, SEC1) and pyhpke (HPKE with the
profile's AAD) produces envelopes and OTP bundles that ewc opens, and opens ewc's."""

from __future__ import annotations

import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from embedded_wallet_crypto import otp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
INFO = b"turnkey_hpke"
ECDSA = ec.ECDSA(hashes.SHA256())
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

secrets_ = st.binary(min_size=1, max_size=200)
organizations = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40)
codes = st.text(alphabet="0123456789ABCDEFabcdef", min_size=1, max_size=12)


# --- the independent implementation ----------------------------------------------------------


def _uncompressed(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def _seal(recipient: ec.EllipticCurvePublicKey, plaintext: bytes) -> tuple[bytes, bytes]:
    """Single-shot pyhpke seal with the profile's AAD, enc || pkR (both uncompressed)."""
    enc, context = SUITE.create_sender_context(
        KEMKey.from_pyca_cryptography_key(recipient), info=INFO
    )
    return enc, context.seal(plaintext, aad=enc + _uncompressed(recipient))


def _open(recipient: ec.EllipticCurvePrivateKey, enc: bytes, ciphertext: bytes) -> bytes:
    context = SUITE.create_recipient_context(
        enc, KEMKey.from_pyca_cryptography_key(recipient), info=INFO
    )
    return bytes(context.open(ciphertext, aad=enc + _uncompressed(recipient.public_key())))


def _sign(signer: ec.EllipticCurvePrivateKey, data: bytes, high_s: bool) -> bytes:
    r, s = decode_dss_signature(signer.sign(data, ECDSA))
    low = min(s, N - s)
    return encode_dss_signature(r, N - low if high_s else low)


def _envelope(signer: ec.EllipticCurvePrivateKey, inner: dict[str, Any], high_s: bool) -> str:
    data = json.dumps(inner, ensure_ascii=False, indent=1).encode()  # another writer's style
    return json.dumps(
        {
            "enclaveQuorumPublic": _uncompressed(signer.public_key()).hex(),
            "dataSignature": _sign(signer, data, high_s).hex(),
            "data": data.hex().upper(),
            "version": "v1.0.0",
        }
    )


def _verified_data(bundle: str, pinned: ec.EllipticCurvePublicKey) -> dict[str, Any]:
    envelope = json.loads(bundle)
    assert envelope["version"] == "v1.0.0"
    assert bytes.fromhex(envelope["enclaveQuorumPublic"]) == _uncompressed(pinned)
    data = bytes.fromhex(envelope["data"])
    pinned.verify(bytes.fromhex(envelope["dataSignature"]), data, ECDSA)
    inner: dict[str, Any] = json.loads(data)
    return inner


def _pyca(key: ewc.KeyPair) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(key.private_key_bytes(), "big"), ec.SECP256R1())


def _ours(key: ec.EllipticCurvePrivateKey) -> ewc.KeyPair:
    return ewc.KeyPair.from_private_bytes(key.private_numbers().private_value.to_bytes(32, "big"))


# --- export envelopes ------------------------------------------------------------------------


@SETTINGS
@given(secret=secrets_, organization=organizations, high_s=st.booleans())
def test_ewc_opens_independent_export_envelopes(
    secret: bytes, organization: str, high_s: bool
) -> None:
    signer = ec.generate_private_key(ec.SECP256R1())
    client = ec.generate_private_key(ec.SECP256R1())
    enc, ciphertext = _seal(client.public_key(), secret)
    inner = {
        "organizationId": organization,
        "ciphertext": ciphertext.hex(),
        "encappedPublic": enc.hex(),
    }
    bundle = _envelope(signer, inner, high_s)
    pinned = _uncompressed(signer.public_key())
    opened = ewc.open_export_bundle(
        bundle, _ours(client), organization_id=organization, signer_public_key=pinned
    )
    assert opened == secret
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.open_export_bundle(
            bundle, _ours(client), organization_id=organization + "x", signer_public_key=pinned
        )
    assert raised.value.code == "ENVELOPE_ORGANIZATION_MISMATCH"


@SETTINGS
@given(secret=secrets_, organization=organizations)
def test_independent_client_opens_ewc_export_envelopes(secret: bytes, organization: str) -> None:
    signer = ewc.KeyPair.generate()
    client = ec.generate_private_key(ec.SECP256R1())
    bundle = ewc.seal_export_bundle(
        _uncompressed(client.public_key()), secret, organization_id=organization, signer=signer
    )
    inner = _verified_data(bundle, _pyca(signer).public_key())
    assert inner["organizationId"] == organization
    enc, ciphertext = bytes.fromhex(inner["encappedPublic"]), bytes.fromhex(inner["ciphertext"])
    assert _open(client, enc, ciphertext) == secret


@SETTINGS
@given(position=st.integers(min_value=0), bit=st.integers(min_value=0, max_value=7))
def test_both_sides_reject_a_changed_byte(position: int, bit: int) -> None:
    signer = ec.generate_private_key(ec.SECP256R1())
    client = ec.generate_private_key(ec.SECP256R1())
    enc, ciphertext = _seal(client.public_key(), b"secret")
    bundle = json.loads(
        _envelope(
            signer,
            {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex(), "organizationId": "o"},
            False,
        )
    )
    data = bytearray(bytes.fromhex(bundle["data"]))
    data[position % len(data)] ^= 1 << bit
    bundle["data"] = data.hex()
    changed = json.dumps(bundle)
    with pytest.raises(InvalidSignature):
        _verified_data(changed, signer.public_key())
    with pytest.raises(ewc.EnvelopeError) as raised:
        ewc.open_export_bundle(
            changed, _ours(client), signer_public_key=_uncompressed(signer.public_key())
        )
    assert raised.value.code == "ENVELOPE_SIGNATURE_INVALID"


# --- encrypted OTP ---------------------------------------------------------------------------


@SETTINGS
@given(code=codes, organization=organizations, high_s=st.booleans())
def test_ewc_client_against_an_independent_server(
    code: str, organization: str, high_s: bool
) -> None:
    fetcher = ec.generate_private_key(ec.SECP256R1())
    target = ec.generate_private_key(ec.SECP256R1())
    client = ewc.KeyPair.generate()
    target_public = _uncompressed(target.public_key()).hex()
    inner = {"userId": "User:1", "organizationId": organization, "targetPublic": target_public}
    bundle = _envelope(fetcher, inner, high_s)
    sealed = otp.encrypt_otp_code(
        bundle,
        code,
        client.public_key_hex(),
        signer_public_key=_uncompressed(fetcher.public_key()),
        organization_id=organization,
        user_id="User:1",
    )
    document = json.loads(sealed)
    plaintext = _open(
        target, bytes.fromhex(document["encappedPublic"]), bytes.fromhex(document["ciphertext"])
    )
    assert json.loads(plaintext) == {"otp_code": code, "public_key": client.public_key_hex()}


@SETTINGS
@given(code=codes, compressed=st.booleans())
def test_independent_client_against_ewc_server(code: str, compressed: bool) -> None:
    fetcher = ewc.KeyPair.generate()
    target = ewc.KeyPair.generate()
    bundle = otp.seal_target_bundle(
        target.public_key_hex(), organization_id="o", user_id="u", signer=fetcher
    )
    inner = _verified_data(bundle, _pyca(fetcher).public_key())
    target_key = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), bytes.fromhex(inner["targetPublic"])
    )
    client = ec.generate_private_key(ec.SECP256R1())
    form = PublicFormat.CompressedPoint if compressed else PublicFormat.UncompressedPoint
    client_hex = client.public_key().public_bytes(Encoding.X962, form).hex()
    plaintext = json.dumps({"otp_code": code, "public_key": client_hex}).encode()
    enc, ciphertext = _seal(target_key, plaintext)
    bundle_json = json.dumps({"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex()})
    submission = otp.decrypt_otp_bundle(bundle_json, target)
    assert submission == otp.OtpSubmission(otp_code=code, public_key=client_hex)
