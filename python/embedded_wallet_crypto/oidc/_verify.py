"""ID token verification for the OAUTH credential: the verify and create calls of the
interface, and where the sandbox policy (``ewc.policy``) enters them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from ..policy import Environment, resolve
from ._claims import (
    DEFAULT_ISSUERS,
    SANDBOX_TOKEN,
    OidcIdentity,
    Rules,
    algorithm_set,
    check_audience,
    check_issuer,
    check_nonce,
    check_times,
    identity,
    nonce_for,
    rules,
    strings,
)
from ._common import (
    ALGORITHM_NOT_ALLOWED,
    KEY_NOT_FOUND,
    MALFORMED,
    b64url_decode,
    fail,
    json_object,
    parse_token,
    token_text,
)
from ._jws import DEFAULT_ALGORITHMS, verify_jws
from ._keyset import StaticKeys

__all__ = [
    "PendingToken",
    "check_token_shape",
    "finish_id_token",
    "prepare_id_token",
    "verify_create_token",
    "verify_id_token",
    "verify_jws_signature",
]


def check_token_shape(token: str, *, issuers: Iterable[str] = DEFAULT_ISSUERS) -> dict[str, Any]:
    """Structure and issuer only, for the sandbox create path (interface rule 9): three
    base64url segments, a JSON header naming an ``alg``, JSON claims and an ``iss`` in
    ``issuers``. The signature is NOT checked: the claims returned prove nothing. For the
    create path use :func:`verify_create_token`, which does this only in sandbox.

    Raises:
        OidcError: ``OIDC_TOKEN_MALFORMED``, ``OIDC_CLAIM_MISSING``, ``OIDC_CLAIM_INVALID`` or
            ``OIDC_ISSUER_NOT_ALLOWED``.
    """
    _, header, claims = parse_token(token)
    if not isinstance(header.get("alg"), str):
        fail(MALFORMED, "the token's header names no algorithm")
    check_issuer(claims, frozenset(strings(issuers, "issuers")))
    return claims


def _algorithm(header: Mapping[str, Any], allowed: frozenset[str]) -> tuple[str, str | None]:
    alg, kid = header.get("alg"), header.get("kid")
    if not isinstance(alg, str):
        fail(ALGORITHM_NOT_ALLOWED, "the token's header names no algorithm")
    if alg.lower() == "none" or alg.upper().startswith("HS"):
        fail(ALGORITHM_NOT_ALLOWED, f"{alg[:20]}: none and HMAC algorithms are always refused")
    if alg not in allowed:
        fail(ALGORITHM_NOT_ALLOWED, f"the algorithm {alg[:20]!r} is not allowed")
    if kid is not None and not isinstance(kid, str):
        fail(MALFORMED, "the token's kid is not a string")
    return alg, kid


def _key_source(jwks: object, issuer: str | None) -> Any:
    """``jwks``: a key source (``find_keys``), a JWKS document, or a mapping from issuer to
    either of those (then only that issuer's keys can verify its tokens)."""
    if callable(getattr(jwks, "find_keys", None)):
        return jwks
    if isinstance(jwks, Mapping):
        if "keys" in jwks:
            return StaticKeys(jwks)
        if issuer is None:
            raise TypeError("keys per issuer need a token with an issuer")
        per_issuer = jwks.get(issuer)
        if per_issuer is None:
            fail(KEY_NOT_FOUND, f"no key set is configured for the issuer {issuer[:100]!r}")
        return (
            per_issuer
            if callable(getattr(per_issuer, "find_keys", None))
            else StaticKeys(per_issuer)
        )
    raise TypeError("jwks must be a JWKS dict, a JwksProvider or a mapping issuer -> those")


def _key_request(
    text: str, header: Mapping[str, Any], allowed: frozenset[str]
) -> tuple[str, str | None]:
    """The algorithm (first, so that alg none says so) and the kid to look the key up by."""
    alg, kid = _algorithm(header, allowed)
    if text.endswith("."):
        fail(MALFORMED, "the token has an empty signature segment")
    return alg, kid


def _verified_payload(text: str, alg: str, kid: str | None, keys: Sequence[Any]) -> bytes:
    """PyJWT's JWS verification with the keys found for ``kid`` and ``alg``."""
    if not keys:
        fail(KEY_NOT_FOUND, f"the issuer's key set has no {alg} key with kid {str(kid)[:64]!r}")
    return verify_jws(text, alg, keys)


def _signed_payload(
    text: str, header: Mapping[str, Any], source: Any, allowed: frozenset[str]
) -> bytes:
    """The signature step: the algorithm, the key by kid and alg, then PyJWT's JWS
    verification. Returns the payload bytes."""
    alg, kid = _key_request(text, header, allowed)
    return _verified_payload(text, alg, kid, source.find_keys(kid, alg))


def verify_jws_signature(
    token: str, *, jwks: Any, algorithms: Iterable[str] = DEFAULT_ALGORITHMS
) -> bytes:
    """Only the signature step of :func:`verify_id_token`, for a JWS whose payload need not
    be claims (the upstream JWS vectors); returns the verified payload. No claim is checked:
    never accept a token on this alone."""
    text = token_text(token)
    parts = text.split(".")
    if len(parts) != 3:
        fail(MALFORMED, f"the token has {len(parts)} segments, not header.payload.signature")
    header = json_object(b64url_decode(parts[0], "header"), "header")
    b64url_decode(parts[1], "payload")
    b64url_decode(parts[2], "signature")
    allowed = algorithm_set(strings(algorithms, "algorithms"))
    return _signed_payload(text, header, _key_source(jwks, None), allowed)


def verify_id_token(
    token: str,
    *,
    jwks: Mapping[str, Any] | Any,
    audience: str | Sequence[str],
    issuers: Iterable[str] = DEFAULT_ISSUERS,
    now: datetime | None = None,
    max_age_seconds: float = 60,
    clock_skew_seconds: float = 5,
    client_public_key: str | None = None,
    sandbox: bool | Environment | None = None,
    algorithms: Iterable[str] = DEFAULT_ALGORITHMS,
) -> OidcIdentity:
    """Verify an OIDC ID token for the OAUTH credential (formats.md section 7).

    Args:
        token: the compact JWS (``oidcToken``).
        jwks: the issuer's keys: a :class:`JwksProvider` (fetched and cached), a JWKS dict,
            or a mapping from issuer to either (each issuer verified only with its own keys).
        audience: the client id(s) the token must be meant for (``aud``).
        issuers: the ``iss`` allow-list.
        now: a timezone-aware ``datetime``; None for the current time.
        max_age_seconds: the oldest ``iat`` accepted (interface: 60 s).
        clock_skew_seconds: how far in the future ``iat`` (and ``nbf``) may be.
        client_public_key: the request's clientPublicKey (hex as sent); when given, ``nonce``
            or ``tknonce`` must be :func:`nonce_for` of it.
        sandbox: also accept ``sandbox-valid-oidc-token`` (see ``ewc.policy``; None means the
            process default, PRODUCTION unless set).
        algorithms: the allowed ``alg`` values; none and HMAC are always refused.

    Returns:
        The :class:`OidcIdentity` (``email`` is the credential nickname).

    Raises:
        OidcError: status 401, ``http_reason`` "Invalid OIDC token", and a ``code``:
            ``OIDC_TOKEN_MALFORMED``, ``OIDC_ALGORITHM_NOT_ALLOWED``, ``OIDC_KEY_NOT_FOUND``,
            ``OIDC_SIGNATURE_INVALID``, ``OIDC_ISSUER_NOT_ALLOWED``, ``OIDC_AUDIENCE_MISMATCH``,
            ``OIDC_TOKEN_EXPIRED``, ``OIDC_TOKEN_TOO_OLD``, ``OIDC_ISSUED_IN_FUTURE``,
            ``OIDC_TOKEN_NOT_YET_VALID``, ``OIDC_CLAIM_MISSING``, ``OIDC_CLAIM_INVALID``,
            ``OIDC_NONCE_MISSING``, ``OIDC_NONCE_MISMATCH``, ``OIDC_JWKS_UNAVAILABLE``,
            ``OIDC_JWKS_INVALID``.
        InvalidKey: ``client_public_key`` is malformed (checked first).
        TypeError, ValueError: the configuration itself is wrong (``sandbox="false"``, a naive
            ``now``, an HMAC algorithm...).
    """
    pending = prepare_id_token(
        token,
        jwks=jwks,
        audience=audience,
        issuers=issuers,
        now=now,
        max_age_seconds=max_age_seconds,
        clock_skew_seconds=clock_skew_seconds,
        client_public_key=client_public_key,
        sandbox=sandbox,
        algorithms=algorithms,
    )
    if isinstance(pending, OidcIdentity):
        return pending
    return finish_id_token(pending, pending.source.find_keys(pending.kid, pending.alg))


class PendingToken(NamedTuple):
    """A token that passed every check before its key lookup (the step that may do I/O)."""

    text: str
    claims: dict[str, Any]
    issuer: str
    rule: Rules
    expected_nonce: str | None
    source: Any
    alg: str
    kid: str | None


def prepare_id_token(
    token: str,
    *,
    jwks: Mapping[str, Any] | Any,
    audience: str | Sequence[str],
    issuers: Iterable[str],
    now: datetime | None,
    max_age_seconds: float,
    clock_skew_seconds: float,
    client_public_key: str | None,
    sandbox: bool | Environment | None,
    algorithms: Iterable[str],
) -> OidcIdentity | PendingToken:
    """The checks of :func:`verify_id_token` up to the key lookup, shared by the sync and async
    verifiers: the sandbox stub's identity, or what :func:`finish_id_token` needs."""
    environment = resolve(sandbox)
    expected_nonce = nonce_for(client_public_key) if client_public_key is not None else None
    rule = rules(audience, issuers, now, max_age_seconds, clock_skew_seconds, algorithms)
    if token == SANDBOX_TOKEN and environment is Environment.SANDBOX:
        return OidcIdentity("sandbox", "sandbox", rule.audiences[0], None, {}, sandbox=True)
    text, header, claims = parse_token(token, require_signature=False)
    issuer = check_issuer(claims, rule.issuers)
    source = _key_source(jwks, issuer)
    alg, kid = _key_request(text, header, rule.algorithms)
    return PendingToken(text, claims, issuer, rule, expected_nonce, source, alg, kid)


def finish_id_token(pending: PendingToken, keys: Sequence[Any]) -> OidcIdentity:
    """The rest of :func:`verify_id_token` once the keys are found: signature, then claims."""
    _verified_payload(pending.text, pending.alg, pending.kid, keys)
    claims, rule = pending.claims, pending.rule
    matched_audience = check_audience(claims, rule.audiences)
    check_times(claims, rule)
    verified = identity(claims, pending.issuer, matched_audience, sandbox=False)
    if pending.expected_nonce is not None:
        check_nonce(claims, pending.expected_nonce)
    return verified


def verify_create_token(
    token: str,
    *,
    jwks: Mapping[str, Any] | Any,
    audience: str | Sequence[str],
    issuers: Iterable[str] = DEFAULT_ISSUERS,
    now: datetime | None = None,
    max_age_seconds: float = 60,
    clock_skew_seconds: float = 5,
    sandbox: bool | Environment | None = None,
    algorithms: Iterable[str] = DEFAULT_ALGORITHMS,
) -> OidcIdentity:
    """The ``oidcToken`` of ``POST /auth/credentials`` (OAUTH): who the new credential is.

    In production this is :func:`verify_id_token` without a nonce (the create request carries
    no clientPublicKey). In sandbox (interface rule 9) the signature is skipped: the token must
    only pass :func:`check_token_shape`, and the identity (``sandbox=True``) comes from its
    unverified claims. A token whose signature does not verify therefore fails in production
    exactly as any other bad signature does (``OIDC_SIGNATURE_INVALID``).

    Raises:
        OidcError: as :func:`verify_id_token` (production) or :func:`check_token_shape`.
    """
    rule = rules(audience, issuers, now, max_age_seconds, clock_skew_seconds, algorithms)
    if resolve(sandbox) is not Environment.SANDBOX:
        return verify_id_token(
            token,
            jwks=jwks,
            audience=rule.audiences,
            issuers=rule.issuers,
            now=now,
            max_age_seconds=rule.max_age,
            clock_skew_seconds=rule.skew,
            sandbox=Environment.PRODUCTION,
            algorithms=tuple(sorted(rule.algorithms)),
        )
    claims = check_token_shape(token, issuers=rule.issuers)
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    named = next((a for a in audiences if isinstance(a, str)), "")
    return identity(claims, claims["iss"], named, sandbox=True)
