"""ewc.oidc: nonce_for and every rule of verify_id_token (formats.md section 7, issue 6)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import datetime
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from _oidc_helpers import (
    AUDIENCE,
    CLIENT_PUBLIC_KEY,
    ES_KID,
    ES_LABEL,
    ISSUER,
    JWKS,
    NOW,
    NOW_TS,
    OTHER_CLIENT_PUBLIC_KEY,
    OTHER_ES_LABEL,
    RS_KID,
    RS_LABEL,
    claims,
    code_of,
    es256,
    rs256,
    unsigned,
    verify,
)
from cryptography.hazmat.primitives import serialization
from embedded_wallet_crypto.vectors.generate._jwt_mint import es256_jwk, rsa_jwk, rsa_test_key

oidc = ewc.oidc

# --- nonce_for ---------------------------------------------------------------------------------


def test_nonce_for_published_example() -> None:
    key = "0394e549c71fa99dd5cf752fba623090be314949b74e4cdf7ca72031dd638e281a"
    expected = "1663bba492a323085b13895634a3618792c4ec6896f3c34ef3c26396df22ef82"
    assert oidc.nonce_for(key) == expected


def test_nonce_hashes_the_string_as_sent() -> None:
    upper = "04" + CLIENT_PUBLIC_KEY[2:].upper()
    assert oidc.nonce_for(upper) == hashlib.sha256(upper.encode()).hexdigest()
    assert oidc.nonce_for(upper) != oidc.nonce_for(CLIENT_PUBLIC_KEY)


@pytest.mark.parametrize("key", ["04" + "00" * 64, "abc", "", "02" + "ff" * 32, "0x04"])
def test_nonce_for_refuses_invalid_keys(key: str) -> None:
    with pytest.raises(ewc.InvalidKey):
        oidc.nonce_for(key)


@pytest.mark.parametrize("key", [bytes.fromhex(CLIENT_PUBLIC_KEY), None, 4])
def test_nonce_for_wants_the_hex_string(key: Any) -> None:
    with pytest.raises(ewc.InvalidKey) as raised:
        oidc.nonce_for(key)
    assert raised.value.code == "INVALID_KEY_ENCODING"


# --- valid tokens ------------------------------------------------------------------------------


@pytest.mark.parametrize("mint", [es256, rs256], ids=["ES256", "RS256"])
def test_valid_token_gives_the_identity(mint: Any) -> None:
    identity = verify(mint(), client_public_key=CLIENT_PUBLIC_KEY)
    assert identity.issuer == ISSUER and identity.audience == AUDIENCE
    assert identity.subject == "110169484474386276334"
    assert identity.email == "jane@example.com" and identity.claims["nonce"]
    assert identity.sandbox is False


def test_email_is_optional() -> None:
    assert verify(es256(claims(email=None))).email is None


def test_audience_list_and_several_configured_audiences() -> None:
    token = es256(claims(aud=["someone-else", AUDIENCE]))
    assert verify(token).audience == AUDIENCE
    assert verify(es256(), audience=["ios-client", AUDIENCE]).audience == AUDIENCE


def test_default_now_is_the_current_time() -> None:
    import time

    fresh = int(time.time())
    token = es256(claims(iat=fresh - 1, exp=fresh + 600))
    assert ewc.oidc.verify_id_token(token, jwks=JWKS, audience=AUDIENCE).subject
    with pytest.raises(ewc.OidcError, match="expired"):  # the fixed-time token is long gone
        ewc.oidc.verify_id_token(es256(), jwks=JWKS, audience=AUDIENCE)


# --- algorithms --------------------------------------------------------------------------------


def _hmac_token(alg: str, secret: bytes, header_kid: str = RS_KID) -> str:
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[alg]
    head = unsigned({"alg": alg, "kid": header_kid, "typ": "JWT"}, claims(), "")[:-1]
    mac = hmac.new(secret, head.encode(), digest).digest()
    return head + "." + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def _public_pem(label: str) -> bytes:
    return (
        rsa_test_key(label)
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )


@pytest.mark.parametrize("alg", ["HS256", "HS384", "HS512"])
def test_hmac_confusion_with_the_public_key_as_secret_is_refused(alg: str) -> None:
    es_point = base64.urlsafe_b64decode(es256_jwk(ES_LABEL, ES_KID)["x"] + "=")
    for secret in (_public_pem(RS_LABEL), es_point, b"", repr(JWKS).encode()):
        assert code_of(_hmac_token(alg, secret)) == "OIDC_ALGORITHM_NOT_ALLOWED"
        assert code_of(_hmac_token(alg, secret, ES_KID)) == "OIDC_ALGORITHM_NOT_ALLOWED"


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "hs256", "", None, 5])
def test_none_and_odd_algorithms_are_refused(alg: Any) -> None:
    for signature in ("", "c2ln"):
        token = unsigned({"alg": alg, "kid": ES_KID}, claims(), signature)
        assert code_of(token) in {"OIDC_ALGORITHM_NOT_ALLOWED", "OIDC_TOKEN_MALFORMED"}
    assert code_of(unsigned({"alg": alg, "kid": ES_KID}, claims())) == (
        "OIDC_ALGORITHM_NOT_ALLOWED"
    )


def test_missing_alg_is_refused() -> None:
    assert code_of(unsigned({"kid": ES_KID}, claims())) == "OIDC_ALGORITHM_NOT_ALLOWED"


@pytest.mark.parametrize(
    ("algorithms", "error"),
    [
        (("HS256",), ValueError),
        (("RS256", "none"), ValueError),
        (("RS256", "hs512"), ValueError),
        (("XX999",), ValueError),
        ((), TypeError),
    ],
)
def test_configuring_refused_algorithms_is_an_error(algorithms: Any, error: type) -> None:
    with pytest.raises(error):
        verify(es256(), algorithms=algorithms)


def test_other_algorithms_only_by_explicit_configuration() -> None:
    from embedded_wallet_crypto.vectors.generate._jwt_mint import segment

    header = {"alg": "RS384", "kid": RS_KID}
    signing_input = f"{segment(header)}.{segment(claims())}"
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    signature = rsa_test_key(RS_LABEL).sign(
        signing_input.encode(), padding.PKCS1v15(), hashes.SHA384()
    )
    token = signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()
    jwks = {"keys": [{**rsa_jwk(RS_LABEL, RS_KID), "alg": "RS384"}]}
    assert code_of(token, jwks=jwks) == "OIDC_ALGORITHM_NOT_ALLOWED"
    assert verify(token, jwks=jwks, algorithms=("RS256", "RS384")).subject
    assert code_of(es256(), algorithms=("RS256",)) == "OIDC_ALGORITHM_NOT_ALLOWED"
    assert code_of(es256(), algorithms="RS256") == "OIDC_ALGORITHM_NOT_ALLOWED"  # not a substring
    assert verify(es256(), algorithms="ES256").subject


# --- signature ---------------------------------------------------------------------------------


def test_signature_by_another_key_or_over_other_claims() -> None:
    assert code_of(es256(label=OTHER_ES_LABEL)) == "OIDC_SIGNATURE_INVALID"
    head, _, signature = es256().split(".")
    forged = f"{head}.{es256(claims(sub='attacker')).split('.')[1]}.{signature}"
    assert code_of(forged) == "OIDC_SIGNATURE_INVALID"
    head, body, signature = rs256().split(".")
    assert code_of(f"{head}.{body}.{signature[:-4]}AAAA") == "OIDC_SIGNATURE_INVALID"


def test_es256_signature_must_be_raw_r_s() -> None:
    head, body, signature = es256().split(".")
    raw = base64.urlsafe_b64decode(signature + "==")
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    der_token = f"{head}.{body}." + base64.urlsafe_b64encode(der).rstrip(b"=").decode()
    assert code_of(der_token) == "OIDC_SIGNATURE_INVALID"


def test_embedded_jwk_header_is_never_trusted() -> None:
    attacker = es256_jwk(OTHER_ES_LABEL, ES_KID)
    assert code_of(es256(label=OTHER_ES_LABEL, jwk=attacker)) == "OIDC_SIGNATURE_INVALID"


def test_unsupported_critical_header_is_refused() -> None:
    assert code_of(es256(crit=["exp"], exp=1)) == "OIDC_TOKEN_MALFORMED"


# --- claims ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"iss": None}, "OIDC_CLAIM_MISSING"),
        ({"iss": ["https://accounts.google.com"]}, "OIDC_CLAIM_INVALID"),
        ({"iss": "https://evil.example"}, "OIDC_ISSUER_NOT_ALLOWED"),
        ({"aud": None}, "OIDC_CLAIM_MISSING"),
        ({"aud": "another-platform"}, "OIDC_AUDIENCE_MISMATCH"),
        ({"aud": ["a", "b"]}, "OIDC_AUDIENCE_MISMATCH"),
        ({"aud": []}, "OIDC_CLAIM_INVALID"),
        ({"aud": [AUDIENCE, 3]}, "OIDC_CLAIM_INVALID"),
        ({"exp": None}, "OIDC_CLAIM_MISSING"),
        ({"exp": NOW_TS}, "OIDC_TOKEN_EXPIRED"),
        ({"exp": NOW_TS - 1, "iat": NOW_TS - 30}, "OIDC_TOKEN_EXPIRED"),
        ({"exp": "tomorrow"}, "OIDC_CLAIM_INVALID"),
        ({"exp": True}, "OIDC_CLAIM_INVALID"),
        ({"exp": 1e400}, "OIDC_TOKEN_MALFORMED"),  # json.dumps writes Infinity: not JSON
        ({"iat": None}, "OIDC_CLAIM_MISSING"),
        ({"iat": NOW_TS - 61}, "OIDC_TOKEN_TOO_OLD"),
        ({"iat": NOW_TS - 60.5}, "OIDC_TOKEN_TOO_OLD"),
        ({"iat": NOW_TS + 6}, "OIDC_ISSUED_IN_FUTURE"),
        ({"iat": str(NOW_TS)}, "OIDC_CLAIM_INVALID"),
        ({"iat": False}, "OIDC_CLAIM_INVALID"),
        ({"nbf": NOW_TS + 6}, "OIDC_TOKEN_NOT_YET_VALID"),
        ({"nbf": "soon"}, "OIDC_CLAIM_INVALID"),
        ({"sub": None}, "OIDC_CLAIM_MISSING"),
        ({"sub": ""}, "OIDC_CLAIM_INVALID"),
        ({"sub": 42}, "OIDC_CLAIM_INVALID"),
        ({"email": ["jane@example.com"]}, "OIDC_CLAIM_INVALID"),
    ],
)
def test_claim_rules(changes: dict[str, Any], code: str) -> None:
    assert code_of(es256(claims(**changes))) == code
    assert code_of(rs256(claims(**changes))) == code


@pytest.mark.parametrize("age", [0, 1, 59, 60])
def test_iat_up_to_max_age_is_fresh(age: int) -> None:
    assert verify(es256(claims(iat=NOW_TS - age))).subject


@pytest.mark.parametrize("ahead", [1, 5])
def test_iat_slightly_in_the_future_is_within_skew(ahead: int) -> None:
    assert verify(es256(claims(iat=NOW_TS + ahead, nbf=NOW_TS + ahead))).subject


def test_max_age_and_skew_are_configurable() -> None:
    token = es256(claims(iat=NOW_TS - 200))
    assert code_of(token) == "OIDC_TOKEN_TOO_OLD"
    assert verify(token, max_age_seconds=300).subject
    future = es256(claims(iat=NOW_TS + 20))
    assert code_of(future) == "OIDC_ISSUED_IN_FUTURE"
    assert verify(future, clock_skew_seconds=30).subject
    assert code_of(es256(claims(iat=NOW_TS + 1)), clock_skew_seconds=0) == "OIDC_ISSUED_IN_FUTURE"


def test_custom_issuer_allow_list() -> None:
    token = es256(claims(iss="https://login.example"))
    assert code_of(token) == "OIDC_ISSUER_NOT_ALLOWED"
    assert verify(token, issuers=["https://login.example"]).issuer == "https://login.example"
    assert code_of(es256(), issuers=["https://login.example"]) == "OIDC_ISSUER_NOT_ALLOWED"


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("now", datetime(2026, 1, 1), TypeError),  # naive
        ("now", NOW_TS, TypeError),
        ("max_age_seconds", -1, ValueError),
        ("clock_skew_seconds", float("nan"), ValueError),
        ("audience", [], TypeError),
        ("audience", None, TypeError),
        ("issuers", "", TypeError),
        ("sandbox", "false", TypeError),
        ("sandbox", 0, TypeError),
    ],
)
def test_bad_configuration_is_a_programming_error(option: str, value: Any, error: type) -> None:
    with pytest.raises(error):
        verify(es256(), **{option: value})


# --- nonce binding -----------------------------------------------------------------------------


def test_nonce_binding() -> None:
    assert verify(es256(), client_public_key=CLIENT_PUBLIC_KEY).subject
    tknonce = claims(nonce=None, tknonce=oidc.nonce_for(CLIENT_PUBLIC_KEY))
    assert verify(es256(tknonce), client_public_key=CLIENT_PUBLIC_KEY).subject
    wrong_nonce_right_tknonce = claims(nonce="x", tknonce=oidc.nonce_for(CLIENT_PUBLIC_KEY))
    assert verify(es256(wrong_nonce_right_tknonce), client_public_key=CLIENT_PUBLIC_KEY).subject


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"nonce": None}, "OIDC_NONCE_MISSING"),
        ({"nonce": oidc.nonce_for(OTHER_CLIENT_PUBLIC_KEY)}, "OIDC_NONCE_MISMATCH"),
        ({"nonce": None, "tknonce": "0" * 64}, "OIDC_NONCE_MISMATCH"),
        ({"nonce": oidc.nonce_for(CLIENT_PUBLIC_KEY).upper()}, "OIDC_NONCE_MISMATCH"),
        ({"nonce": 1}, "OIDC_NONCE_MISMATCH"),
        ({"nonce": CLIENT_PUBLIC_KEY}, "OIDC_NONCE_MISMATCH"),
    ],
)
def test_nonce_failures(changes: dict[str, Any], code: str) -> None:
    assert code_of(es256(claims(**changes)), client_public_key=CLIENT_PUBLIC_KEY) == code


def test_nonce_is_only_checked_when_a_client_key_is_given() -> None:
    assert verify(es256(claims(nonce=None))).subject


def test_invalid_client_key_is_refused_before_anything_else() -> None:
    with pytest.raises(ewc.InvalidKey):
        verify("not a token", client_public_key="04" + "11" * 64)


# --- errors ------------------------------------------------------------------------------------


def test_every_failure_is_401_invalid_oidc_token() -> None:
    with pytest.raises(ewc.OidcError) as raised:
        verify(es256(claims(iat=NOW_TS - 61)))
    error = raised.value
    assert error.status == 401 and error.http_reason == "Invalid OIDC token"
    assert error.code == "OIDC_TOKEN_TOO_OLD" and "61 s" in error.reason
    assert isinstance(error, ewc.WalletCryptoError)


def test_check_token_shape() -> None:
    assert oidc.check_token_shape(es256())["sub"] == "110169484474386276334"
    forged = es256().rsplit(".", 1)[0] + ".c2ln"
    assert oidc.check_token_shape(forged)["iss"] == ISSUER  # the signature is not checked
    for token, code in [
        (es256(claims(iss="https://evil.example")), "OIDC_ISSUER_NOT_ALLOWED"),
        (es256(claims(iss=None)), "OIDC_CLAIM_MISSING"),
        (unsigned({"typ": "JWT"}, claims()), "OIDC_TOKEN_MALFORMED"),
        (es256().rsplit(".", 1)[0] + ".", "OIDC_TOKEN_MALFORMED"),
        (".".join(es256().split(".")[:2]), "OIDC_TOKEN_MALFORMED"),
    ]:
        with pytest.raises(ewc.OidcError) as raised:
            oidc.check_token_shape(token)
        assert raised.value.code == code
    custom = es256(claims(iss="https://login.example"))
    assert oidc.check_token_shape(custom, issuers=["https://login.example"])


def test_create_token_is_verified_in_production_without_a_nonce() -> None:
    token = es256(claims(nonce=None))
    identity = oidc.verify_create_token(token, jwks=JWKS, audience=AUDIENCE, now=NOW)
    assert identity.subject == "110169484474386276334" and identity.sandbox is False
    for bad, code in [
        (es256(claims(nonce=None, iat=NOW_TS - 61)), "OIDC_TOKEN_TOO_OLD"),
        (es256(claims(nonce=None), label=OTHER_ES_LABEL), "OIDC_SIGNATURE_INVALID"),
        ("sandbox-valid-oidc-token", "OIDC_TOKEN_MALFORMED"),
    ]:
        with pytest.raises(ewc.OidcError) as raised:
            oidc.verify_create_token(bad, jwks=JWKS, audience=AUDIENCE, now=NOW)
        assert raised.value.code == code
