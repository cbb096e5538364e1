"""The fixed keys of the protocol benchmarks (test_bench_protocol.py and
test_bench_signed_retry.py): P-256 scalars and UUIDs derived from labels, the session key that
stamps, and the client's key (the export target, and what a session key is sealed to)."""

from __future__ import annotations

import hashlib

import embedded_wallet_crypto as ewc


def _scalar(label: bytes) -> bytes:
    """A fixed, valid P-256 private scalar (SHA-256 of a label; < n with overwhelming odds)."""
    return hashlib.sha256(b"embedded-wallet-crypto protocol bench " + label).digest()


def _uuid(label: bytes) -> str:
    h = hashlib.sha256(label).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


SESSION_KEY = ewc.KeyPair.from_private_bytes(_scalar(b"session"))
SESSION_PUB33_HEX = SESSION_KEY.public_key_hex(compressed=True)
# The client's ephemeral key: the export target, and what a session key is sealed to.
CLIENT_SCALAR = _scalar(b"client")
OUR_CLIENT = ewc.KeyPair.from_private_bytes(CLIENT_SCALAR)
CLIENT_PUB65 = OUR_CLIENT.public_key_bytes()
CLIENT_PUB65_HEX = CLIENT_PUB65.hex()
