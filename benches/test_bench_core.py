"""Core benchmarks: embedded_wallet_crypto against its peers, with fixed inputs.

Every benchmark is also a test: it checks that what it timed is correct (and, where possible,
that ours and the peer interoperate), so ``pytest benches --benchmark-disable`` is a quick check.

Each benchmark sets ``benchmark.group`` (ours and the peers side by side in pytest-benchmark's
table) and ``benchmark.extra_info["impl"]``; ``benches/report.py`` pairs rows by (group, impl).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import base58
import embedded_wallet_crypto as ewc
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hpke
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

# Modest timing budget so the whole report stays well under three minutes on two cores.
pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

# --------------------------------------------------------------------------------------------
# Fixed inputs (deterministic keys and messages; HPKE ciphertexts are sealed once per run).
# --------------------------------------------------------------------------------------------

INFO = b"turnkey_hpke"
CURVE = ec.SECP256R1()
ECDSA_SHA256 = ec.ECDSA(hashes.SHA256())


def _scalar(label: bytes) -> bytes:
    """A fixed, valid P-256 private scalar (SHA-256 of a label; < n with overwhelming odds)."""
    return hashlib.sha256(b"embedded-wallet-crypto bench " + label).digest()


RECIPIENT_SCALAR = _scalar(b"hpke recipient")
SIGNER_SCALAR = _scalar(b"ecdsa signer")

# Ours: KeyPair handles.
OUR_RECIPIENT = ewc.KeyPair.from_private_bytes(RECIPIENT_SCALAR)
OUR_SIGNER = ewc.KeyPair.from_private_bytes(SIGNER_SCALAR)
RECIPIENT_PUB65 = OUR_RECIPIENT.public_key_bytes()
SIGNER_PUB65 = OUR_SIGNER.public_key_bytes()
SIGNER_PUB33 = OUR_SIGNER.public_key_bytes(compressed=True)

# cryptography: pre-loaded key objects.
CRYPTO_RECIPIENT = ec.derive_private_key(int.from_bytes(RECIPIENT_SCALAR, "big"), CURVE)
CRYPTO_SIGNER = ec.derive_private_key(int.from_bytes(SIGNER_SCALAR, "big"), CURVE)
CRYPTO_SIGNER_PUB = CRYPTO_SIGNER.public_key()
CRYPTO_SUITE = hpke.Suite(hpke.KEM.P256, hpke.KDF.HKDF_SHA256, hpke.AEAD.AES_256_GCM)

# pyhpke: suite and keys built from the same cryptography objects.
PYHPKE_SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
PYHPKE_SKR = KEMKey.from_pyca_cryptography_key(CRYPTO_RECIPIENT)
PYHPKE_PKR = KEMKey.from_pyca_cryptography_key(CRYPTO_RECIPIENT.public_key())

assert (
    CRYPTO_RECIPIENT.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    == RECIPIENT_PUB65
)
assert CRYPTO_SIGNER_PUB.public_bytes(Encoding.X962, PublicFormat.CompressedPoint) == SIGNER_PUB33

PLAINTEXTS = {
    "32B": bytes(range(32)),
    "1KiB": bytes((i * 7 + 1) % 251 for i in range(1024)),
}

# RFC 9180 single-shot ciphertexts with empty AAD, sealed once by cryptography: all three
# implementations open the very same bytes.
RFC_SEALED = {
    size: CRYPTO_SUITE.encrypt(pt, CRYPTO_RECIPIENT.public_key(), INFO)
    for size, pt in PLAINTEXTS.items()
}
# Profile ciphertexts (aad = enc || recipient public key), sealed once by us.
PROFILE_SEALED = {size: ewc.hpke.seal(RECIPIENT_PUB65, pt) for size, pt in PLAINTEXTS.items()}

# A payloadToSign-shaped message (compact JSON, a few hundred bytes).
MESSAGE = (
    b'{"organizationId":"5a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d","parameters":{"targetPublicKey":"'
    + RECIPIENT_PUB65.hex().encode()
    + b'","walletId":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},"timestampMs":"1767225600000",'
    b'"type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
)
SIGNATURE = CRYPTO_SIGNER.sign(MESSAGE, ECDSA_SHA256)  # DER, fixed for the run

# base58check payload of the encryptedSessionSigningKey size: 33-byte enc + 32 + 16-byte tag.
B58_PAYLOAD = SIGNER_PUB33 + bytes((i * 13 + 5) % 256 for i in range(48))
assert len(B58_PAYLOAD) == 81
B58_TEXT = base58.b58encode_check(B58_PAYLOAD).decode("ascii")

THREAD_BATCH = 2000  # operations per timed round in the thread-scaling benchmarks


def _run(benchmark: Any, group: str, impl: str, fn: Callable[[], Any]) -> Any:
    benchmark.group = group
    benchmark.extra_info["impl"] = impl
    return benchmark(fn)


def _crypto_open(sealed: bytes) -> bytes:
    return CRYPTO_SUITE.decrypt(sealed, CRYPTO_RECIPIENT, INFO)


# --------------------------------------------------------------------------------------------
# HPKE seal / open: DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM, info b"turnkey_hpke"
# --------------------------------------------------------------------------------------------

HPKE_IMPLS = ["ours", "ours-profile-aad", "pyhpke", "pyhpke-profile-aad", "cryptography"]


def _seal_fn(impl: str, pt: bytes) -> Callable[[], tuple[bytes, bytes]]:
    if impl == "ours":
        return lambda: ewc.hpke.seal(RECIPIENT_PUB65, pt, aad=b"")
    if impl == "ours-profile-aad":
        return lambda: ewc.hpke.seal(RECIPIENT_PUB65, pt)
    if impl == "pyhpke":

        def pyhpke_seal() -> tuple[bytes, bytes]:
            # pyhpke 0.6.5's CipherSuite.seal() is unimplemented: single-shot = context + seal.
            enc, ctx = PYHPKE_SUITE.create_sender_context(PYHPKE_PKR, INFO)
            return enc, ctx.seal(pt, b"")

        return pyhpke_seal
    if impl == "pyhpke-profile-aad":

        def pyhpke_seal_profile() -> tuple[bytes, bytes]:
            enc, ctx = PYHPKE_SUITE.create_sender_context(PYHPKE_PKR, INFO)
            return enc, ctx.seal(pt, enc + RECIPIENT_PUB65)

        return pyhpke_seal_profile
    if impl == "cryptography":

        def crypto_seal() -> tuple[bytes, bytes]:
            sealed = CRYPTO_SUITE.encrypt(pt, CRYPTO_RECIPIENT.public_key(), INFO)
            return sealed[:65], sealed[65:]

        return crypto_seal
    raise AssertionError(impl)


@pytest.mark.parametrize("impl", HPKE_IMPLS)
@pytest.mark.parametrize("size", list(PLAINTEXTS))
def test_hpke_seal(benchmark: Any, size: str, impl: str) -> None:
    pt = PLAINTEXTS[size]
    enc, ct = _run(benchmark, f"hpke-seal-{size}", impl, _seal_fn(impl, pt))
    assert len(enc) == 65 and len(ct) == len(pt) + 16
    if impl.endswith("profile-aad"):
        # Both profile sealers must open with our profile default (aad=None).
        assert ewc.hpke.open(OUR_RECIPIENT, enc, ct) == pt
    elif impl == "cryptography":
        assert ewc.hpke.open(OUR_RECIPIENT, enc, ct, aad=b"") == pt
    else:
        assert _crypto_open(enc + ct) == pt


def _open_fn(impl: str, size: str) -> Callable[[], bytes]:
    rfc = RFC_SEALED[size]
    enc, ct = rfc[:65], rfc[65:]
    p_enc, p_ct = PROFILE_SEALED[size]
    if impl == "ours":
        return lambda: ewc.hpke.open(OUR_RECIPIENT, enc, ct, aad=b"")
    if impl == "ours-profile-aad":
        return lambda: ewc.hpke.open(OUR_RECIPIENT, p_enc, p_ct)
    if impl == "pyhpke":
        return lambda: PYHPKE_SUITE.create_recipient_context(enc, PYHPKE_SKR, INFO).open(ct, b"")
    if impl == "pyhpke-profile-aad":
        aad = p_enc + RECIPIENT_PUB65
        return lambda: PYHPKE_SUITE.create_recipient_context(p_enc, PYHPKE_SKR, INFO).open(
            p_ct, aad
        )
    if impl == "cryptography":
        return lambda: _crypto_open(rfc)
    raise AssertionError(impl)


@pytest.mark.parametrize("impl", HPKE_IMPLS)
@pytest.mark.parametrize("size", list(PLAINTEXTS))
def test_hpke_open(benchmark: Any, size: str, impl: str) -> None:
    assert _run(benchmark, f"hpke-open-{size}", impl, _open_fn(impl, size)) == PLAINTEXTS[size]


# --------------------------------------------------------------------------------------------
# ECDSA P-256 / SHA-256
# --------------------------------------------------------------------------------------------


def _crypto_verify(signature: bytes) -> bool:
    try:
        CRYPTO_SIGNER_PUB.verify(signature, MESSAGE, ECDSA_SHA256)
    except InvalidSignature:
        return False
    return True


def test_ecdsa_sign_ours(benchmark: Any) -> None:
    sig = _run(benchmark, "ecdsa-sign", "ours", lambda: OUR_SIGNER.sign(MESSAGE))
    assert _crypto_verify(sig)


def test_ecdsa_sign_cryptography(benchmark: Any) -> None:
    sig = _run(
        benchmark, "ecdsa-sign", "cryptography", lambda: CRYPTO_SIGNER.sign(MESSAGE, ECDSA_SHA256)
    )
    assert ewc.verify_signature(SIGNER_PUB65, MESSAGE, sig)


def test_ecdsa_verify_ours(benchmark: Any) -> None:
    ok = _run(
        benchmark,
        "ecdsa-verify",
        "ours",
        lambda: ewc.verify_signature(SIGNER_PUB65, MESSAGE, SIGNATURE),
    )
    assert ok is True
    assert ewc.verify_signature(SIGNER_PUB65, MESSAGE + b" ", SIGNATURE) is False


def test_ecdsa_verify_cryptography(benchmark: Any) -> None:
    assert _run(benchmark, "ecdsa-verify", "cryptography", lambda: _crypto_verify(SIGNATURE))


# --------------------------------------------------------------------------------------------
# SEC1 public keys: parse a compressed key (decompress + validate), compress an uncompressed one
# --------------------------------------------------------------------------------------------


# Distinct keys, cycled: more than any process-wide key cache holds (the core keeps 4096 parsed
# verifying keys), so the headline parse number is the cost of a key the process has not seen.
DISTINCT_KEYS = 8192


@pytest.fixture(scope="module")
def distinct_keys() -> tuple[list[bytes], list[bytes]]:
    """(compressed, uncompressed) SEC1 encodings of DISTINCT_KEYS fixed public keys."""
    compressed, uncompressed = [], []
    for i in range(DISTINCT_KEYS):
        scalar = int.from_bytes(_scalar(b"parse %d" % i), "big")
        public = ec.derive_private_key(scalar, CURVE).public_key()
        compressed.append(public.public_bytes(Encoding.X962, PublicFormat.CompressedPoint))
        uncompressed.append(public.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))
    return compressed, uncompressed


def test_parse_compressed_ours(
    benchmark: Any, distinct_keys: tuple[list[bytes], list[bytes]]
) -> None:
    keys33, keys65 = distinct_keys
    keys = itertools.cycle(keys33)
    out = _run(benchmark, "p256-parse-compressed", "ours", lambda: ewc.parse_public_key(next(keys)))
    assert len(out) == 65
    assert [ewc.parse_public_key(k) for k in keys33[:512]] == keys65[:512]


def test_parse_compressed_cryptography(
    benchmark: Any, distinct_keys: tuple[list[bytes], list[bytes]]
) -> None:
    keys33, _ = distinct_keys
    keys = itertools.cycle(keys33)
    key = _run(
        benchmark,
        "p256-parse-compressed",
        "cryptography",
        lambda: ec.EllipticCurvePublicKey.from_encoded_point(CURVE, next(keys)),
    )
    assert isinstance(key, ec.EllipticCurvePublicKey)


def test_parse_compressed_same_key_ours(benchmark: Any) -> None:
    out = _run(
        benchmark,
        "p256-parse-compressed-same-key",
        "ours",
        lambda: ewc.parse_public_key(SIGNER_PUB33),
    )
    assert out == SIGNER_PUB65


def test_parse_compressed_same_key_cryptography(benchmark: Any) -> None:
    key = _run(
        benchmark,
        "p256-parse-compressed-same-key",
        "cryptography",
        lambda: ec.EllipticCurvePublicKey.from_encoded_point(CURVE, SIGNER_PUB33),
    )
    assert key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint) == SIGNER_PUB65


def test_compress_ours(benchmark: Any) -> None:
    out = _run(benchmark, "p256-compress", "ours", lambda: ewc.compress_public_key(SIGNER_PUB65))
    assert out == SIGNER_PUB33


def test_compress_cryptography(benchmark: Any) -> None:
    def compress() -> bytes:
        key = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, SIGNER_PUB65)
        return key.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)

    assert _run(benchmark, "p256-compress", "cryptography", compress) == SIGNER_PUB33


# --------------------------------------------------------------------------------------------
# base58check of an 81-byte payload (the encryptedSessionSigningKey size)
# --------------------------------------------------------------------------------------------


def test_b58check_encode_ours(benchmark: Any) -> None:
    out = _run(benchmark, "b58check-encode", "ours", lambda: ewc.b58check_encode(B58_PAYLOAD))
    assert out == B58_TEXT


def test_b58check_encode_base58(benchmark: Any) -> None:
    out = _run(benchmark, "b58check-encode", "base58", lambda: base58.b58encode_check(B58_PAYLOAD))
    assert out == B58_TEXT.encode("ascii")


def test_b58check_decode_ours(benchmark: Any) -> None:
    out = _run(benchmark, "b58check-decode", "ours", lambda: ewc.b58check_decode(B58_TEXT))
    assert out == B58_PAYLOAD


def test_b58check_decode_base58(benchmark: Any) -> None:
    out = _run(benchmark, "b58check-decode", "base58", lambda: base58.b58decode_check(B58_TEXT))
    assert out == B58_PAYLOAD


# --------------------------------------------------------------------------------------------
# Thread scaling: a fixed batch in one thread vs split across two (pool built outside timing)
# --------------------------------------------------------------------------------------------


def _ours_verify_batch(n: int) -> bool:
    ok = True
    for _ in range(n):
        ok = ewc.verify_signature(SIGNER_PUB65, MESSAGE, SIGNATURE) and ok
    return ok


def _crypto_verify_batch(n: int) -> bool:
    ok = True
    for _ in range(n):
        ok = _crypto_verify(SIGNATURE) and ok
    return ok


_OPEN_ENC, _OPEN_CT = RFC_SEALED["32B"][:65], RFC_SEALED["32B"][65:]


def _ours_open_batch(n: int) -> bool:
    pt = PLAINTEXTS["32B"]
    ok = True
    for _ in range(n):
        ok = ewc.hpke.open(OUR_RECIPIENT, _OPEN_ENC, _OPEN_CT, aad=b"") == pt and ok
    return ok


THREAD_CASES = {
    "threads-ecdsa-verify": ("ours", _ours_verify_batch),
    "threads-hpke-open-32B": ("ours", _ours_open_batch),
    # Informational: does the peer scale too? (only as far as it releases the GIL)
    "threads-ecdsa-verify-cryptography": ("cryptography", _crypto_verify_batch),
}


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=2) as executor:
        list(executor.map(lambda _: None, range(4)))  # start both worker threads now
        yield executor


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", list(THREAD_CASES))
def test_threads(benchmark: Any, pool: ThreadPoolExecutor, case: str, threads: int) -> None:
    owner, batch = THREAD_CASES[case]
    benchmark.group = f"{case}-x{THREAD_BATCH}"
    benchmark.extra_info["impl"] = f"{owner}-{threads}thread"
    benchmark.extra_info["batch"] = THREAD_BATCH

    if threads == 1:

        def run() -> bool:
            return batch(THREAD_BATCH)

    else:
        half = THREAD_BATCH // 2

        def run() -> bool:
            futures = [pool.submit(batch, half), pool.submit(batch, THREAD_BATCH - half)]
            return all(f.result() for f in futures)

    assert benchmark.pedantic(run, rounds=10, warmup_rounds=1, iterations=1) is True
