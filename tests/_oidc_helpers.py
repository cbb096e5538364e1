"""Test ID tokens and key sets for the OIDC tests (minted without the library under test)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Any

import embedded_wallet_crypto as ewc
from embedded_wallet_crypto.vectors.generate._jwt_mint import (
    es256_jwk,
    rsa_jwk,
    segment,
    sign_es256,
    sign_rs256,
)

NOW_TS = 1_767_225_600  # 2026-01-01T00:00:00Z
NOW = datetime.fromtimestamp(NOW_TS, timezone.utc)
ISSUER = "https://accounts.google.com"
AUDIENCE = "platform-client-id.apps.googleusercontent.com"
ES_LABEL, ES_KID = "oidc issuer es256", "es256-key-1"
RS_LABEL, RS_KID = "oidc issuer rs256", "rs256-key-1"
OTHER_ES_LABEL = "oidc attacker es256"

CLIENT_KEY = ewc.hpke.derive_key_pair(b"oidc tests client key".ljust(32, b"."))
CLIENT_PUBLIC_KEY = CLIENT_KEY.public_key_hex()
OTHER_CLIENT_PUBLIC_KEY = ewc.hpke.derive_key_pair(
    b"oidc other client".ljust(32, b".")
).public_key_hex()
NONCE = hashlib.sha256(CLIENT_PUBLIC_KEY.encode()).hexdigest()

JWKS: dict[str, Any] = {"keys": [es256_jwk(ES_LABEL, ES_KID), rsa_jwk(RS_LABEL, RS_KID)]}


def claims(**changes: Any) -> dict[str, Any]:
    """Valid claims at NOW; a change of None removes that claim."""
    base: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "110169484474386276334",
        "email": "jane@example.com",
        "iat": NOW_TS - 10,
        "exp": NOW_TS + 3590,
        "nonce": NONCE,
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def es256(claim_set: dict[str, Any] | None = None, *, label: str = ES_LABEL, **header: Any) -> str:
    head = {"alg": "ES256", "kid": ES_KID, "typ": "JWT", **header}
    return sign_es256(
        label, {k: v for k, v in head.items() if v is not None}, claim_set or claims()
    )


def rs256(claim_set: dict[str, Any] | None = None, **header: Any) -> str:
    head = {"alg": "RS256", "kid": RS_KID, "typ": "JWT", **header}
    return sign_rs256(
        RS_LABEL, {k: v for k, v in head.items() if v is not None}, claim_set or claims()
    )


def unsigned(header: dict[str, Any], claim_set: dict[str, Any], signature: str = "c2ln") -> str:
    """A token with any header and an arbitrary signature segment."""
    return f"{segment(header)}.{segment(claim_set)}.{signature}"


def verify(token: object, **options: Any) -> ewc.oidc.OidcIdentity:
    arguments: dict[str, Any] = {"jwks": JWKS, "audience": AUDIENCE, "now": NOW}
    arguments.update(options)
    return ewc.oidc.verify_id_token(token, **arguments)  # type: ignore[arg-type]


def code_of(token: object, **options: Any) -> str:
    """The OidcError code verifying ``token`` raises (fails the test if it verifies)."""
    try:
        verify(token, **options)
    except ewc.OidcError as error:
        assert error.status == 401 and error.http_reason == "Invalid OIDC token"
        return error.code
    raise AssertionError("the token verified")
