"""Token benchmarks: ``ewc.tokens`` verifiers against the Python a server would write today,
with the same checks, keys loaded once on both sides.

- ``session-jwt-verify``: ``verify_session_jwt`` against a PyJWT / ``cryptography`` composite:
  ``jwt.api_jwt.decode_complete`` without its signature check (the session JWT is not ES256),
  the header, the 64-byte ``r || s``, ``cryptography``'s verify over SHA-256(SHA-256(signing
  input)) (prehashed), the required string claims and ``exp`` in seconds.
- ``verification-token-verify``: ``verify_verification_token`` against ``jwt.decode_complete``
  (ES256, required claims) plus the checks PyJWT has no option for: ``typ``, string claims and
  ``exp`` as a millisecond string.

Every benchmark also checks what it timed.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import jwt
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature
from embedded_wallet_crypto import tokens

pytestmark = pytest.mark.benchmark(max_time=1.0, min_rounds=5)

SIGNER = ewc.KeyPair.from_private_bytes(hashlib.sha256(b"bench token signer").digest())
SIGNER_HEX = SIGNER.public_key_hex()
SIGNER_KEY = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), SIGNER.public_key_bytes())
SESSION_KEY = ewc.KeyPair.from_private_bytes(hashlib.sha256(b"bench session").digest())
EXPIRES = datetime.now(timezone.utc) + timedelta(hours=1)
SESSION_JWT = tokens.mint_session_jwt(
    SIGNER,
    public_key=SESSION_KEY.public_key_hex(compressed=True),
    user_id="6912b819-f4df-40f4-a192-20ee43090974",
    organization_id="c75ecb07-c84a-4dd5-932c-539dfafc6864",
    expires_at=EXPIRES,
)
VERIFICATION_TOKEN = tokens.mint_verification_token(
    SIGNER,
    token_id="eb39b199-3352-4289-b31f-57194c79609c",
    verification_type="OTP_TYPE_EMAIL",
    contact="user@example.com",
    organization_id="7ff189fb-df7d-452e-8540-57632e380b77",
    public_key=SESSION_KEY.public_key_hex(compressed=True),
    expires_at=EXPIRES,
)
SESSION_CLAIMS = ("public_key", "user_id", "organization_id", "session_type")
VERIFICATION_CLAIMS = ("id", "verification_type", "contact", "organization_id", "public_key")


def ours_session(token: str) -> str:
    return tokens.verify_session_jwt(token, notarizer_public_key=SIGNER_HEX).user_id


def peer_session(token: str) -> str:
    decoded = jwt.api_jwt.decode_complete(
        token, options={"verify_signature": False, "verify_exp": False}
    )
    header, claims, signature = decoded["header"], decoded["payload"], decoded["signature"]
    if header.get("alg") != "ES256" or header.get("typ") != "JWT" or len(header) != 2:
        raise jwt.InvalidTokenError("header")
    if len(signature) != 64:
        raise jwt.InvalidTokenError("signature length")
    signing_input = token.rsplit(".", 1)[0].encode()
    digest = hashlib.sha256(hashlib.sha256(signing_input).digest()).digest()
    der = encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    SIGNER_KEY.verify(der, digest, ec.ECDSA(Prehashed(hashes.SHA256())))
    for name in SESSION_CLAIMS:
        if not isinstance(claims.get(name), str) or not claims[name]:
            raise jwt.InvalidTokenError(name)
    exp = claims.get("exp")
    if type(exp) is not int or exp <= time.time():
        raise jwt.InvalidTokenError("exp")
    user_id: str = claims["user_id"]
    return user_id


def ours_verification(token: str) -> str:
    return tokens.verify_verification_token(token, signer_public_key=SIGNER_HEX).contact


def peer_verification(token: str) -> str:
    decoded = jwt.api_jwt.decode_complete(
        token,
        SIGNER_KEY,
        algorithms=["ES256"],
        options={"verify_exp": False, "require": [*VERIFICATION_CLAIMS, "exp"]},
    )
    header, claims = decoded["header"], decoded["payload"]
    if header.get("typ") != "JWT" or len(header) != 2:
        raise jwt.InvalidTokenError("header")
    for name in VERIFICATION_CLAIMS:
        if not isinstance(claims[name], str) or not claims[name]:
            raise jwt.InvalidTokenError(name)
    exp = claims["exp"]
    if not isinstance(exp, str) or not exp.isdigit() or int(exp) <= time.time() * 1000:
        raise jwt.InvalidTokenError("exp")
    contact: str = claims["contact"]
    return contact


def _run(benchmark: Any, group: str, impl: str, fn: Callable[[], str]) -> str:
    benchmark.group = group
    benchmark.extra_info["impl"] = impl
    result: str = benchmark(fn)
    return result


def _tampered(token: str) -> str:
    head, body, signature = token.split(".")
    return f"{head}.{body[:-2]}{'A' if body[-2] != 'A' else 'B'}{body[-1]}.{signature}"


def test_session_jwt_ours(benchmark: Any) -> None:
    user = _run(benchmark, "session-jwt-verify", "ours", lambda: ours_session(SESSION_JWT))
    assert user == "6912b819-f4df-40f4-a192-20ee43090974"
    with pytest.raises(ewc.TokenError):
        ours_session(_tampered(SESSION_JWT))


def test_session_jwt_peer(benchmark: Any) -> None:
    user = _run(
        benchmark,
        "session-jwt-verify",
        "pyjwt+cryptography",
        lambda: peer_session(SESSION_JWT),
    )
    assert user == "6912b819-f4df-40f4-a192-20ee43090974"
    with pytest.raises(Exception):  # noqa: B017 - PyJWT or cryptography's InvalidSignature
        peer_session(_tampered(SESSION_JWT))


def test_verification_token_ours(benchmark: Any) -> None:
    contact = _run(
        benchmark,
        "verification-token-verify",
        "ours",
        lambda: ours_verification(VERIFICATION_TOKEN),
    )
    assert contact == "user@example.com"
    with pytest.raises(ewc.TokenError):
        ours_verification(_tampered(VERIFICATION_TOKEN))


def test_verification_token_pyjwt(benchmark: Any) -> None:
    contact = _run(
        benchmark,
        "verification-token-verify",
        "pyjwt",
        lambda: peer_verification(VERIFICATION_TOKEN),
    )
    assert contact == "user@example.com"
    with pytest.raises(jwt.PyJWTError):
        peer_verification(_tampered(VERIFICATION_TOKEN))
