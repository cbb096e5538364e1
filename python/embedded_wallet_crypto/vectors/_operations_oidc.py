"""The OIDC operations of the vector files (vectors/README.md), run through the public Python
API: ``oidc_nonce``, ``oidc_verify`` and ``oidc_token_shape``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import embedded_wallet_crypto as ewc

from ._inputs import Inputs, MalformedCase, input_bool, input_text

# vectors/README.md, "Error codes": every OIDC code comes with OidcError.
OIDC_EXCEPTIONS: dict[str, type[ewc.WalletCryptoError]] = {
    code: ewc.OidcError
    for code in (
        "OIDC_TOKEN_MALFORMED",
        "OIDC_ALGORITHM_NOT_ALLOWED",
        "OIDC_KEY_NOT_FOUND",
        "OIDC_SIGNATURE_INVALID",
        "OIDC_ISSUER_NOT_ALLOWED",
        "OIDC_AUDIENCE_MISMATCH",
        "OIDC_TOKEN_EXPIRED",
        "OIDC_TOKEN_TOO_OLD",
        "OIDC_ISSUED_IN_FUTURE",
        "OIDC_TOKEN_NOT_YET_VALID",
        "OIDC_CLAIM_MISSING",
        "OIDC_CLAIM_INVALID",
        "OIDC_NONCE_MISSING",
        "OIDC_NONCE_MISMATCH",
        "OIDC_JWKS_UNAVAILABLE",
        "OIDC_JWKS_INVALID",
    )
}


def _strings(inputs: Inputs, name: str) -> list[str]:
    value = inputs.get(name)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MalformedCase(f"input {name!r} must be an array of strings")
    return value


def _integer(inputs: Inputs, name: str) -> int:
    value = inputs.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedCase(f"input {name!r} must be an integer")
    return value


def _oidc_nonce(inputs: Inputs) -> dict[str, Any]:
    return {"nonce": ewc.oidc.nonce_for(input_text(inputs, "client_public_key"))}


def _oidc_verify(inputs: Inputs) -> dict[str, Any]:
    client_public_key = inputs.get("client_public_key")
    if client_public_key is not None and not isinstance(client_public_key, str):
        raise MalformedCase("input 'client_public_key' must be a string or null")
    jwks = inputs.get("jwks")
    if not isinstance(jwks, dict):
        raise MalformedCase("input 'jwks' must be a JWKS object")
    identity = ewc.oidc.verify_id_token(
        input_text(inputs, "token"),
        jwks=jwks,
        audience=_strings(inputs, "audience"),
        issuers=_strings(inputs, "issuers"),
        now=datetime.fromtimestamp(_integer(inputs, "now"), timezone.utc),
        max_age_seconds=_integer(inputs, "max_age_seconds"),
        clock_skew_seconds=_integer(inputs, "clock_skew_seconds"),
        client_public_key=client_public_key,
        sandbox=input_bool(inputs, "sandbox"),
    )
    return {
        "issuer": identity.issuer,
        "subject": identity.subject,
        "audience": identity.audience,
        "email": identity.email,
        "sandbox": identity.sandbox,
    }


def _oidc_token_shape(inputs: Inputs) -> dict[str, Any]:
    claims = ewc.oidc.check_token_shape(
        input_text(inputs, "token"), issuers=_strings(inputs, "issuers")
    )
    return {"iss": claims.get("iss"), "sub": claims.get("sub")}


OIDC_OPERATIONS: dict[str, Callable[[Inputs], dict[str, Any]]] = {
    "oidc_nonce": _oidc_nonce,
    "oidc_verify": _oidc_verify,
    "oidc_token_shape": _oidc_token_shape,
}
