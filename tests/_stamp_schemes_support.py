"""What the stamp-scheme test files share: the three schemes, fixed keys of each, and the stamp
writer, reader and error-code helpers."""

from __future__ import annotations

import base64
import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest

P256, K1, ED = ewc.STAMP_SCHEME_P256, ewc.STAMP_SCHEME_SECP256K1, ewc.STAMP_SCHEME_ED25519
ALL = (P256, K1, ED)
K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
K1_KEY = ewc.Secp256k1KeyPair.from_private_bytes(b"\x11" * 32)
ED_KEY = ewc.Ed25519KeyPair.from_private_bytes(b"\x22" * 32)
P256_KEY = ewc.KeyPair.from_private_hex("33" * 32)


def write_stamp(public_key: bytes | str, scheme: str, signature: bytes) -> str:
    """A stamp written by hand (json + base64), independent of the library."""
    key_hex = public_key if isinstance(public_key, str) else public_key.hex()
    fields = {"publicKey": key_hex, "scheme": scheme, "signature": signature.hex()}
    text = json.dumps(fields, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_stamp(stamp: str) -> dict[str, str]:
    fields: dict[str, str] = json.loads(base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4)))
    return fields


def code_of(call: Any) -> str:
    with pytest.raises(ewc.WalletCryptoError) as caught:
        call()
    return caught.value.code
