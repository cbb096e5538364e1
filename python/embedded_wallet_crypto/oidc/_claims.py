"""The claim rules of an ID token (formats.md section 7, interface rule 6) and the nonce."""

from __future__ import annotations

import functools
import hashlib
import hmac
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import InvalidKey
from ..keys import parse_public_key
from ._common import (
    AUDIENCE_MISMATCH,
    CLAIM_INVALID,
    CLAIM_MISSING,
    EXPIRED,
    ISSUED_IN_FUTURE,
    ISSUER_NOT_ALLOWED,
    NONCE_MISMATCH,
    NONCE_MISSING,
    NOT_YET_VALID,
    TOO_OLD,
    config_error,
    fail,
    is_number,
)
from ._jws import check_algorithms

__all__ = [
    "DEFAULT_ISSUERS",
    "SANDBOX_TOKEN",
    "OidcIdentity",
    "Rules",
    "algorithm_set",
    "check_audience",
    "check_issuer",
    "check_nonce",
    "check_times",
    "identity",
    "nonce_for",
    "rules",
    "strings",
]

DEFAULT_ISSUERS: tuple[str, ...] = (
    "https://accounts.google.com",
    "accounts.google.com",
    "https://appleid.apple.com",
)
#: The interface's sandbox ``oidcToken`` (rule 9): accepted on verify, in sandbox only.
SANDBOX_TOKEN = "sandbox-valid-oidc-token"  # noqa: S105 (a public test value)


@dataclass(frozen=True)
class OidcIdentity:
    """Who a verified ID token names. ``email`` is the credential's nickname (may be None).

    ``sandbox`` is True only for what a sandbox allowed without a verified signature: the
    ``sandbox-valid-oidc-token`` stub (issuer and subject ``"sandbox"``, no claims) and the
    sandbox create path (the token's claims, unverified).
    """

    issuer: str
    subject: str
    audience: str
    email: str | None
    claims: dict[str, Any] = field(repr=False)
    sandbox: bool = False


def nonce_for(client_public_key: str) -> str:
    """The ``nonce`` (or ``tknonce``) that binds an ID token to a session key: the lowercase hex
    SHA-256 of the clientPublicKey hex string exactly as sent (formats.md section 7).

    Raises:
        InvalidKey: the key is not a hex string, or not a valid P-256 point (formats.md
            section 2: checked before any other work).
    """
    if not isinstance(client_public_key, str):
        raise InvalidKey(
            "clientPublicKey must be the hex string as sent: the nonce hashes its characters",
            "INVALID_KEY_ENCODING",
        )
    parse_public_key(client_public_key)
    return hashlib.sha256(client_public_key.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Rules:
    audiences: tuple[str, ...]
    issuers: frozenset[str]
    algorithms: frozenset[str]
    now: float
    max_age: float
    skew: float


@functools.lru_cache(maxsize=64)
def algorithm_set(algorithms: tuple[str, ...]) -> frozenset[str]:
    return check_algorithms(algorithms)


def strings(value: str | Iterable[str], what: str) -> tuple[str, ...]:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be a non-empty string or a sequence of them")
    items = (value,) if isinstance(value, str) else tuple(value)
    if not items or not all(isinstance(item, str) and item for item in items):
        raise TypeError(f"{what} must be a non-empty string or a sequence of them")
    return items


def _seconds(value: float, what: str) -> float:
    if not is_number(value) or value < 0:
        raise config_error(f"{what} must be a finite number >= 0")
    try:
        return float(value)
    except OverflowError:  # an int beyond any float
        raise config_error(f"{what} must be a finite number >= 0") from None


def rules(
    audience: str | Sequence[str],
    issuers: Iterable[str],
    now: datetime | None,
    max_age_seconds: float,
    clock_skew_seconds: float,
    algorithms: Iterable[str],
) -> Rules:
    if now is None:
        instant = time.time()
    elif isinstance(now, datetime) and now.utcoffset() is not None:
        instant = now.timestamp()
    else:
        raise TypeError("now must be a timezone-aware datetime (or None for the current time)")
    return Rules(
        audiences=strings(audience, "audience"),
        issuers=frozenset(strings(issuers, "issuers")),
        algorithms=algorithm_set(strings(algorithms, "algorithms")),
        now=instant,
        max_age=_seconds(max_age_seconds, "max_age_seconds"),
        skew=_seconds(clock_skew_seconds, "clock_skew_seconds"),
    )


def check_issuer(claims: Mapping[str, Any], issuers: frozenset[str]) -> str:
    issuer = claims.get("iss")
    if issuer is None:
        fail(CLAIM_MISSING, "the token has no iss claim")
    if not isinstance(issuer, str):
        fail(CLAIM_INVALID, "the token's iss claim is not a string")
    if issuer not in issuers:
        fail(ISSUER_NOT_ALLOWED, f"the issuer {issuer[:100]!r} is not in the allow-list")
    return issuer


def _number(claims: Mapping[str, Any], name: str, required: bool = True) -> float | None:
    value = claims.get(name)
    if value is None:
        if required:
            fail(CLAIM_MISSING, f"the token has no {name} claim")
        return None
    if not is_number(value):
        fail(CLAIM_INVALID, f"the token's {name} claim is not a number")
    try:
        return float(value)
    except OverflowError:  # an int beyond any float (10**400): no NumericDate
        fail(CLAIM_INVALID, f"the token's {name} claim is out of range")


def check_audience(claims: Mapping[str, Any], audiences: tuple[str, ...]) -> str:
    aud = claims.get("aud")
    if aud is None:
        fail(CLAIM_MISSING, "the token has no aud claim")
    values = [aud] if isinstance(aud, str) else aud
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        fail(CLAIM_INVALID, "the token's aud claim is not a string or a list of strings")
    matched: list[str] = [value for value in values if value in audiences]
    if matched:
        return matched[0]
    fail(AUDIENCE_MISMATCH, "the token is not meant for this audience (aud)")


def check_times(claims: Mapping[str, Any], rules: Rules) -> None:
    expires = _number(claims, "exp")
    assert expires is not None
    if expires <= rules.now:
        fail(EXPIRED, f"the token expired {rules.now - expires:.0f} s ago (exp)")
    issued = _number(claims, "iat")
    assert issued is not None
    if rules.now - issued > rules.max_age:
        fail(
            TOO_OLD,
            f"the token was issued {rules.now - issued:.0f} s ago; at most "
            f"{rules.max_age:g} s is allowed (iat)",
        )
    if issued - rules.now > rules.skew:
        fail(
            ISSUED_IN_FUTURE,
            f"the token is issued {issued - rules.now:.0f} s in the future; "
            f"at most {rules.skew:g} s of clock skew is allowed (iat)",
        )
    not_before = _number(claims, "nbf", required=False)
    if not_before is not None and not_before - rules.now > rules.skew:
        fail(NOT_YET_VALID, "the token is not valid yet (nbf)")


def check_nonce(claims: Mapping[str, Any], expected: str) -> None:
    """``nonce`` or ``tknonce`` must be the expected value; one match is enough."""
    present = [claims[name] for name in ("nonce", "tknonce") if claims.get(name) is not None]
    if not present:
        fail(NONCE_MISSING, "the token has no nonce or tknonce binding it to clientPublicKey")
    expected_bytes = expected.encode("ascii")
    for value in present:
        # A lone surrogate (a "\ud800" escape) is no UTF-8 and so never the hex nonce.
        if isinstance(value, str) and hmac.compare_digest(
            value.encode("utf-8", "surrogatepass"), expected_bytes
        ):
            return
    fail(NONCE_MISMATCH, "the token's nonce is not SHA-256 of this clientPublicKey")


def identity(claims: dict[str, Any], issuer: str, audience: str, sandbox: bool) -> OidcIdentity:
    subject, email = claims.get("sub"), claims.get("email")
    if not sandbox and subject is None:
        fail(CLAIM_MISSING, "the token has no sub claim")
    if not sandbox and not (isinstance(subject, str) and subject):
        fail(CLAIM_INVALID, "the token's sub claim is not a non-empty string")
    if email is not None and not isinstance(email, str):
        fail(CLAIM_INVALID, "the token's email claim is not a string")
    return OidcIdentity(
        issuer=issuer,
        subject=subject if isinstance(subject, str) else "",
        audience=audience,
        email=email,
        claims=claims,
        sandbox=sandbox,
    )
