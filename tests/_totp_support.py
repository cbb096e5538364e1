"""What the TOTP test files share: a fixed secret and moment, RFC 6238 appendix B's seeds and
vectors, ``fails`` (the exact code and status) and pyotp as the oracle."""

from __future__ import annotations

from typing import Any

import embedded_wallet_crypto as ewc
import pyotp
import pytest
from embedded_wallet_crypto import totp

NOW = 1_700_000_000
SECRET = totp.TotpSecret(b"12345678901234567890")

# RFC 6238 appendix B: 8 digits, a 30-second step, T0 = 0; the seed of each hash is the ASCII
# "1234567890" repeated to the hash's output size (20, 32 and 64 bytes).
RFC_SEEDS = {
    "SHA1": b"12345678901234567890",
    "SHA256": b"12345678901234567890123456789012",
    "SHA512": b"1234567890123456789012345678901234567890123456789012345678901234",
}
RFC_VECTORS = [
    (59, "SHA1", "94287082"),
    (59, "SHA256", "46119246"),
    (59, "SHA512", "90693936"),
    (1111111109, "SHA1", "07081804"),
    (1111111109, "SHA256", "68084774"),
    (1111111109, "SHA512", "25091201"),
    (1111111111, "SHA1", "14050471"),
    (1111111111, "SHA256", "67062674"),
    (1111111111, "SHA512", "99943326"),
    (1234567890, "SHA1", "89005924"),
    (1234567890, "SHA256", "91819424"),
    (1234567890, "SHA512", "93441116"),
    (2000000000, "SHA1", "69279037"),
    (2000000000, "SHA256", "90698825"),
    (2000000000, "SHA512", "38618901"),
    (20000000000, "SHA1", "65353130"),
    (20000000000, "SHA256", "77737706"),
    (20000000000, "SHA512", "47863826"),
]
DIGESTS = {"SHA1": "sha1", "SHA256": "sha256", "SHA512": "sha512"}


def fails(call: Any, code: str, status: int) -> ewc.TotpError:
    with pytest.raises(ewc.TotpError) as raised:
        call()
    assert (raised.value.code, raised.value.status) == (code, status), repr(raised.value)
    return raised.value


def oracle(secret: totp.TotpSecret, algorithm: str = "SHA1", digits: int = 6, period: int = 30):
    import hashlib

    digest = getattr(hashlib, DIGESTS[algorithm])
    return pyotp.TOTP(secret.base32, digits=digits, digest=digest, interval=period)
