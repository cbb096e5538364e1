"""The error contract over ``ewc.oidc``: token verification, the token shape check, the nonce,
and the constructors of ``JwksProvider`` and ``AsyncJwksProvider``, and
``verify_id_token_async``. Only WalletCryptoError or TypeError escapes, an int is
never a buffer size (see ``tests/_contract.py``). ``urllib_get``, the default HTTP getter, is
left out: it raises ``OSError`` when no response came, which ``JwksProvider`` turns into
``OIDC_JWKS_UNAVAILABLE`` (its argument types are tested in ``test_error_contract.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

from _contract import Entry, contract_tests
from _oidc_helpers import AUDIENCE, CLIENT_PUBLIC_KEY, ISSUER, JWKS, NOW, claims, es256
from embedded_wallet_crypto import oidc

TOKEN = es256(claims())
CREATE_TOKEN = es256(claims(nonce=None))
VERIFY = {
    "token": TOKEN,
    "jwks": JWKS,
    "audience": AUDIENCE,
    "issuers": [ISSUER],
    "now": NOW,
    "max_age_seconds": 60,
    "clock_skew_seconds": 5,
    "client_public_key": CLIENT_PUBLIC_KEY,
    "sandbox": False,
    "algorithms": ("ES256", "RS256"),
}
CREATE = {k: v for k, v in VERIFY.items() if k != "client_public_key"} | {"token": CREATE_TOKEN}


async def _verify_async(**arguments: Any) -> object:
    return await oidc.verify_id_token_async(**arguments)


ENTRIES = [
    Entry("verify_id_token", oidc.verify_id_token, VERIFY, frozenset({"token"})),
    Entry("verify_create_token", oidc.verify_create_token, CREATE, frozenset({"token"})),
    Entry(
        "verify_id_token (claims)",
        lambda exp, iat, nbf, nonce, aud: oidc.verify_id_token(
            es256(claims(exp=exp, iat=iat, nbf=nbf, nonce=nonce, aud=aud)),
            jwks=JWKS,
            audience=AUDIENCE,
            issuers=[ISSUER],
            now=NOW,
            client_public_key=CLIENT_PUBLIC_KEY,
        ),
        {
            "exp": claims()["exp"],
            "iat": claims()["iat"],
            "nbf": claims()["iat"],
            "nonce": claims()["nonce"],
            "aud": AUDIENCE,
        },
    ),
    Entry(
        "check_token_shape",
        oidc.check_token_shape,
        {"token": TOKEN, "issuers": [ISSUER]},
        frozenset({"token"}),
    ),
    Entry("nonce_for", oidc.nonce_for, {"client_public_key": CLIENT_PUBLIC_KEY}),
    Entry(
        "JwksProvider",
        oidc.JwksProvider,
        {
            "jwks": JWKS,
            "timeout": 5.0,
            "min_refetch_interval": 30.0,
            "default_cache_seconds": 300.0,
            "max_cache_seconds": 86400.0,
            "stale_if_error_seconds": 60.0,
        },
    ),
    Entry(
        "AsyncJwksProvider",
        oidc.AsyncJwksProvider,
        {
            "jwks_uri": "https://idp.example/keys",
            "timeout": 5.0,
            "min_refetch_interval": 30.0,
            "default_cache_seconds": 300.0,
            "max_cache_seconds": 86400.0,
            "stale_if_error_seconds": 60.0,
        },
    ),
    Entry(
        "verify_id_token_async",
        lambda **arguments: asyncio.run(_verify_async(**arguments)),
        VERIFY,
        frozenset({"token"}),
    ),
    Entry(
        "JwksProvider (URLs)",
        lambda jwks_uri, issuer: oidc.JwksProvider(
            jwks_uri=jwks_uri, issuer=issuer, http_get=lambda url, timeout: None
        ),
        {"jwks_uri": "https://idp.example/keys", "issuer": None},
    ),
]


(
    test_valid_arguments_are_valid,
    test_every_argument_times_every_hostile_value,
    test_drawn_hostile_values,
) = contract_tests(ENTRIES)
