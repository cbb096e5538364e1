"""Device codes and agent access tokens: how they look and what is stored of them (their
SHA-256 only)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Final

__all__ = [
    "ACCESS_TOKEN_LIFETIME",
    "DEVICE_CODE_LIFETIME",
    "new_access_token",
    "new_device_code",
    "same_hash",
    "token_hash",
]

#: A device code lives 24 hours, an access token 30 days (both on the scaled clock).
DEVICE_CODE_LIFETIME: Final = timedelta(hours=24)
ACCESS_TOKEN_LIFETIME: Final = timedelta(days=30)
_CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


def new_device_code() -> str:
    """A fresh human-readable device code, ``AGENT-XXXX-XXXX``."""
    groups = ("".join(secrets.choice(_CODE_ALPHABET) for _ in range(4)) for _ in range(2))
    return "AGENT-" + "-".join(groups)


def new_access_token() -> str:
    """A fresh agent access token: ``gat_`` and 40 hex digits (160 random bits)."""
    return "gat_" + secrets.token_hex(20)


def token_hash(token: str) -> str:
    """What the service stores for a device code or an access token: SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_hash(a: str, b: str) -> bool:
    """Constant-time comparison of two stored hashes."""
    return hmac.compare_digest(a.encode(), b.encode())
