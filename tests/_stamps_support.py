"""What the stamp test files share: the scheme, the codes, a fixed payload and keys, and the
builders of stamps (fields, JSON, base64url) and of both s forms of a signature."""

from __future__ import annotations

import base64
import hashlib
import json

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
SCHEME = "SIGNATURE_SCHEME_TK_API_P256"
MISSING = "WALLET_SIGNATURE_MISSING"
MALFORMED = "WALLET_SIGNATURE_MALFORMED"
INVALID = "WALLET_SIGNATURE_INVALID"
KEY_MISMATCH = "WALLET_SIGNATURE_KEY_MISMATCH"
PAYLOAD = (
    b'{"organizationId":"org-1","parameters":{"targetPublicKey":"04ab","walletId":"w-1"},'
    b'"timestampMs":"1700000000000","type":"ACTIVITY_TYPE_EXPORT_WALLET"}'
)

# Fixed keys (scalars from SHA-256 of a label): the parametrized ids below show KEY's encodings,
# so every collection, also each pytest-xdist worker's, must see the same tests.
KEY = ewc.KeyPair.from_private_bytes(hashlib.sha256(b"test_stamps KEY").digest())
OTHER = ewc.KeyPair.from_private_bytes(hashlib.sha256(b"test_stamps OTHER").digest())


def _b64url(data: bytes, *, padded: bool = False) -> str:
    text = base64.urlsafe_b64encode(data).decode()
    return text if padded else text.rstrip("=")


def _decode(stamp: str) -> bytes:
    return base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4))


def _fields(key: ewc.KeyPair = KEY, payload: bytes = PAYLOAD) -> dict[str, str]:
    return {
        "publicKey": key.public_key_hex(compressed=True),
        "scheme": SCHEME,
        "signature": key.sign(payload).hex(),
    }


def _stamp(fields: dict[str, str] | str, *, padded: bool = False) -> str:
    """A stamp from fields (compact JSON in their order) or from raw JSON text."""
    text = fields if isinstance(fields, str) else json.dumps(fields, separators=(",", ":"))
    return _b64url(text.encode(), padded=padded)


def _code(stamp: str | None, payload: bytes | str = PAYLOAD, **options: object) -> str:
    with pytest.raises(ewc.StampError) as raised:
        ewc.verify_stamp(stamp, payload, **options)  # type: ignore[arg-type]
    assert raised.value.status == 401
    assert str(raised.value) == raised.value.reason
    return raised.value.code


def _both_s(signature: bytes) -> tuple[bytes, bytes]:
    r, s = decode_dss_signature(signature)
    low = min(s, N - s)
    return encode_dss_signature(r, low), encode_dss_signature(r, N - low)
