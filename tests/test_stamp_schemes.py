"""Stamps in the schemes beyond P-256 (formats.md section 15): secp256k1 and Ed25519 key pairs,
pyca/cryptography as the oracle, the accepted-schemes set and its negatives (StampSigner keys are
in test_stamp_schemes_signer.py, the upstream files in test_stamp_schemes_upstream.py)."""

from __future__ import annotations

import pickle
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _stamp_schemes_support import (
    ALL,
    ED,
    ED_KEY,
    K1,
    K1_KEY,
    K1_N,
    P256,
    P256_KEY,
    code_of,
    read_stamp,
    write_stamp,
)
from conftest import load_upstream_json
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from hypothesis import given, settings
from hypothesis import strategies as st

# --- key pairs ---------------------------------------------------------------------------------


def test_secp256k1_known_key() -> None:
    one = (1).to_bytes(32, "big")
    key = ewc.Secp256k1KeyPair.from_private_bytes(one)
    # d = 1: the public key is the generator G (SEC 2, section 2.4.1).
    assert key.public_key_hex() == (
        "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
    )
    assert key.scheme == K1
    assert key.private_key_bytes() == one


def test_ed25519_rfc8032_test_vectors() -> None:
    # RFC 8032 section 7.1, TEST 1, 2 and 3.
    cases = [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bac"
            "c61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e"
            "458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        ),
        (
            "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290"
            "ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
        ),
    ]
    for seed, public, message, signature in cases:
        key = ewc.Ed25519KeyPair.from_private_bytes(bytes.fromhex(seed))
        assert key.public_key_hex() == public
        assert key.sign(bytes.fromhex(message)).hex() == signature
        assert key.private_key_bytes().hex() == seed


@pytest.mark.parametrize("cls", [ewc.Secp256k1KeyPair, ewc.Ed25519KeyPair])
def test_key_pair_shape(cls: Any) -> None:
    key = cls.generate()
    secret = key.private_key_bytes()
    assert secret.hex() not in repr(key)
    assert repr(key) == f"{cls.__name__}(public_key='{key.public_key_hex()}')"
    assert cls.from_private_bytes(secret) == key
    assert hash(cls.from_private_bytes(secret)) == hash(key)
    assert key != cls.generate()
    assert key.public_key_bytes().hex() == key.public_key_hex()
    assert isinstance(key, ewc.StampSigner)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(key, protocol=protocol)


def test_key_pair_negatives() -> None:
    assert code_of(lambda: ewc.Secp256k1KeyPair.from_private_bytes(b"\x00" * 32)) == (
        "INVALID_PRIVATE_KEY"
    )
    assert code_of(lambda: ewc.Secp256k1KeyPair.from_private_bytes(K1_N.to_bytes(32, "big"))) == (
        "INVALID_PRIVATE_KEY"
    )
    assert code_of(lambda: ewc.Secp256k1KeyPair.from_private_bytes(b"\x01" * 31)) == (
        "INVALID_KEY_LENGTH"
    )
    assert code_of(lambda: ewc.Ed25519KeyPair.from_private_bytes(b"\x01" * 33)) == (
        "INVALID_KEY_LENGTH"
    )
    with pytest.raises(TypeError):
        ewc.Ed25519KeyPair.from_private_bytes("00" * 32)  # type: ignore[arg-type]


def test_upstream_rust_sdk_key_errors() -> None:
    """The Rust SDK's secp256k1 key-loading errors (turnkey-sdk/api_key_stamps.json)."""
    cases = {c["id"]: c for c in load_upstream_json("turnkey-sdk/api_key_stamps.json")["cases"]}
    short = bytes.fromhex(cases["secp256k1-rust-31-byte-private-key"]["input"]["private_key_hex"])
    assert code_of(lambda: ewc.Secp256k1KeyPair.from_private_bytes(short)) == "INVALID_KEY_LENGTH"
    bad_public = cases["secp256k1-rust-bad-public-key"]["input"]["public_key_hex"]
    stamp = write_stamp(bad_public, K1, K1_KEY.sign(b"p"))
    assert code_of(lambda: ewc.verify_stamp(stamp, b"p", schemes=ALL)) == (
        "WALLET_SIGNATURE_MALFORMED"
    )


# --- pyca/cryptography as the oracle ------------------------------------------------------------

SEEDS = st.binary(min_size=32, max_size=32).filter(lambda b: 0 < int.from_bytes(b, "big") < K1_N)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, payload=st.binary(max_size=256))
def test_secp256k1_agrees_with_cryptography(seed: bytes, payload: bytes) -> None:
    ours = ewc.Secp256k1KeyPair.from_private_bytes(seed)
    theirs = ec.derive_private_key(int.from_bytes(seed, "big"), ec.SECP256K1())
    compressed = theirs.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint
    )
    assert ours.public_key_hex() == compressed.hex()
    # Our signature verifies under cryptography; cryptography's under our stamp verifier.
    theirs.public_key().verify(ours.sign(payload), payload, ec.ECDSA(hashes.SHA256()))
    stamp = write_stamp(compressed, K1, theirs.sign(payload, ec.ECDSA(hashes.SHA256())))
    assert ewc.verify_stamp(stamp, payload, schemes=[K1]).public_key == compressed.hex()
    fields = read_stamp(ewc.create_stamp(payload, ours))
    assert (fields["publicKey"], fields["scheme"]) == (compressed.hex(), K1)
    signature = bytes.fromhex(fields["signature"])
    theirs.public_key().verify(signature, payload, ec.ECDSA(hashes.SHA256()))
    # The other form of s verifies too (stamps accept high-S and low-S).
    r, s = decode_dss_signature(signature)
    twin = write_stamp(compressed, K1, encode_dss_signature(r, K1_N - s))
    assert ewc.verify_stamp(twin, payload, schemes=ALL).scheme == K1


@settings(max_examples=40, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), payload=st.binary(max_size=256))
def test_ed25519_agrees_with_cryptography(seed: bytes, payload: bytes) -> None:
    ours = ewc.Ed25519KeyPair.from_private_bytes(seed)
    theirs = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
    public = theirs.public_key().public_bytes_raw()
    assert ours.public_key_hex() == public.hex()
    assert ours.sign(payload) == theirs.sign(payload)  # deterministic: the same bytes
    expected = write_stamp(public, ED, theirs.sign(payload))
    assert ewc.create_stamp(payload, ours) == expected
    assert ewc.verify_stamp(expected, payload, schemes=[ED]).signature == theirs.sign(payload)
    with pytest.raises(ewc.StampError):
        ewc.verify_stamp(expected, payload + b"x", schemes=[ED])


@settings(max_examples=40, deadline=None)
@given(payload=st.binary(max_size=128))
def test_der_p1363_round_trip_against_cryptography(payload: bytes) -> None:
    signature = P256_KEY.sign(payload)
    fixed = ewc.der_to_p1363(signature)
    r, s = decode_dss_signature(signature)
    assert fixed == r.to_bytes(32, "big") + s.to_bytes(32, "big")
    assert ewc.p1363_to_der(fixed) == signature
    assert ewc.p1363_to_der(fixed) == encode_dss_signature(r, s)


def test_der_p1363_negatives() -> None:
    good = P256_KEY.sign(b"m")
    for bad in (b"", good + b"\x00", b"\x30\x81" + good[1:], good[:-1]):
        assert code_of(lambda bad=bad: ewc.der_to_p1363(bad)) == "INVALID_SIGNATURE_ENCODING"
    wide = encode_dss_signature(2**256 + 1, 1)  # r wider than 32 bytes
    assert code_of(lambda: ewc.der_to_p1363(wide)) == "INVALID_SIGNATURE_ENCODING"
    for length in (0, 63, 65, 128):
        assert code_of(lambda n=length: ewc.p1363_to_der(b"\x01" * n)) == (
            "INVALID_SIGNATURE_ENCODING"
        )


# --- the accepted-schemes set and negatives ------------------------------------------------------


@pytest.mark.parametrize("key", [K1_KEY, ED_KEY, P256_KEY], ids=["secp256k1", "ed25519", "p256"])
def test_schemes_set(key: Any) -> None:
    stamp = ewc.create_stamp("payload", key)
    scheme = read_stamp(stamp)["scheme"]
    assert ewc.verify_stamp(stamp, "payload", schemes=ALL).scheme == scheme
    assert ewc.verify_stamp(stamp, "payload", schemes=iter([scheme])).scheme == scheme
    others = [s for s in ALL if s != scheme]
    with pytest.raises(ewc.StampError) as caught:
        ewc.verify_stamp(stamp, "payload", schemes=others)
    assert (caught.value.code, caught.value.status) == ("WALLET_SIGNATURE_SCHEME_UNSUPPORTED", 401)
    default = ewc.verify_stamps([stamp], ["payload"])
    assert default == [scheme == P256]
    assert ewc.verify_stamps([stamp], ["payload"], schemes=ALL) == [True]
    assert ewc.verify_stamps([stamp], ["payload"], schemes=[]) == [False]


def test_default_is_p256_only() -> None:
    for key in (K1_KEY, ED_KEY):
        stamp = ewc.create_stamp("p", key)
        assert code_of(lambda stamp=stamp: ewc.verify_stamp(stamp, "p")) == (
            "WALLET_SIGNATURE_SCHEME_UNSUPPORTED"
        )


def test_schemes_argument_errors() -> None:
    stamp = ewc.create_stamp("p", K1_KEY)
    assert code_of(lambda: ewc.verify_stamp(stamp, "p", schemes=["SIGNATURE_SCHEME_X"])) == (
        "UNSUPPORTED_ALGORITHM"
    )
    with pytest.raises(TypeError):
        ewc.verify_stamp(stamp, "p", schemes=K1)  # a lone str is not a set of names
    with pytest.raises(TypeError):
        ewc.verify_stamp(stamp, "p", schemes=[1])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        ewc.verify_stamps([stamp], ["p"], schemes=b"abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ewc.verify_stamps([stamp], ["p"], schemes=3)  # type: ignore[arg-type]


def test_cross_scheme_and_malformed_stamps() -> None:
    payload = b"payload"
    k1_sig, ed_sig = K1_KEY.sign(payload), ED_KEY.sign(payload)
    k1_pub, ed_pub = K1_KEY.public_key_bytes(), ED_KEY.public_key_bytes()
    p256_pub = P256_KEY.public_key_bytes(compressed=True)
    refused = {
        "secp256k1 key, P-256 name": write_stamp(k1_pub, P256, k1_sig),
        "P-256 key, secp256k1 name": write_stamp(p256_pub, K1, P256_KEY.sign(payload)),
        "Ed25519 key, secp256k1 name": write_stamp(ed_pub, K1, ed_sig),
        "secp256k1 key, Ed25519 name": write_stamp(k1_pub, ED, k1_sig),
        "Ed25519 signature 63 bytes": write_stamp(ed_pub, ED, ed_sig[:63]),
        "Ed25519 signature 65 bytes": write_stamp(ed_pub, ED, ed_sig + b"\x00"),
        "secp256k1 P1363 signature": write_stamp(k1_pub, K1, b"\x01" * 64),
        "secp256k1 DER trailing byte": write_stamp(k1_pub, K1, k1_sig + b"\x00"),
        "secp256k1 uncompressed key": write_stamp(
            b"\x04" + b"\x00" * 64, K1, k1_sig
        ),  # 65 bytes: the stamp carries keys compressed
        "secp256k1 key prefix 04": write_stamp(b"\x04" + k1_pub[1:], K1, k1_sig),
        "EIP-191 scheme": write_stamp(k1_pub, K1 + "_EIP191", k1_sig),
        "lower-case scheme": write_stamp(ed_pub, ED.lower(), ed_sig),
    }
    for name, stamp in refused.items():
        with pytest.raises(ewc.StampError) as caught:
            ewc.verify_stamp(stamp, payload, schemes=ALL)
        assert caught.value.code in {"WALLET_SIGNATURE_MALFORMED", "WALLET_SIGNATURE_INVALID"}, name
    assert ewc.verify_stamps(list(refused.values()), [payload] * len(refused), schemes=ALL) == [
        False
    ] * len(refused)


def test_expected_keys_across_schemes() -> None:
    k1_stamp, ed_stamp = ewc.create_stamp("p", K1_KEY), ewc.create_stamp("p", ED_KEY)
    k1_uncompressed = (
        ec.derive_private_key(int.from_bytes(K1_KEY.private_key_bytes(), "big"), ec.SECP256K1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    for expected in (K1_KEY.public_key_hex(), K1_KEY.public_key_bytes(), k1_uncompressed):
        assert ewc.verify_stamp(k1_stamp, "p", expected_public_key=expected, schemes=ALL)
    assert ewc.verify_stamp(ed_stamp, "p", expected_public_key=ED_KEY.public_key_hex(), schemes=ALL)
    mismatches = [
        (k1_stamp, ED_KEY.public_key_hex()),
        (ed_stamp, K1_KEY.public_key_hex()),
        (k1_stamp, P256_KEY.public_key_hex()),
        (ed_stamp, ewc.Ed25519KeyPair.generate().public_key_hex()),
    ]
    for stamp, expected in mismatches:
        with pytest.raises(ewc.StampError) as caught:
            ewc.verify_stamp(stamp, "p", expected_public_key=expected, schemes=ALL)
        assert caught.value.code == "WALLET_SIGNATURE_KEY_MISMATCH"
    # A key valid in no accepted scheme is the caller's InvalidKey, as for P-256.
    with pytest.raises(ewc.InvalidKey):
        ewc.verify_stamp(ed_stamp, "p", expected_public_key="00" * 31, schemes=ALL)
    with pytest.raises(ewc.InvalidKey):
        ewc.verify_stamp(ed_stamp, "p", expected_public_key=ED_KEY.public_key_hex())


def test_mixed_batch_matches_single_verdicts() -> None:
    keys: list[Any] = [K1_KEY, ED_KEY, P256_KEY]
    stamps, payloads = [], []
    for i in range(300):
        payload = f"payload-{i}".encode()
        stamps.append(ewc.create_stamp(payload, keys[i % 3]))
        payloads.append(payload if i % 5 else payload + b"!")
    stamps.append("garbage")
    payloads.append(b"p")
    for schemes in (ALL, (K1, ED), (P256,)):
        batch = ewc.verify_stamps(stamps, payloads, schemes=schemes)
        single = []
        for stamp, payload in zip(stamps, payloads, strict=True):
            try:
                ewc.verify_stamp(stamp, payload, schemes=schemes)
                single.append(True)
            except ewc.StampError:
                single.append(False)
        assert batch == single
    assert sum(ewc.verify_stamps(stamps, payloads, schemes=ALL)) == 240
