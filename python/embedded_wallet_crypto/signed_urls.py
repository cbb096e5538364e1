"""Signed short-lived URLs (``ewc.signed_urls``): a URL that carries its own expiry and an
HMAC-SHA256 of its canonical form, such as the card reveal's ``panEmbedUrl``.

:func:`sign_url` appends three query parameters to the caller's URL: ``expires`` (Unix seconds),
``kid`` (the key's id, when given) and ``signature`` (unpadded base64url of the 32-byte MAC).
:func:`verify_signed_url` recomputes the MAC over the same canonical form and compares it in
constant time (``cryptography``'s ``HMAC.verify``), then checks the expiry.

The canonical form is what survives a URL's trip through browsers and proxies unchanged in
meaning (RFC 3986 section 6.2.2): the scheme and host in lower case, the scheme's default port
dropped, an empty path as ``/``, percent-escapes with upper-case hex and those of unreserved
characters decoded, and the query's ``name=value`` pairs (every one but ``signature``) sorted.
The signed text is ``ewc-signed-url-v1``, scheme, authority, path and that query, one per line.

A signed URL is a bearer secret: nothing here logs it, and no error message repeats it or any
part of it. Only ``http`` and ``https`` URLs are signed; a URL with user information, a
fragment, a character outside RFC 3986 (non-ASCII text must be percent-encoded first) or a
broken percent-escape is refused.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac

from ._contract import buffer_bytes
from ._types import BytesLike
from .errors import SignedUrlError

__all__ = [
    "MAX_LIFETIME_SECONDS",
    "MAX_URL_LENGTH",
    "MIN_KEY_BYTES",
    "VerifiedUrl",
    "sign_url",
    "verify_signed_url",
]

#: The longest URL signed or verified, in characters.
MAX_URL_LENGTH = 4096
#: The shortest HMAC key accepted (the hash's output size).
MIN_KEY_BYTES = 32
#: The longest lifetime :func:`sign_url` allows (its ``max_lifetime_seconds`` cannot exceed it).
MAX_LIFETIME_SECONDS = 7 * 86_400
_EXPIRES, _KEY_ID, _SIGNATURE = "expires", "kid", "signature"
_OURS = (_EXPIRES, _KEY_ID, _SIGNATURE)
_DOMAIN = "ewc-signed-url-v1"
_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# RFC 3986's characters: unreserved, reserved and "%" ("#" is refused apart: no fragments).
_URL_CHARACTERS = _UNRESERVED | frozenset(":/?[]@!$&'()*+,;=%")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_BROKEN_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_KEY_ID_TEXT = re.compile(r"[A-Za-z0-9._-]{1,64}")
_SIGNATURE_TEXT = re.compile(r"[A-Za-z0-9_-]{43}")
_EXPIRES_TEXT = re.compile(r"[1-9][0-9]{0,11}")
_LATEST = 253_402_300_799  # the last second of year 9999


def _malformed(reason: str) -> SignedUrlError:
    return SignedUrlError(reason, "URL_MALFORMED", 400)


def _config(reason: str, code: str = "URL_KEY_INVALID") -> SignedUrlError:
    return SignedUrlError(reason, code, 500)


@dataclass(frozen=True)
class VerifiedUrl:
    """What a valid signed URL said: its expiry and the id of the key that signed it (None
    when it names none)."""

    expires_at: datetime
    key_id: str | None


def _normalised(part: str) -> str:
    """``part`` with percent-escapes in upper-case hex, those of unreserved characters
    decoded (RFC 3986 section 6.2.2.1 and 6.2.2.2)."""

    def one(match: re.Match[str]) -> str:
        character = chr(int(match.group(1), 16))
        return character if character in _UNRESERVED else "%" + match.group(1).upper()

    return _ESCAPE.sub(one, part)


def _parts(url: object) -> tuple[str, str, str, list[tuple[str, str]]]:
    """Scheme, authority and path in canonical form, and the query's raw (name, value) pairs
    with normalised escapes, in their order."""
    if not isinstance(url, str):
        raise TypeError(f"url must be str, not {type(url).__name__}")
    if not 0 < len(url) <= MAX_URL_LENGTH:
        raise _malformed(f"the URL must be 1 to {MAX_URL_LENGTH} characters")
    if "#" in url:
        raise _malformed("the URL must not have a fragment")
    if not set(url) <= _URL_CHARACTERS:
        raise _malformed("the URL holds a character outside RFC 3986 (percent-encode it)")
    if _BROKEN_ESCAPE.search(url):
        raise _malformed("the URL holds a % that does not start a percent-escape")
    try:
        split = urlsplit(url)
        port = split.port
    except ValueError:
        raise _malformed("the URL's authority is not a host and port") from None
    scheme = split.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise _malformed("the URL's scheme must be http or https")
    if "@" in split.netloc:
        raise _malformed("the URL must not carry user information")
    host = split.hostname or ""
    if not host:
        raise _malformed("the URL has no host")
    authority = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        authority += f":{port}"
    pairs: list[tuple[str, str]] = []
    if split.query:
        for item in split.query.split("&"):
            name, equals, value = item.partition("=")
            if not name:
                raise _malformed("the URL's query has an empty parameter")
            pairs.append((_normalised(name), _normalised(value) if equals else ""))
    return scheme, authority, _normalised(split.path) or "/", pairs


def _signed_text(scheme: str, authority: str, path: str, pairs: list[tuple[str, str]]) -> bytes:
    query = "&".join(f"{name}={value}" for name, value in sorted(pairs) if name != _SIGNATURE)
    return "\n".join((_DOMAIN, scheme, authority, path, query)).encode("ascii")


def _mac(key: bytes, text: bytes) -> hmac.HMAC:
    mac = hmac.HMAC(key, hashes.SHA256())
    mac.update(text)
    return mac


def _key(key: object, what: str = "key") -> bytes:
    value = buffer_bytes(key, what)
    if len(value) < MIN_KEY_BYTES:
        raise _config(f"the URL signing {what} must be at least {MIN_KEY_BYTES} secret bytes")
    return value


def _now(now: float | None) -> float:
    if now is None:
        return time.time()
    if isinstance(now, bool) or not isinstance(now, (int, float)):
        raise TypeError(f"now must be a number of seconds, not {type(now).__name__}")
    if not 0 <= now <= _LATEST:  # NaN fails too
        raise _config(f"now must be from 0 to {_LATEST} seconds", "URL_TIME_INVALID")
    return float(now)


def _epoch_seconds(expires_at: datetime | int) -> int:
    if isinstance(expires_at, datetime):
        if expires_at.tzinfo is None or expires_at.utcoffset() is None:
            raise TypeError("expires_at must be a timezone-aware datetime")
        return math.floor(expires_at.timestamp())
    if isinstance(expires_at, bool) or not isinstance(expires_at, int):
        raise TypeError(f"expires_at must be a datetime or int, not {type(expires_at).__name__}")
    return expires_at


def sign_url(
    url: str,
    *,
    key: BytesLike,
    expires_at: datetime | int,
    key_id: str | None = None,
    now: float | None = None,
    max_lifetime_seconds: int = 3600,
) -> str:
    """``url`` with ``expires``, ``kid`` (when ``key_id`` is given) and ``signature``
    appended to its query. The rest of the URL is kept exactly as given.

    Args:
        url: an absolute ``http`` or ``https`` URL, ASCII, percent-encoded, without user
            information or fragment, and without parameters named ``expires``, ``kid`` or
            ``signature``.
        key: the HMAC-SHA256 key, at least 32 secret bytes.
        expires_at: when the URL stops being valid: an aware ``datetime`` (whole seconds: the
            fraction is dropped) or Unix seconds.
        key_id: the key's id (1 to 64 of ``A-Z a-z 0-9 . _ -``), for rotation: a verifier with
            several keys picks the one it names.
        now: the time in seconds since the epoch (``time.time()`` when None).
        max_lifetime_seconds: ``expires_at`` may be at most this far after ``now`` (an hour
            by default, up to :data:`MAX_LIFETIME_SECONDS`).

    Raises:
        TypeError: a wrong type (a naive ``datetime`` included).
        SignedUrlError: ``URL_MALFORMED`` (400) for a URL that cannot be signed;
            ``URL_KEY_INVALID`` (500) for a short key or a bad key id; ``URL_EXPIRY_INVALID``
            (500) for an expiry not after ``now`` or beyond the lifetime; ``URL_TIME_INVALID``
            (500) for a ``now`` out of range.
    """
    scheme, authority, path, pairs = _parts(url)
    secret = _key(key)
    if key_id is not None and not (isinstance(key_id, str) and _KEY_ID_TEXT.fullmatch(key_id)):
        raise _config("key_id must be 1 to 64 characters of A-Z a-z 0-9 . _ -")
    if isinstance(max_lifetime_seconds, bool) or not isinstance(max_lifetime_seconds, int):
        raise TypeError("max_lifetime_seconds must be an int")
    if not 0 < max_lifetime_seconds <= MAX_LIFETIME_SECONDS:
        raise _config(f"max_lifetime_seconds must be from 1 to {MAX_LIFETIME_SECONDS}")
    moment = _now(now)
    expires = _epoch_seconds(expires_at)
    if not moment < expires <= moment + max_lifetime_seconds:
        raise _config(
            f"expires_at must be after now and at most {max_lifetime_seconds} seconds later",
            "URL_EXPIRY_INVALID",
        )
    taken = sorted({name for name, _ in pairs} & set(_OURS))
    if taken:
        raise _malformed(f"the URL already has the parameter {', '.join(taken)}")
    added = [(_EXPIRES, str(expires))] + ([(_KEY_ID, key_id)] if key_id is not None else [])
    digest = _mac(secret, _signed_text(scheme, authority, path, pairs + added)).finalize()
    added.append((_SIGNATURE, base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")))
    separator = "" if url.endswith("?") else "&" if "?" in url else "?"
    return url + separator + "&".join(f"{name}={value}" for name, value in added)


def _single(pairs: list[tuple[str, str]], name: str) -> str | None:
    values = [value for key, value in pairs if key == name]
    if len(values) > 1:
        raise _malformed(f"the URL repeats the parameter {name}")
    return values[0] if values else None


def verify_signed_url(
    url: str, *, key: BytesLike | Mapping[str, BytesLike], now: float | None = None
) -> VerifiedUrl:
    """Check a URL made by :func:`sign_url`: the MAC over its canonical form, then its expiry.

    Args:
        url: the signed URL, as received.
        key: the key, or a mapping of key ids to keys (the URL's ``kid`` picks one; a URL
            without ``kid`` cannot be verified against a mapping).
        now: the time in seconds since the epoch (``time.time()`` when None).

    Returns:
        The URL's expiry and key id.

    Raises:
        TypeError: a wrong type.
        SignedUrlError: ``URL_MALFORMED`` (400): not a URL this module signs, or a repeated or
            malformed ``expires``, ``kid`` or ``signature``; ``URL_SIGNATURE_MISSING`` (401);
            ``URL_KEY_UNKNOWN`` (401): its ``kid`` names no key of the mapping, or it has none;
            ``URL_SIGNATURE_INVALID`` (401): the signature does not match (a changed URL, another
            key); ``URL_EXPIRED`` (401): ``now`` is at or past its ``expires``;
            ``URL_KEY_INVALID`` or ``URL_TIME_INVALID`` (500) for the verifier's own inputs.
    """
    scheme, authority, path, pairs = _parts(url)
    moment = _now(now)
    signature_text = _single(pairs, _SIGNATURE)
    if signature_text is None:
        raise SignedUrlError("the URL is not signed", "URL_SIGNATURE_MISSING", 401)
    expires_text, key_id = _single(pairs, _EXPIRES), _single(pairs, _KEY_ID)
    if (
        expires_text is None
        or not _EXPIRES_TEXT.fullmatch(expires_text)
        or int(expires_text) > _LATEST
    ):
        raise _malformed("the URL's expires must be Unix seconds")
    if key_id is not None and not _KEY_ID_TEXT.fullmatch(key_id):
        raise _malformed("the URL's kid is malformed")
    if not _SIGNATURE_TEXT.fullmatch(signature_text):
        raise _malformed("the URL's signature must be 43 base64url characters")
    try:
        signature = base64.urlsafe_b64decode(signature_text + "=")
    except binascii.Error:  # unreachable after the pattern; kept as a typed refusal
        raise _malformed("the URL's signature is not base64url") from None
    if base64.urlsafe_b64encode(signature).decode("ascii").rstrip("=") != signature_text:
        raise _malformed("the URL's signature is not canonical base64url")
    if isinstance(key, Mapping):
        if key_id is None or key_id not in key:
            raise SignedUrlError("the URL names no known key", "URL_KEY_UNKNOWN", 401)
        secret = _key(key[key_id], f"key {key_id}")
    else:
        secret = _key(key)
    try:
        _mac(secret, _signed_text(scheme, authority, path, pairs)).verify(signature)
    except InvalidSignature:
        raise SignedUrlError(
            "the URL's signature does not match", "URL_SIGNATURE_INVALID", 401
        ) from None
    expires = int(expires_text)
    if moment >= expires:
        raise SignedUrlError("the URL has expired", "URL_EXPIRED", 401)
    return VerifiedUrl(datetime.fromtimestamp(expires, tz=timezone.utc), key_id)
