"""Protocol benchmarks (issue 3): stamps and session keys, with fixed inputs.

Like ``test_bench_core.py``, every benchmark is also a test of what it timed, sets
``benchmark.group`` and ``benchmark.extra_info["impl"]``, and ``benches/report.py`` pairs rows by
(group, impl). The peers are what a Python server or client does today without this library:
``base64`` + ``json`` + ``cryptography`` for stamps; ``base58`` + ``cryptography`` + ``pyhpke``
for the ``encryptedSessionSigningKey``. Signed retries are timed in
``test_bench_signed_retry.py``.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Callable
from typing import Any

import base58
import embedded_wallet_crypto as ewc
import pytest
from _protocol_keys import (
    CLIENT_PUB65,
    CLIENT_PUB65_HEX,
    CLIENT_SCALAR,
    OUR_CLIENT,
    SESSION_KEY,
    SESSION_PUB33_HEX,
    _scalar,
    _uuid,
)
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey

# Same timing budget as the core benchmarks (the report must stay well under three minutes).
pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

# --------------------------------------------------------------------------------------------
# Fixed inputs (the keys are in _protocol_keys.py)
# --------------------------------------------------------------------------------------------

INFO = b"turnkey_hpke"
CURVE = ec.SECP256R1()
ECDSA_SHA256 = ec.ECDSA(hashes.SHA256())
SCHEME = "SIGNATURE_SCHEME_TK_API_P256"
assert ewc.stamps.SCHEME == SCHEME


def _payload(i: int) -> bytes:
    """A refresh-session payloadToSign as formats.md section 5 has it (~300 bytes: compact JSON,
    an uncompressed targetPublicKey); distinct per ``i`` through its timestamp."""
    body = {
        "organizationId": _uuid(b"organization"),
        "parameters": {"targetPublicKey": CLIENT_PUB65_HEX},
        "timestampMs": str(1767225600000 + i),
        "type": "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
    }
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


PAYLOAD = _payload(0)
assert 290 <= len(PAYLOAD) <= 320, len(PAYLOAD)
STAMP = ewc.create_stamp(PAYLOAD, SESSION_KEY)


def python_verify_stamp(stamp: str, payload: bytes) -> str:
    """How a Python server verifies a stamp today (base64 + json + cryptography).

    Returns the signer's compressed key hex; raises on any failure.
    """
    fields = json.loads(base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4)))
    if fields["scheme"] != SCHEME:
        raise ValueError("unknown stamp scheme")
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(
        CURVE, bytes.fromhex(fields["publicKey"])
    )
    public_key.verify(bytes.fromhex(fields["signature"]), payload, ECDSA_SHA256)
    return str(fields["publicKey"])


def _run(benchmark: Any, group: str, impl: str, fn: Callable[[], Any]) -> Any:
    benchmark.group = group
    benchmark.extra_info["impl"] = impl
    return benchmark(fn)


# --------------------------------------------------------------------------------------------
# verify_stamp: one session key (the realistic case: the core's key cache is hot) and, as an
# informational row, a distinct key per stamp (more keys than the cache's 4096, so every call
# parses its key)
# --------------------------------------------------------------------------------------------


def test_verify_stamp_ours(benchmark: Any) -> None:
    out = _run(benchmark, "stamp-verify", "ours", lambda: ewc.verify_stamp(STAMP, PAYLOAD))
    assert out.public_key == SESSION_PUB33_HEX and out.scheme == SCHEME
    with pytest.raises(ewc.StampError):
        ewc.verify_stamp(STAMP, PAYLOAD + b" ")


def test_verify_stamp_python(benchmark: Any) -> None:
    out = _run(
        benchmark,
        "stamp-verify",
        "python-cryptography",
        lambda: python_verify_stamp(STAMP, PAYLOAD),
    )
    assert out == SESSION_PUB33_HEX
    with pytest.raises(InvalidSignature):
        python_verify_stamp(STAMP, PAYLOAD + b" ")


DISTINCT_KEYS = 8192  # twice the core's key cache (4096 keys)


@pytest.fixture(scope="module")
def distinct_key_stamps() -> list[tuple[str, str]]:
    """(stamp over PAYLOAD, signer's compressed hex) for DISTINCT_KEYS fixed session keys."""
    out = []
    for i in range(DISTINCT_KEYS):
        key = ewc.KeyPair.from_private_bytes(_scalar(b"distinct %d" % i))
        out.append((ewc.create_stamp(PAYLOAD, key), key.public_key_hex(compressed=True)))
    assert len({signer for _, signer in out}) == DISTINCT_KEYS
    return out


def test_verify_stamp_distinct_keys_ours(
    benchmark: Any, distinct_key_stamps: list[tuple[str, str]]
) -> None:
    items = itertools.cycle(distinct_key_stamps)

    def verify() -> bool:
        stamp, signer = next(items)
        return ewc.verify_stamp(stamp, PAYLOAD).public_key == signer

    assert _run(benchmark, "stamp-verify-distinct-keys", "ours", verify) is True


def test_verify_stamp_distinct_keys_python(
    benchmark: Any, distinct_key_stamps: list[tuple[str, str]]
) -> None:
    items = itertools.cycle(distinct_key_stamps)

    def verify() -> bool:
        stamp, signer = next(items)
        return python_verify_stamp(stamp, PAYLOAD) == signer

    assert _run(benchmark, "stamp-verify-distinct-keys", "python-cryptography", verify) is True


# --------------------------------------------------------------------------------------------
# verify_stamps: 10,000 stamps (distinct payloads, a few hundred session keys) in one call on
# every core vs verify_stamp in a Python loop over the same stamps
# --------------------------------------------------------------------------------------------

BATCH = 10_000
BATCH_KEYS = 256


@pytest.fixture(scope="module")
def stamp_batch() -> tuple[list[str], list[bytes]]:
    keys = [ewc.KeyPair.from_private_bytes(_scalar(b"batch %d" % i)) for i in range(BATCH_KEYS)]
    payloads = [_payload(1000 + i) for i in range(BATCH)]
    stamps = [ewc.create_stamp(p, keys[i % BATCH_KEYS]) for i, p in enumerate(payloads)]
    return stamps, payloads


def _verify_loop(stamps: list[str], payloads: list[bytes]) -> list[bool]:
    verify = ewc.verify_stamp
    return [verify(s, p).scheme == SCHEME for s, p in zip(stamps, payloads, strict=True)]


@pytest.mark.parametrize("impl", ["ours-verify_stamps", "ours-verify_stamp-loop"])
def test_verify_stamps_batch(
    benchmark: Any, stamp_batch: tuple[list[str], list[bytes]], impl: str
) -> None:
    stamps, payloads = stamp_batch
    benchmark.group = f"stamp-verify-batch-x{BATCH}"
    benchmark.extra_info["impl"] = impl
    benchmark.extra_info["ops"] = BATCH
    fn = ewc.verify_stamps if impl == "ours-verify_stamps" else _verify_loop
    verdicts = benchmark.pedantic(fn, args=(stamps, payloads), rounds=5, warmup_rounds=1)
    assert verdicts == [True] * BATCH
    if impl == "ours-verify_stamps":
        # One stamp moved onto another payload: exactly that verdict flips.
        swapped = [*payloads[:-1], payloads[0]]
        assert ewc.verify_stamps(stamps, swapped) == [True] * (BATCH - 1) + [False]


# --------------------------------------------------------------------------------------------
# encryptedSessionSigningKey: open (client) and seal (server) vs base58 + cryptography + pyhpke
# --------------------------------------------------------------------------------------------

PYHPKE_SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)
CRYPTO_CLIENT = ec.derive_private_key(int.from_bytes(CLIENT_SCALAR, "big"), CURVE)
PYHPKE_SKR = KEMKey.from_pyca_cryptography_key(CRYPTO_CLIENT)
PYHPKE_PKR = KEMKey.from_pyca_cryptography_key(CRYPTO_CLIENT.public_key())
assert (
    CRYPTO_CLIENT.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    == CLIENT_PUB65
)

SEALED_SESSION_SCALAR = _scalar(b"sealed session key")
ESSK = ewc.seal_session_key(CLIENT_PUB65, ewc.KeyPair.from_private_bytes(SEALED_SESSION_SCALAR))


def peer_open_session_key(essk: str) -> ec.EllipticCurvePrivateKey:
    """base58check-decode, decompress enc, HPKE-open with the profile AAD, load the scalar."""
    raw = base58.b58decode_check(essk)
    if len(raw) != 81:
        raise ValueError("an encryptedSessionSigningKey is 81 bytes")
    enc = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, raw[:33]).public_bytes(
        Encoding.X962, PublicFormat.UncompressedPoint
    )
    ctx = PYHPKE_SUITE.create_recipient_context(enc, PYHPKE_SKR, INFO)
    scalar = ctx.open(raw[33:], enc + CLIENT_PUB65)
    return ec.derive_private_key(int.from_bytes(scalar, "big"), CURVE)


def peer_seal_session_key() -> tuple[ec.EllipticCurvePrivateKey, str]:
    """Generate a session key and seal it to the client: pyhpke + cryptography + base58."""
    session_key = ec.generate_private_key(CURVE)
    scalar = session_key.private_numbers().private_value.to_bytes(32, "big")
    enc, ctx = PYHPKE_SUITE.create_sender_context(PYHPKE_PKR, INFO)
    ct = ctx.seal(scalar, enc + CLIENT_PUB65)
    enc33 = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, enc).public_bytes(
        Encoding.X962, PublicFormat.CompressedPoint
    )
    return session_key, base58.b58encode_check(enc33 + ct).decode("ascii")


def ours_seal_session_key() -> tuple[ewc.KeyPair, str]:
    """The same work with this library: generate the session key, seal it."""
    session_key = ewc.KeyPair.generate()
    return session_key, ewc.seal_session_key(CLIENT_PUB65, session_key)


def _scalar_of(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_numbers().private_value.to_bytes(32, "big")


def test_open_session_key_ours(benchmark: Any) -> None:
    key = _run(
        benchmark, "session-key-open", "ours", lambda: ewc.open_session_key(ESSK, OUR_CLIENT)
    )
    assert key.private_key_bytes() == SEALED_SESSION_SCALAR


def test_open_session_key_peer(benchmark: Any) -> None:
    key = _run(
        benchmark,
        "session-key-open",
        "base58+cryptography+pyhpke",
        lambda: peer_open_session_key(ESSK),
    )
    assert _scalar_of(key) == SEALED_SESSION_SCALAR


def test_seal_session_key_ours(benchmark: Any) -> None:
    session_key, essk = _run(benchmark, "session-key-seal", "ours", ours_seal_session_key)
    assert len(base58.b58decode_check(essk)) == 81
    assert _scalar_of(peer_open_session_key(essk)) == session_key.private_key_bytes()


def test_seal_session_key_peer(benchmark: Any) -> None:
    session_key, essk = _run(
        benchmark, "session-key-seal", "base58+cryptography+pyhpke", peer_seal_session_key
    )
    assert ewc.open_session_key(essk, OUR_CLIENT).private_key_bytes() == _scalar_of(session_key)
