"""oidc.json: OIDC ID tokens for the OAUTH credential (formats.md section 7).

Tokens are minted by ``_jwt_mint`` with the project's own test keys (ES256: RFC 9180
DeriveKeyPair over a label, RFC 6979 signatures; RS256: a label-derived RSA-2048 key), so the
file is the same on every run. The expected identities and error codes follow from the claims
each case was given, never from the library under test. Every case runs at the fixed ``now``.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from cryptography.hazmat.primitives import serialization

from ._common import Case, case, key, vector_file
from ._jwt_mint import b64url, es256_jwk, rsa_jwk, rsa_test_key, segment, sign_es256, sign_rs256

DESCRIPTION = (
    "OIDC ID tokens (formats.md section 7) verified at a fixed now: ES256 and RS256 signatures "
    "from a JWKS matched by kid and alg, iss allow-list, aud, exp, iat at most 60 s old and at "
    "most 5 s ahead, and the nonce (or tknonce) binding to the clientPublicKey. Refused: alg "
    "none, HS256 keyed with the issuer's public key, unknown kid, bad shapes and base64."
)

NOW = 1_767_225_600  # 2026-01-01T00:00:00Z
ISSUER = "https://accounts.google.com"
AUDIENCE = "platform-client-id.apps.googleusercontent.com"
ES_LABEL, ES_KID = "oidc issuer es256", "es256-key-1"
RS_LABEL, RS_KID = "oidc issuer rs256", "rs256-key-1"
SANDBOX_TOKEN = "sandbox-valid-oidc-token"  # noqa: S105 (the interface's public test value)


def _client_key(label: str) -> str:
    return key(label)[1].hex()


CLIENT = _client_key("oidc client")
OTHER_CLIENT = _client_key("oidc other client")


def _nonce(client_public_key: str) -> str:
    return hashlib.sha256(client_public_key.encode("ascii")).hexdigest()


def _jwks() -> dict[str, Any]:
    return {"keys": [es256_jwk(ES_LABEL, ES_KID), rsa_jwk(RS_LABEL, RS_KID)]}


def _claims(**changes: Any) -> dict[str, Any]:
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "110169484474386276334",
        "email": "jane@example.com",
        "iat": NOW - 10,
        "exp": NOW + 3590,
        "nonce": _nonce(CLIENT),
    }
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


def _es256(claims: dict[str, Any], kid: str = ES_KID) -> str:
    return sign_es256(ES_LABEL, {"alg": "ES256", "kid": kid, "typ": "JWT"}, claims)


def _rs256(claims: dict[str, Any]) -> str:
    return sign_rs256(RS_LABEL, {"alg": "RS256", "kid": RS_KID, "typ": "JWT"}, claims)


def _hs256_confusion() -> str:
    """HS256 keyed with the issuer's RSA public key (PEM): the classic algorithm confusion."""
    pem = (
        rsa_test_key(RS_LABEL)
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    signing_input = f"{segment({'alg': 'HS256', 'kid': RS_KID, 'typ': 'JWT'})}.{segment(_claims())}"
    mac = hmac.new(pem, signing_input.encode("ascii"), hashlib.sha256).digest()
    return f"{signing_input}.{b64url(mac)}"


def _verify_case(
    case_id: str,
    token: str,
    comment: str,
    *,
    error: str | None = None,
    claims: dict[str, Any] | None = None,
    client_public_key: str | None = CLIENT,
    sandbox: bool = False,
) -> Case:
    inputs = {
        "token": token,
        "jwks": _jwks(),
        "audience": [AUDIENCE],
        "issuers": [ISSUER, "accounts.google.com", "https://appleid.apple.com"],
        "now": NOW,
        "max_age_seconds": 60,
        "clock_skew_seconds": 5,
        "client_public_key": client_public_key,
        "sandbox": sandbox,
    }
    if error is not None:
        return case(case_id, "oidc_verify", inputs, error=error, comment=comment)
    granted = _claims() if claims is None else claims
    expected = {
        "issuer": granted.get("iss", "sandbox"),
        "subject": granted.get("sub", "sandbox"),
        "audience": AUDIENCE,
        "email": granted.get("email"),
        "sandbox": sandbox,
    }
    return case(case_id, "oidc_verify", inputs, expected=expected, comment=comment)


def _valid_cases() -> list[Case]:
    tknonce = _claims(nonce=None, tknonce=_nonce(CLIENT))
    return [
        _verify_case("oidc-es256-valid", _es256(_claims()), "ES256, nonce bound"),
        _verify_case("oidc-rs256-valid", _rs256(_claims()), "RS256, nonce bound"),
        _verify_case("oidc-iat-59s", _es256(c := _claims(iat=NOW - 59)), "iat 59 s old", claims=c),
        _verify_case(
            "oidc-iat-60s", _es256(c := _claims(iat=NOW - 60)), "iat exactly 60 s old", claims=c
        ),
        _verify_case(
            "oidc-iat-future-5s",
            _es256(c := _claims(iat=NOW + 5)),
            "iat 5 s ahead: inside the clock skew",
            claims=c,
        ),
        _verify_case("oidc-tknonce", _es256(tknonce), "the binding in tknonce", claims=tknonce),
        _verify_case(
            "oidc-no-client-key",
            _es256(c := _claims(nonce=None)),
            "no clientPublicKey given: no nonce rule",
            claims=c,
            client_public_key=None,
        ),
        _verify_case(
            "oidc-sandbox-token-in-sandbox",
            SANDBOX_TOKEN,
            "the interface's sandbox token, sandbox on: a stub identity",
            claims={},
            sandbox=True,
        ),
    ]


def _invalid_cases() -> list[Case]:
    es_valid = _es256(_claims())
    head, body, signature = es_valid.split(".")
    refused = [
        ("oidc-iat-61s", _es256(_claims(iat=NOW - 61)), "iat 61 s old", "OIDC_TOKEN_TOO_OLD"),
        (
            "oidc-iat-future-6s",
            _es256(_claims(iat=NOW + 6)),
            "iat 6 s ahead: outside the skew",
            "OIDC_ISSUED_IN_FUTURE",
        ),
        ("oidc-iat-missing", _es256(_claims(iat=None)), "no iat", "OIDC_CLAIM_MISSING"),
        ("oidc-expired", _es256(_claims(exp=NOW - 1)), "exp 1 s ago", "OIDC_TOKEN_EXPIRED"),
        (
            "oidc-wrong-iss",
            _es256(_claims(iss="https://evil.example")),
            "iss not in the allow-list",
            "OIDC_ISSUER_NOT_ALLOWED",
        ),
        (
            "oidc-wrong-aud",
            _es256(_claims(aud="another-platform")),
            "aud of another platform",
            "OIDC_AUDIENCE_MISMATCH",
        ),
        (
            "oidc-nonce-of-another-key",
            _es256(_claims(nonce=_nonce(OTHER_CLIENT))),
            "the nonce binds another clientPublicKey",
            "OIDC_NONCE_MISMATCH",
        ),
        ("oidc-nonce-missing", _es256(_claims(nonce=None)), "no nonce", "OIDC_NONCE_MISSING"),
        (
            "oidc-unknown-kid",
            _es256(_claims(), kid="rotated-away"),
            "a kid the JWKS does not have",
            "OIDC_KEY_NOT_FOUND",
        ),
        (
            "oidc-alg-none",
            f"{segment({'alg': 'none', 'typ': 'JWT'})}.{body}.",
            "alg none, empty signature",
            "OIDC_ALGORITHM_NOT_ALLOWED",
        ),
        (
            "oidc-hs256-confusion",
            _hs256_confusion(),
            "HS256 keyed with the issuer's RSA public key PEM",
            "OIDC_ALGORITHM_NOT_ALLOWED",
        ),
        (
            "oidc-signature-other-claims",
            f"{head}.{segment(_claims(sub='attacker'))}.{signature}",
            "a valid signature moved onto other claims",
            "OIDC_SIGNATURE_INVALID",
        ),
        ("oidc-two-segments", f"{head}.{body}", "header.payload only", "OIDC_TOKEN_MALFORMED"),
        (
            "oidc-bad-base64",
            f"{head}.{body[:10]}!{body[11:]}.{signature}",
            "a character outside base64url in the payload",
            "OIDC_TOKEN_MALFORMED",
        ),
        (
            "oidc-sandbox-token-in-production",
            SANDBOX_TOKEN,
            "the sandbox token in production: malformed like any other non-JWT",
            "OIDC_TOKEN_MALFORMED",
        ),
    ]
    return [_verify_case(i, t, c, error=e) for i, t, c, e in refused]


def _nonce_cases() -> list[Case]:
    example = "0394e549c71fa99dd5cf752fba623090be314949b74e4cdf7ca72031dd638e281a"
    upper = "04" + CLIENT[2:].upper()
    return [
        case(
            "oidc-nonce-published-example",
            "oidc_nonce",
            {"client_public_key": example},
            expected={"nonce": "1663bba492a323085b13895634a3618792c4ec6896f3c34ef3c26396df22ef82"},
            comment="formats.md section 7's published example (a compressed key)",
        ),
        case(
            "oidc-nonce-uncompressed",
            "oidc_nonce",
            {"client_public_key": CLIENT},
            expected={"nonce": _nonce(CLIENT)},
        ),
        case(
            "oidc-nonce-upper-case-hex",
            "oidc_nonce",
            {"client_public_key": upper},
            expected={"nonce": _nonce(upper)},
            comment="hashed exactly as sent: upper-case hex gives another nonce",
        ),
        case(
            "oidc-nonce-off-curve-key",
            "oidc_nonce",
            {"client_public_key": "04" + "11" * 64},
            error="INVALID_POINT",
        ),
        case(
            "oidc-nonce-not-hex",
            "oidc_nonce",
            {"client_public_key": "04" + "zz" * 64},
            error="INVALID_KEY_ENCODING",
        ),
    ]


def _shape_cases() -> list[Case]:
    forged = _es256(_claims()).rsplit(".", 1)[0] + "." + b64url(b"not a signature".ljust(64))
    issuers = [ISSUER]
    return [
        case(
            "oidc-shape-unsigned-ok",
            "oidc_token_shape",
            {"token": forged, "issuers": issuers},
            expected={"iss": ISSUER, "sub": _claims()["sub"]},
            comment="the sandbox create path: structure and iss only, the signature is not read",
        ),
        case(
            "oidc-shape-wrong-iss",
            "oidc_token_shape",
            {"token": _es256(_claims(iss="https://evil.example")), "issuers": issuers},
            error="OIDC_ISSUER_NOT_ALLOWED",
        ),
        case(
            "oidc-shape-two-segments",
            "oidc_token_shape",
            {"token": forged.rsplit(".", 1)[0], "issuers": issuers},
            error="OIDC_TOKEN_MALFORMED",
        ),
    ]


def build() -> dict[str, Any]:
    cases = _nonce_cases() + _valid_cases() + _invalid_cases() + _shape_cases()
    return vector_file(DESCRIPTION, cases)
