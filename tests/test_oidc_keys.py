"""ewc.oidc: the JWKS key is matched by kid and alg; unusable keys are ignored."""

from __future__ import annotations

import base64
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _oidc_helpers import (
    AUDIENCE,
    ES_KID,
    ES_LABEL,
    ISSUER,
    JWKS,
    NOW,
    OTHER_ES_LABEL,
    RS_KID,
    RS_LABEL,
    claims,
    code_of,
    es256,
    rs256,
    verify,
)
from embedded_wallet_crypto.vectors.generate._jwt_mint import es256_jwk, rsa_jwk, rsa_test_key


def test_unknown_kid() -> None:
    assert code_of(es256(kid="rotated-away")) == "OIDC_KEY_NOT_FOUND"


def test_key_is_matched_by_kid_and_alg() -> None:
    # The RSA key's kid on an ES256 token, and an EC key whose JWK says another alg.
    assert code_of(es256(kid=RS_KID)) == "OIDC_KEY_NOT_FOUND"
    wrong_alg = {"keys": [{**es256_jwk(ES_LABEL, ES_KID), "alg": "ES384"}]}
    assert code_of(es256(), jwks=wrong_alg) == "OIDC_KEY_NOT_FOUND"
    no_alg = {"keys": [{k: v for k, v in es256_jwk(ES_LABEL, ES_KID).items() if k != "alg"}]}
    assert verify(es256(), jwks=no_alg).subject


def test_token_without_kid_needs_exactly_one_fitting_key() -> None:
    assert verify(es256(kid=None)).subject  # one EC key in JWKS
    two = {"keys": [*JWKS["keys"], es256_jwk(OTHER_ES_LABEL, "other")]}
    assert code_of(es256(kid=None), jwks=two) == "OIDC_KEY_NOT_FOUND"


@pytest.mark.parametrize(
    "change",
    [{"use": "enc"}, {"key_ops": ["encrypt"]}, {"crv": "P-384"}, {"kty": "oct", "k": "c2VjcmV0"}],
)
def test_keys_not_meant_for_this_signature_are_ignored(change: dict[str, Any]) -> None:
    jwks = {"keys": [{**es256_jwk(ES_LABEL, ES_KID), **change}]}
    assert code_of(es256(), jwks=jwks) == "OIDC_KEY_NOT_FOUND"


def test_off_curve_and_weak_keys_are_ignored() -> None:
    bad_point = {**es256_jwk(ES_LABEL, ES_KID), "y": es256_jwk(OTHER_ES_LABEL, "x")["y"]}
    assert code_of(es256(), jwks={"keys": [bad_point]}) == "OIDC_KEY_NOT_FOUND"
    weak = rsa_test_key("weak", 1024).public_key().public_numbers()
    n = base64.urlsafe_b64encode(weak.n.to_bytes(128, "big")).rstrip(b"=").decode()
    weak_jwk = {**rsa_jwk(RS_LABEL, RS_KID), "n": n}
    assert code_of(rs256(), jwks={"keys": [weak_jwk]}) == "OIDC_KEY_NOT_FOUND"


def test_duplicate_kid_tries_each_matching_key() -> None:
    impostor = es256_jwk(OTHER_ES_LABEL, ES_KID)
    assert verify(es256(), jwks={"keys": [impostor, *JWKS["keys"]]}).subject


def test_private_members_of_a_jwk_are_not_needed() -> None:
    jwk = {**es256_jwk(ES_LABEL, ES_KID), "d": "not even base64!"}
    assert verify(es256(), jwks={"keys": [jwk]}).subject


def test_keys_per_issuer() -> None:
    apple = "https://appleid.apple.com"
    per_issuer = {ISSUER: JWKS, apple: {"keys": [es256_jwk(OTHER_ES_LABEL, ES_KID)]}}
    assert verify(es256(), jwks=per_issuer).issuer == ISSUER
    # Apple's claims signed with Google's key: the kid exists only in Google's set.
    assert code_of(es256(claims(iss=apple)), jwks=per_issuer) == "OIDC_SIGNATURE_INVALID"
    assert code_of(es256(), jwks={apple: JWKS}) == "OIDC_KEY_NOT_FOUND"


@pytest.mark.parametrize("jwks", [None, [], "keys", 3])
def test_jwks_of_the_wrong_type(jwks: Any) -> None:
    with pytest.raises(TypeError):
        verify(es256(), jwks=jwks)


def test_jwks_document_without_keys_array() -> None:
    assert code_of(es256(), jwks={"keys": "nope"}) == "OIDC_JWKS_INVALID"


def test_a_provider_object_is_used_as_is() -> None:
    provider = ewc.oidc.JwksProvider.from_jwks(JWKS)
    assert ewc.oidc.verify_id_token(es256(), jwks=provider, audience=AUDIENCE, now=NOW).subject
    assert isinstance(provider, ewc.oidc.KeySource)
