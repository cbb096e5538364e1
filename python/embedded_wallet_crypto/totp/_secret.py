"""The TOTP shared secret and its provisioning URI.

A secret is random bytes from ``secrets`` (20 for SHA-1, 32 for SHA-256, 64 for SHA-512: the
key sizes of RFC 6238's reference, and at least the 160 bits RFC 4226 recommends), shown to the
user as unpadded upper-case RFC 4648 base32, the form authenticator apps take. The provisioning
URI follows the Key URI Format of Google Authenticator (``otpauth://totp/ISSUER:ACCOUNT?...``).
It is assembled here with ``urllib.parse`` rather than taken from ``cryptography``'s
``TOTP.get_provisioning_uri``, which leaves ``/`` unescaped in the label, writes a space as
``+`` in the query (a literal plus sign to an RFC 3986 reader) and pads the secret with ``=``.
"""

from __future__ import annotations

import base64
import binascii
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote

from .._contract import utf8
from ..errors import TotpError

__all__ = [
    "ALGORITHMS",
    "MAX_PERIOD",
    "MAX_SECRET_BYTES",
    "MIN_SECRET_BYTES",
    "Algorithm",
    "TotpSecret",
    "check_settings",
    "checked_label",
    "config_invalid",
    "provisioning_uri",
]

#: The HMAC hash functions RFC 6238 allows, by the names the provisioning URI uses.
Algorithm = Literal["SHA1", "SHA256", "SHA512"]
ALGORITHMS: tuple[Algorithm, ...] = ("SHA1", "SHA256", "SHA512")
#: RFC 4226 section 4, R6: a shared secret of at least 128 bits (``cryptography`` enforces it).
MIN_SECRET_BYTES = 16
#: The longest secret accepted (RFC 6238's SHA-512 reference key is 64 bytes).
MAX_SECRET_BYTES = 128
_GENERATED_BYTES = {"SHA1": 20, "SHA256": 32, "SHA512": 64}
_BASE32 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_MAX_LABEL = 200
#: The longest time step accepted, in seconds (RFC 6238 recommends 30).
MAX_PERIOD = 3600


def _secret_invalid(reason: str) -> TotpError:
    return TotpError(reason, "TOTP_SECRET_INVALID", 400)


def _label_invalid(reason: str) -> TotpError:
    return TotpError(reason, "TOTP_LABEL_INVALID", 400)


@dataclass(frozen=True, eq=False)
class TotpSecret:
    """A TOTP shared secret. Its bytes never appear in ``repr``; compare secrets by
    :attr:`key` only where timing cannot matter (``hmac.compare_digest`` otherwise).

    Raises:
        TypeError: ``key`` is not bytes.
        TotpError: ``TOTP_SECRET_INVALID`` (400): fewer than 16 or more than 128 bytes.
    """

    key: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if type(self.key) is not bytes:
            raise TypeError(f"a TOTP secret's key must be bytes, not {type(self.key).__name__}")
        if not MIN_SECRET_BYTES <= len(self.key) <= MAX_SECRET_BYTES:
            raise _secret_invalid(
                f"a TOTP secret must be {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes"
            )

    @classmethod
    def generate(cls, algorithm: Algorithm = "SHA1") -> TotpSecret:
        """A fresh random secret of the size RFC 6238's reference uses for ``algorithm``."""
        if algorithm not in _GENERATED_BYTES:
            raise config_invalid(f"algorithm must be one of {', '.join(ALGORITHMS)}")
        return cls(secrets.token_bytes(_GENERATED_BYTES[algorithm]))

    @property
    def base32(self) -> str:
        """Unpadded upper-case base32 (RFC 4648): the provisioning URI's ``secret`` and the
        text a user types into an authenticator app."""
        return base64.b32encode(self.key).decode("ascii").rstrip("=")

    @property
    def hex(self) -> str:
        """Lower-case hex of the raw bytes."""
        return self.key.hex()

    @classmethod
    def from_base32(cls, text: str) -> TotpSecret:
        """Parse :attr:`base32` text: upper or lower case, without padding or with exactly the
        canonical ``=`` padding; the unused low bits of the last character must be zero (the
        one text per secret).

        Raises:
            TypeError: ``text`` is not a ``str``.
            TotpError: ``TOTP_SECRET_INVALID`` (400).
        """
        if not isinstance(text, str):
            raise TypeError(f"a base32 TOTP secret must be str, not {type(text).__name__}")
        if len(text) > 2 * MAX_SECRET_BYTES + 8:
            raise _secret_invalid("the base32 TOTP secret is too long")
        body = text.rstrip("=").upper()
        if not body or not set(body) <= _BASE32:
            raise _secret_invalid("the TOTP secret is not base32 (A-Z, 2-7)")
        padded = body + "=" * (-len(body) % 8)
        if len(text) != len(body) and len(text) != len(padded):
            raise _secret_invalid("the base32 TOTP secret's padding is wrong")
        try:
            key = base64.b32decode(padded)
        except binascii.Error:
            raise _secret_invalid("the TOTP secret is not base32 of whole bytes") from None
        if base64.b32encode(key).decode("ascii").rstrip("=") != body:
            raise _secret_invalid("the TOTP secret is not canonical base32")
        return cls(key)

    @classmethod
    def from_hex(cls, text: str) -> TotpSecret:
        """Parse :attr:`hex` text (either case).

        Raises:
            TypeError: ``text`` is not a ``str``.
            TotpError: ``TOTP_SECRET_INVALID`` (400).
        """
        if not isinstance(text, str):
            raise TypeError(f"a hex TOTP secret must be str, not {type(text).__name__}")
        if len(text) > 2 * MAX_SECRET_BYTES:
            raise _secret_invalid("the hex TOTP secret is too long")
        if len(text) % 2 or not set(text) <= _HEX:
            raise _secret_invalid("the TOTP secret is not hex of whole bytes")
        return cls(bytes.fromhex(text))


def config_invalid(reason: str) -> TotpError:
    return TotpError(reason, "TOTP_CONFIG_INVALID", 500)


def _whole(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise config_invalid(f"{name} must be from {low} to {high}")
    return value


def check_settings(algorithm: object, digits: object, period: object) -> None:
    """The code's settings: an algorithm of :data:`ALGORITHMS`, 6 to 8 digits (RFC 4226's
    range, which ``cryptography`` enforces), a period of 1 to 3600 whole seconds.

    Raises:
        TypeError: ``digits`` or ``period`` is not an int.
        TotpError: ``TOTP_CONFIG_INVALID`` (500).
    """
    if algorithm not in ALGORITHMS:
        raise config_invalid(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    _whole(digits, "digits", 6, 8)
    _whole(period, "period", 1, MAX_PERIOD)


def checked_label(value: object, what: str) -> str:
    """An issuer or account name: 1 to 200 characters of Unicode text, no colon (it separates
    the two in the label) and no control character."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be str, not {type(value).__name__}")
    utf8(value, what, _label_invalid)
    if not 0 < len(value) <= _MAX_LABEL:
        raise _label_invalid(f"{what} must be 1 to {_MAX_LABEL} characters")
    if ":" in value:
        raise _label_invalid(f"{what} must not contain a colon (it separates issuer and account)")
    if any(unicodedata.category(character) == "Cc" for character in value):
        raise _label_invalid(f"{what} must not contain a control character")
    return value


def provisioning_uri(
    secret: TotpSecret,
    *,
    account_name: str,
    issuer: str,
    algorithm: Algorithm = "SHA1",
    digits: int = 6,
    period: int = 30,
) -> str:
    """The ``otpauth://totp/`` URI an authenticator app scans (the QR code's text).

    The label is ``ISSUER:ACCOUNT``, each part percent-encoded as UTF-8 (RFC 3986: everything
    but unreserved characters and ``@``), and the query carries ``secret`` (unpadded base32),
    ``issuer``, ``algorithm``, ``digits`` and ``period``, encoded the same way (a space is
    ``%20``).

    Raises:
        TypeError: a wrong type.
        TotpError: ``TOTP_LABEL_INVALID`` (400) for an empty, too long or colon-holding
            issuer or account name; ``TOTP_CONFIG_INVALID`` (500) for settings out of range.
    """
    if not isinstance(secret, TotpSecret):
        raise TypeError(f"secret must be a TotpSecret, not {type(secret).__name__}")
    check_settings(algorithm, digits, period)
    issuer = checked_label(issuer, "issuer")
    account_name = checked_label(account_name, "account_name")
    label = f"{_quote(issuer)}:{_quote(account_name)}"
    query = [
        ("secret", secret.base32),
        ("issuer", issuer),
        ("algorithm", algorithm),
        ("digits", str(digits)),
        ("period", str(period)),
    ]
    return f"otpauth://totp/{label}?" + "&".join(f"{k}={_quote(v)}" for k, v in query)


def _quote(text: str) -> str:
    return quote(text, safe="@")
