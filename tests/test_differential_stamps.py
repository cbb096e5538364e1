"""Differential tests for stamps and session keys against independent implementations.

Stamps: a writer and a verifier of formats.md section 4 written here on ``cryptography``,
``json`` and ``base64`` only; ewc and it must accept each other's stamps in every shape (key
order, padding, whitespace, high-S) and give the same verdict on mutated stamps. Session keys
(section 3): sealed with pyhpke (profile AAD = enc || pkR, compressed enc, base58check from the
``base58`` package) they open in ewc, and what ewc seals opens in that pyhpke-based reference.
"""

from __future__ import annotations

import base64
import binascii
import json
import string
from typing import Any

import base58
import embedded_wallet_crypto as ewc
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pyhpke import AEADId, CipherSuite, KDFId, KEMId

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
SCHEME = "SIGNATURE_SCHEME_TK_API_P256"
FIELDS = ("publicKey", "scheme", "signature")
URL_ALPHABET = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
INFO = b"turnkey_hpke"

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.integers(min_value=1, max_value=N - 1)
payloads = st.binary(max_size=300) | st.text(max_size=100).map(str.encode)
orders = st.permutations(FIELDS)
whitespace = st.text(alphabet=" \t\r\n", max_size=3)


class Rejected(Exception):
    """The reference verifier refused the stamp."""


# --- the independent stamp implementation ----------------------------------------------------


def _private(scalar: int) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(scalar, ec.SECP256R1())


def _compressed(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)


def ref_create(
    scalar: int,
    payload: bytes,
    *,
    order: tuple[str, ...] = FIELDS,
    gaps: tuple[str, ...] = ("",) * 8,
    padded: bool = False,
    high_s: bool | None = None,
) -> str:
    """A stamp in any shape: key order, whitespace in the eight places JSON allows it, padding,
    and the low-S or high-S form (None: as the RFC 6979 signer made it)."""
    private = _private(scalar)
    # RFC 6979: hypothesis needs the same stamp for the same drawn inputs.
    algorithm = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
    r, s = decode_dss_signature(private.sign(payload, algorithm))
    if high_s is not None:
        low = min(s, N - s)
        s = N - low if high_s else low
    fields = {
        "publicKey": _compressed(private.public_key()).hex(),
        "scheme": SCHEME,
        "signature": encode_dss_signature(r, s).hex(),
    }
    members = [
        f'{gaps[2 + i]}"{name}"{gaps[5]}:{gaps[6]}"{fields[name]}"' for i, name in enumerate(order)
    ]
    text = gaps[0] + "{" + ",".join(members) + gaps[7] + "}" + gaps[1]
    encoded = base64.urlsafe_b64encode(text.encode()).decode()
    return encoded if padded else encoded.rstrip("=")


def _strict_base64url(stamp: str) -> bytes:
    if not stamp or not set(stamp.rstrip("=")) <= URL_ALPHABET:
        raise Rejected("not base64url")
    body = stamp.rstrip("=")
    if len(body) % 4 == 1:
        raise Rejected("impossible length")
    canonical = body + "=" * (-len(body) % 4)
    if stamp not in (body, canonical):
        raise Rejected("wrong padding")
    try:
        raw = base64.urlsafe_b64decode(canonical)
    except binascii.Error:
        raise Rejected("not base64url") from None
    if base64.urlsafe_b64encode(raw).decode() != canonical:
        raise Rejected("non-canonical trailing bits")
    return raw


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({name for name, _ in pairs}) != len(pairs):
        raise Rejected("duplicate field")
    return dict(pairs)


def _hex(text: str) -> bytes:
    if len(text) % 2 or not all(c in string.hexdigits for c in text):
        raise Rejected("not hex")
    return bytes.fromhex(text)


def _strict_der(signature: bytes) -> bytes:
    try:
        r, s = decode_dss_signature(signature)
    except ValueError:
        raise Rejected("not DER") from None
    if r < 0 or s < 0 or encode_dss_signature(r, s) != signature:
        raise Rejected("not strict DER")
    return signature


def ref_verify(stamp: str, payload: bytes) -> str:
    """formats.md section 4, verification: returns the compressed key hex or raises Rejected."""
    raw = _strict_base64url(stamp)
    try:
        fields = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Rejected("not JSON") from None
    if not isinstance(fields, dict) or set(fields) != set(FIELDS):
        raise Rejected("not an object with exactly publicKey, scheme, signature")
    if not all(isinstance(value, str) and value.isascii() for value in fields.values()):
        raise Rejected("a field is not a string")
    if fields["scheme"] != SCHEME:
        raise Rejected("unknown scheme")
    key_bytes, signature = _hex(fields["publicKey"]), _hex(fields["signature"])
    if len(key_bytes) != 33:
        raise Rejected("not a compressed key")
    try:
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key_bytes)
    except ValueError:
        raise Rejected("not a point") from None
    try:
        key.verify(_strict_der(signature), payload, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Rejected("does not verify") from None
    return key_bytes.hex()


def _ewc_verdict(stamp: str, payload: bytes) -> str | None:
    try:
        return ewc.verify_stamp(stamp, payload).public_key
    except ewc.StampError:
        return None


def _ref_verdict(stamp: str, payload: bytes) -> str | None:
    try:
        return ref_verify(stamp, payload)
    except Rejected:
        return None


# --- stamps ----------------------------------------------------------------------------------


@SETTINGS
@given(scalar=scalars, payload=payloads)
def test_ewc_stamps_verify_in_the_reference(scalar: int, payload: bytes) -> None:
    key = ewc.KeyPair.from_private_bytes(scalar.to_bytes(32, "big"))
    stamp = ewc.create_stamp(payload, key)
    assert ref_verify(stamp, payload) == key.public_key_hex(compressed=True)
    assert _ref_verdict(stamp, payload + b"\x00") is None


@SETTINGS
@given(
    scalar=scalars,
    payload=payloads,
    order=orders,
    gaps=st.tuples(*[whitespace] * 8),
    padded=st.booleans(),
    high_s=st.none() | st.booleans(),
)
def test_reference_stamps_verify_in_ewc_in_every_shape(
    scalar: int,
    payload: bytes,
    order: tuple[str, ...],
    gaps: tuple[str, ...],
    padded: bool,
    high_s: bool | None,
) -> None:
    stamp = ref_create(scalar, payload, order=order, gaps=gaps, padded=padded, high_s=high_s)
    expected = _compressed(_private(scalar).public_key()).hex()
    assert ref_verify(stamp, payload) == expected
    verified = ewc.verify_stamp(stamp, payload, expected_public_key=expected)
    assert verified.public_key == expected
    _, s = decode_dss_signature(verified.signature)
    event(f"high-S: {s > N // 2}; padded: {'=' in stamp}")


@st.composite
def mutated_stamps(draw: st.DrawFn) -> tuple[str, bytes]:
    """A valid stamp, then one edit of its JSON text or of its base64url text."""
    payload = draw(payloads)
    stamp = ref_create(draw(scalars), payload, order=draw(orders), padded=draw(st.booleans()))
    where = draw(st.sampled_from(["json", "base64", "payload"]))
    if where == "payload":
        return stamp, payload + draw(st.binary(min_size=1, max_size=2))
    text = _strict_base64url(stamp).decode() if where == "json" else stamp
    index = draw(st.integers(min_value=0, max_value=len(text)))
    edit = draw(st.sampled_from(["insert", "delete", "replace"]))
    char = draw(st.sampled_from([*'{}[]",: \n\\u0=-_+/aAzZ9', chr(0xE9), "\x00"]))
    if edit == "insert":
        text = text[:index] + char + text[index:]
    elif edit == "delete":
        text = text[:index] + text[index + 1 :]
    else:
        text = text[:index] + char + text[index + 1 :]
    if where == "json":
        text = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    return text, payload


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated_stamps())
def test_ewc_and_the_reference_agree_on_mutated_stamps(case: tuple[str, bytes]) -> None:
    stamp, payload = case
    ours, theirs = _ewc_verdict(stamp, payload), _ref_verdict(stamp, payload)
    event("accepted" if ours else "rejected")
    assert ours == theirs, f"ewc {'accepted' if ours else 'rejected'}, the reference did not"


@SETTINGS
@given(stamps=st.lists(st.text(alphabet=[*sorted(URL_ALPHABET), "="], max_size=40), max_size=10))
def test_random_text_is_rejected_by_both(stamps: list[str]) -> None:
    for stamp in stamps:
        assert _ewc_verdict(stamp, b"") is None and _ref_verdict(stamp, b"") is None


# --- session keys ----------------------------------------------------------------------------


def _pyhpke_seal_session_key(client_public: bytes, session_scalar: bytes) -> str:
    """Section 3 with pyhpke: profile AAD, enc compressed on the wire, base58check by ``base58``."""
    recipient = SUITE.kem.deserialize_public_key(client_public)
    enc, context = SUITE.create_sender_context(recipient, info=INFO)
    ciphertext = context.seal(session_scalar, aad=enc + client_public)
    enc_point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), enc)
    return base58.b58encode_check(_compressed(enc_point) + ciphertext).decode()


def _pyhpke_open_session_key(text: str, client_scalar: bytes, client_public: bytes) -> bytes:
    payload = base58.b58decode_check(text)
    assert len(payload) == 81
    enc = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), payload[:33]).public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    context = SUITE.create_recipient_context(
        enc, SUITE.kem.deserialize_private_key(client_scalar), info=INFO
    )
    return bytes(context.open(payload[33:], aad=enc + client_public))


@SETTINGS
@given(client=scalars, session=scalars)
def test_pyhpke_sealed_session_keys_open_in_ewc(client: int, session: int) -> None:
    client_key = ewc.KeyPair.from_private_bytes(client.to_bytes(32, "big"))
    text = _pyhpke_seal_session_key(client_key.public_key_bytes(), session.to_bytes(32, "big"))
    opened = ewc.open_session_key(text, client_key)
    assert opened.private_key_bytes() == session.to_bytes(32, "big")


@SETTINGS
@given(client=scalars, session=scalars)
def test_ewc_sealed_session_keys_open_in_pyhpke(client: int, session: int) -> None:
    client_key = ewc.KeyPair.from_private_bytes(client.to_bytes(32, "big"))
    session_key = ewc.KeyPair.from_private_bytes(session.to_bytes(32, "big"))
    text = ewc.seal_session_key(client_key.public_key_hex(), session_key)
    scalar = _pyhpke_open_session_key(
        text, client_key.private_key_bytes(), client_key.public_key_bytes()
    )
    assert scalar == session.to_bytes(32, "big")
