"""OIDC benchmarks (issue 6): ``verify_id_token`` against a plain PyJWT verifier with the same
checks, both with their keys already loaded (a cached JWKS).

The peer is what a careful Python server writes with PyJWT 2.15 alone: read the unverified
header for ``kid``, take the pre-built ``PyJWKSet`` key, ``jwt.decode`` with the algorithm
allow-list, ``aud``, ``iss`` and required claims, then the rules PyJWT has no option for: ``iat``
at most 60 s old and 5 s ahead, and the nonce (SHA-256 of the clientPublicKey). Like the other
benchmark files, every benchmark also checks what it timed, and ``benches/report.py`` pairs rows
by (group, impl).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import embedded_wallet_crypto as ewc
import jwt
import pytest
from embedded_wallet_crypto.vectors.generate._jwt_mint import (
    es256_jwk,
    rsa_jwk,
    sign_es256,
    sign_rs256,
)

pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

ISSUER = "https://accounts.google.com"
ISSUERS = list(ewc.oidc.DEFAULT_ISSUERS)
AUDIENCE = "platform-client-id.apps.googleusercontent.com"
CLIENT_PUBLIC_KEY = ewc.hpke.derive_key_pair(
    b"oidc bench client key".ljust(32, b".")
).public_key_hex()
# A Google-like key set: two RSA keys (as Google publishes) plus the EC key under test.
JWKS: dict[str, Any] = {
    "keys": [
        rsa_jwk("bench rsa 1", "rsa-1"),
        es256_jwk("bench es256", "es-1"),
        rsa_jwk("bench rsa 2", "rsa-2"),
    ]
}


def _claims() -> dict[str, Any]:
    now = int(time.time())  # the benchmarks run for seconds: iat stays fresh for both sides
    return {
        "iss": ISSUER,
        "azp": AUDIENCE,
        "aud": AUDIENCE,
        "sub": "110169484474386276334",
        "email": "jane@example.com",
        "email_verified": True,
        "nonce": hashlib.sha256(CLIENT_PUBLIC_KEY.encode()).hexdigest(),
        "name": "Jane Doe",
        "picture": "https://lh3.googleusercontent.com/a/ACg8ocJ-example=s96-c",
        "iat": now,
        "exp": now + 3600,
    }


def es256_token() -> str:
    return sign_es256("bench es256", {"alg": "ES256", "kid": "es-1", "typ": "JWT"}, _claims())


def rs256_token() -> str:
    return sign_rs256("bench rsa 2", {"alg": "RS256", "kid": "rsa-2", "typ": "JWT"}, _claims())


# Tokens are minted inside each test, never at collection: a slow run must not age them past the
# 60-second iat window before the test that uses them starts.
TOKENS = [("oidc-verify-es256", es256_token), ("oidc-verify-rs256", rs256_token)]
PROVIDER = ewc.oidc.JwksProvider.from_jwks(JWKS)
PYJWT_KEYS = jwt.PyJWKSet.from_dict(JWKS)


def ours(token: str) -> str:
    identity = ewc.oidc.verify_id_token(
        token, jwks=PROVIDER, audience=AUDIENCE, client_public_key=CLIENT_PUBLIC_KEY
    )
    return identity.subject


def pyjwt_verify(token: str) -> str:
    header = jwt.get_unverified_header(token)
    key = PYJWT_KEYS[header["kid"]]
    claims = jwt.decode(
        token,
        key,
        algorithms=["RS256", "ES256"],
        audience=AUDIENCE,
        issuer=ISSUERS,
        options={"require": ["exp", "iat", "iss", "aud", "sub"], "verify_iat": False},
    )
    now = time.time()
    iat = claims["iat"]
    if not isinstance(iat, (int, float)) or now - iat > 60 or iat - now > 5:
        raise jwt.InvalidTokenError("iat is not fresh")
    nonce = hashlib.sha256(CLIENT_PUBLIC_KEY.encode()).hexdigest()
    if nonce not in (claims.get("nonce"), claims.get("tknonce")):
        raise jwt.InvalidTokenError("nonce mismatch")
    subject: str = claims["sub"]
    return subject


def _run(benchmark: Any, group: str, impl: str, fn: Callable[[], str]) -> str:
    benchmark.group = group
    benchmark.extra_info["impl"] = impl
    result: str = benchmark(fn)
    return result


def _tampered(token: str) -> str:
    head, body, signature = token.split(".")
    other = jwt.utils.base64url_encode(b'{"sub":"attacker"}').decode()
    return f"{head}.{other}{body[len(other) :]}.{signature}"


@pytest.mark.parametrize(("group", "mint"), TOKENS)
def test_verify_id_token_ours(benchmark: Any, group: str, mint: Callable[[], str]) -> None:
    token = mint()
    assert _run(benchmark, group, "ours", lambda: ours(token)) == "110169484474386276334"
    with pytest.raises(ewc.OidcError):
        ours(_tampered(token))


@pytest.mark.parametrize(("group", "mint"), TOKENS)
def test_verify_id_token_pyjwt(benchmark: Any, group: str, mint: Callable[[], str]) -> None:
    token = mint()
    assert _run(benchmark, group, "pyjwt", lambda: pyjwt_verify(token)) == "110169484474386276334"
    with pytest.raises(jwt.PyJWTError):
        pyjwt_verify(_tampered(token))
