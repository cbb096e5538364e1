"""Upstream JWT vectors through ewc.oidc (../shared/upstream-vectors/jwt, SOURCES.md "jwt/").

- OpenID Connect Core 1.0 Appendix A ID tokens verify with their own issuer, audience and
  evaluation time (and fail a minute later, or bound to a clientPublicKey).
- Wycheproof JSON Web Signature, every ES256 and RS256 group: the verdict the file expects,
  through the signature step ``verify_id_token`` uses (the payloads are not claims, so the claim
  rules cannot run on them).
- RFC 7520 section 4.1 (RS256) from the JOSE cookbook.
"""

from __future__ import annotations

import base64
from datetime import datetime, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _oidc_helpers import CLIENT_PUBLIC_KEY
from conftest import load_upstream_json, report_counts
from embedded_wallet_crypto.oidc._verify import verify_jws_signature

pytestmark = pytest.mark.upstream

OIDC_CORE = "jwt/oidc_core_appendix_a_id_tokens.json"
WYCHEPROOF_JWS = "jwt/wycheproof_json_web_signature_test.json"
COOKBOOK_RS256 = "jwt/jose-cookbook/4_1.rsa_v15_signature.json"


def _at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def test_oidc_core_example_id_tokens_verify() -> None:
    document = load_upstream_json(OIDC_CORE)
    rules = document["validation"]
    provider = ewc.oidc.JwksProvider.from_jwks(document["jwks"])
    verified = 0
    for example in document["tokens"]:
        for jwks in (document["jwks"], provider):
            identity = ewc.oidc.verify_id_token(
                example["id_token"],
                jwks=jwks,
                audience=rules["aud"],
                issuers=[rules["iss"]],
                now=_at(rules["evaluation_time"]),
                algorithms=[rules["alg"]],
            )
            assert identity.issuer == rules["iss"] and identity.audience == rules["aud"]
            assert identity.claims == example["expected_claims"]
            assert identity.subject == example["expected_claims"]["sub"]
            assert identity.email == example["expected_claims"].get("email")
            verified += 1
    assert verified == 2 * len(document["tokens"]) == 6
    report_counts("upstream OIDC Core Appendix A ID tokens", tokens=len(document["tokens"]))


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"now": 61}, "OIDC_TOKEN_TOO_OLD"),  # seconds after the token's iat
        ({"issuers": ewc.oidc.DEFAULT_ISSUERS}, "OIDC_ISSUER_NOT_ALLOWED"),
        ({"audience": "another-client"}, "OIDC_AUDIENCE_MISMATCH"),
        ({"client_public_key": CLIENT_PUBLIC_KEY}, "OIDC_NONCE_MISMATCH"),
        ({"algorithms": ["ES256"]}, "OIDC_ALGORITHM_NOT_ALLOWED"),
        ({"jwks": {"keys": []}}, "OIDC_KEY_NOT_FOUND"),
    ],
)
def test_oidc_core_example_fails_other_rules(change: dict[str, Any], code: str) -> None:
    document = load_upstream_json(OIDC_CORE)
    rules = document["validation"]
    example = document["tokens"][0]
    arguments: dict[str, Any] = {
        "jwks": document["jwks"],
        "audience": rules["aud"],
        "issuers": [rules["iss"]],
        "now": _at(rules["evaluation_time"]),
    }
    if "now" in change:
        change = {"now": _at(example["expected_claims"]["iat"] + change["now"])}
    arguments.update(change)
    with pytest.raises(ewc.OidcError) as raised:
        ewc.oidc.verify_id_token(example["id_token"], **arguments)
    assert raised.value.code == code


def _payload(token: str) -> bytes:
    segment = token.split(".")[1]
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def test_wycheproof_jws_es256_and_rs256_verdicts() -> None:
    document = load_upstream_json(WYCHEPROOF_JWS)
    counts = {"groups": 0, "valid": 0, "invalid": 0}
    wrong = []
    for group in document["testGroups"]:
        public = group.get("public") or {}
        if public.get("alg") not in ("ES256", "RS256"):
            continue
        counts["groups"] += 1
        jwks = {"keys": [public]}
        for test in group["tests"]:
            assert test["result"] in ("valid", "invalid"), test["tcId"]
            try:
                payload = verify_jws_signature(test["jws"], jwks=jwks)
                accepted = True
            except ewc.OidcError:
                accepted = False
            if accepted != (test["result"] == "valid"):
                wrong.append(f"tcId {test['tcId']} {test['comment']}: accepted={accepted}")
            elif accepted:
                assert payload == _payload(test["jws"])
            counts[test["result"]] += 1
    assert wrong == []
    assert counts["groups"] == 6 and counts["valid"] + counts["invalid"] == 272
    report_counts("upstream Wycheproof JWS ES256+RS256", **counts)


def test_wycheproof_jws_other_algorithms_are_refused_by_default() -> None:
    """HS256, PS256, ES521 and the rest: not in the default list, so never verified."""
    document = load_upstream_json(WYCHEPROOF_JWS)
    refused = 0
    for group in document["testGroups"]:
        public = group.get("public") or group.get("private") or {}
        if public.get("alg") in ("ES256", "RS256"):
            continue
        keys = {"keys": [public]}
        for test in group["tests"]:
            if not isinstance(test["jws"], str):
                continue
            with pytest.raises(ewc.OidcError):
                verify_jws_signature(test["jws"], jwks=keys)
            refused += 1
    assert refused > 100
    report_counts("upstream Wycheproof JWS other algorithms refused", tests=refused)


def test_rfc7520_rs256_example() -> None:
    document = load_upstream_json(COOKBOOK_RS256)
    public = {k: document["input"]["key"][k] for k in ("kty", "kid", "use", "n", "e")}
    payload = verify_jws_signature(document["output"]["compact"], jwks={"keys": [public]})
    assert payload.decode() == document["input"]["payload"]
