"""OTP verification tokens (formats.md section 14) through ``ewc.tokens``: the upstream known
answers (../shared/upstream-vectors/turnkey-sdk/otp_verification_token.json), every refusal with
its code, and mint/verify properties with PyJWT and ``cryptography`` as the independent oracle."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import jwt
import pytest
from conftest import load_upstream_json, report_counts
from cryptography.hazmat.primitives.asymmetric import ec
from embedded_wallet_crypto import _strict_json
from embedded_wallet_crypto.tokens import (
    TokenError,
    mint_verification_token,
    verify_verification_token,
)
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

VECTORS = "turnkey-sdk/otp_verification_token.json"
# A fixed test signer (the upstream tests' key), so no verdict depends on a random key.
SIGNER = ewc.KeyPair.from_private_hex(
    "7b2e9c5f4a1d8036e9b0c2a4f6d8e0f123456789abcdef0123456789abcdef01"
)
OTHER = ewc.KeyPair.from_private_hex("11" * 32)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
LATER = NOW + timedelta(minutes=10)
FIELDS = {
    "verification_type": "OTP_TYPE_EMAIL",
    "contact": "user@example.com",
    "organization_id": "org-1",
    "public_key": "02388f5cdc9ea82205c6c8ac92c09ac6d8b85d99ad7eed3cff1d245d78ccbe3ebb",
}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(header: Any, claims: Any, key: ewc.KeyPair = SIGNER) -> str:
    """A token built here from arbitrary header and claims (JSON text or objects)."""
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    def part(value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        return b64(text.encode())

    signing_input = f"{part(header)}.{part(claims)}"
    r, s = decode_dss_signature(key.sign(signing_input.encode()))
    return f"{signing_input}.{b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def claims(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"exp": str(int(LATER.timestamp() * 1000)), "id": "v-1", **FIELDS}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


HEADER = {"typ": "JWT", "alg": "ES256"}


def code_of(token: str, key: Any = None, now: datetime = NOW) -> str:
    with pytest.raises(TokenError) as caught:
        verify_verification_token(token, signer_public_key=key or SIGNER.public_key_hex(), now=now)
    assert isinstance(caught.value, ewc.WalletCryptoError)
    assert caught.value.status == 401
    return caught.value.code


# ---------------------------------------------------------------- upstream known answers


@pytest.mark.upstream
def test_upstream_verification_tokens() -> None:
    document = load_upstream_json(VECTORS)
    prod_key = document["keys"]["tls_fetcher_sign_public_key"]["value"]
    assert prod_key == ewc.otp.TLS_FETCHER_SIGNER_PUBLIC_KEY
    by_id = {case["id"]: case for case in document["cases"]}
    checked = 0

    # The real production token: verifies before its exp, and "has expired" after it.
    prod = by_id["otp-token-prod-signed-expired"]
    exp_ms = prod["derived"]["exp_ms"]
    expires = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=exp_ms)
    token = verify_verification_token(prod["input"]["jwt"], now=expires - timedelta(seconds=1))
    assert token.expires_at == expires
    payload = json.loads(prod["derived"]["payload_json"])
    assert (token.id, token.verification_type, token.contact) == (
        payload["id"],
        payload["verification_type"],
        payload["contact"],
    )
    assert (token.organization_id, token.public_key) == (
        payload["organization_id"],
        payload["public_key"],
    )
    assert token.claims == payload
    with pytest.raises(TokenError) as caught:
        verify_verification_token(prod["input"]["jwt"], now=expires)
    assert caught.value.code == "TOKEN_EXPIRED"
    checked += 1

    expected_codes = {
        "otp-token-prod-signed-tampered": "TOKEN_SIGNATURE_INVALID",
        "otp-token-bad-format": "TOKEN_MALFORMED",
        "otp-token-test-key-missing-contact": "TOKEN_CLAIM_MISSING",
        "otp-token-test-key-vs-prod-key": "TOKEN_SIGNATURE_INVALID",
        "otp-token-test-key-expired": "TOKEN_EXPIRED",
        "otp-token-test-key-exp-not-a-number": "TOKEN_CLAIM_INVALID",
        "otp-token-alg-hs256": "TOKEN_ALGORITHM_NOT_ALLOWED",
    }
    for case_id, code in expected_codes.items():
        case = by_id[case_id]
        assert code_of(case["input"]["jwt"], case["input"]["signer_public_key"]) == code, case_id
        checked += 1

    valid = by_id["otp-token-test-key-valid"]
    assert valid["input"]["signer_public_key"] == SIGNER.public_key_hex(compressed=True)
    token = verify_verification_token(
        valid["input"]["jwt"], signer_public_key=valid["input"]["signer_public_key"], now=NOW
    )
    assert token.claims == valid["expected"]["claims"]
    assert token.public_key == "deadbeef"
    checked += 1

    # The older form is not this format: refused under the production key (another signer)
    # and under its own key (numeric exp in seconds, no organization_id).
    legacy = by_id["legacy-token-go-valid"]
    assert code_of(legacy["input"]["jwt"], prod_key) == "TOKEN_SIGNATURE_INVALID"
    assert code_of(legacy["input"]["jwt"], legacy["input"]["signer_public_key"]) == (
        "TOKEN_CLAIM_MISSING"
    )
    checked += 1
    for case_id in ("legacy-token-go-too-few-parts", "legacy-token-go-empty"):
        assert code_of(by_id[case_id]["input"]["jwt"], prod_key) == "TOKEN_MALFORMED"
        checked += 1
    with pytest.raises(ewc.InvalidKey):
        verify_verification_token(
            "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.e30." + "A" * 86,
            signer_public_key=by_id["legacy-token-go-invalid-key-hex"]["input"][
                "signer_public_key"
            ],
        )
    checked += 1
    assert checked == len(document["cases"])
    report_counts("upstream otp verification tokens", cases=checked)


# ---------------------------------------------------------------- refusals with their codes


def test_round_trip_and_fields() -> None:
    token = mint_verification_token(SIGNER, token_id="v-1", expires_at=LATER, **FIELDS)
    verified = verify_verification_token(token, signer_public_key=SIGNER.public_key_hex(), now=NOW)
    assert verified.id == "v-1"
    assert verified.expires_at == LATER
    assert verified.public_key == FIELDS["public_key"]
    assert verified.claims == claims()
    header, payload, _ = token.split(".")
    assert base64.urlsafe_b64decode(header + "==") == b'{"typ":"JWT","alg":"ES256"}'
    assert list(json.loads(base64.urlsafe_b64decode(payload + "=="))) == [
        "exp",
        "id",
        "organization_id",
        "verification_type",
        "contact",
        "public_key",
    ]
    fresh = verify_verification_token(
        mint_verification_token(SIGNER, expires_at=LATER, **FIELDS),
        signer_public_key=SIGNER.public_key_bytes(),
        now=NOW,
    )
    assert len(fresh.id) == 36  # a random UUID when no id is given


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("", "TOKEN_MALFORMED"),
        ("a.b", "TOKEN_MALFORMED"),
        ("a.b.c.d", "TOKEN_MALFORMED"),
        ("é.b.c", "TOKEN_MALFORMED"),
        ("\ud800.b.c", "TOKEN_MALFORMED"),
        ("x" * 9000, "TOKEN_MALFORMED"),
        (sign(HEADER, claims()) + "=", "TOKEN_MALFORMED"),
        (sign({"typ": "JWT", "alg": "none"}, claims()), "TOKEN_ALGORITHM_NOT_ALLOWED"),
        (sign({"typ": "JWT", "alg": "HS256"}, claims()), "TOKEN_ALGORITHM_NOT_ALLOWED"),
        (sign({"typ": "JWT", "alg": "ES384"}, claims()), "TOKEN_ALGORITHM_NOT_ALLOWED"),
        (sign({"typ": "JWT"}, claims()), "TOKEN_ALGORITHM_NOT_ALLOWED"),
        (sign({"typ": "JOSE", "alg": "ES256"}, claims()), "TOKEN_TYPE_INVALID"),
        (sign({"alg": "ES256"}, claims()), "TOKEN_TYPE_INVALID"),
        (sign({**HEADER, "kid": "k"}, claims()), "TOKEN_HEADER_INVALID"),
        (sign({**HEADER, "jku": "https://x"}, claims()), "TOKEN_HEADER_INVALID"),
        (sign('{"typ":"JWT","alg":"ES256","alg":"ES256"}', claims()), "TOKEN_MALFORMED"),
        (sign("[1]", claims()), "TOKEN_MALFORMED"),
        (sign(HEADER, "[]"), "TOKEN_MALFORMED"),
        (sign(HEADER, '{"id":"a","id":"b"}'), "TOKEN_MALFORMED"),
        (sign(HEADER, '{"exp":NaN}'), "TOKEN_MALFORMED"),
        (sign(HEADER, claims(exp=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(id=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(public_key=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(organization_id=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(contact=1)), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(contact="")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(id=None) | {"id": ["x"]}), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(contact="\ud800")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=int(LATER.timestamp() * 1000))), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp="1e15")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp="-1")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=" 1893456000000")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp="01893456000000")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp="9" * 400)), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp="253402300800000")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp="1000")), "TOKEN_EXPIRED"),
        (sign(HEADER, claims(), OTHER), "TOKEN_SIGNATURE_INVALID"),
    ],
)
def test_refusals(token: str, code: str) -> None:
    assert code_of(token) == code


def test_signature_form_refusals() -> None:
    good = mint_verification_token(SIGNER, token_id="v-1", expires_at=LATER, **FIELDS)
    signing_input, signature = good.rsplit(".", 1)
    raw = base64.urlsafe_b64decode(signature + "==")
    # DER (the form cryptography writes) is not r || s.
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    assert code_of(f"{signing_input}.{b64(der)}") == "TOKEN_SIGNATURE_MALFORMED"
    assert code_of(f"{signing_input}.{b64(raw[:63])}") == "TOKEN_SIGNATURE_MALFORMED"
    assert code_of(f"{signing_input}.{b64(raw + b'0')}") == "TOKEN_SIGNATURE_MALFORMED"
    assert code_of(f"{signing_input}.") == "TOKEN_SIGNATURE_MALFORMED"
    # 64 bytes = 86 characters; the last carries 4 unused bits, which must be zero.
    last = signature[-1]
    twin = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    other = twin[twin.index(last) | 1]
    assert code_of(f"{signing_input}.{signature[:-1]}{other}") == "TOKEN_MALFORMED"
    # A flipped bit of the payload or of the signature.
    assert code_of(f"{signing_input}.{b64(bytes([raw[0] ^ 1]) + raw[1:])}") == (
        "TOKEN_SIGNATURE_INVALID"
    )
    # r || s with r = 0 or s = n: well-formed, never valid.
    n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    assert code_of(f"{signing_input}.{b64(bytes(32) + raw[32:])}") == "TOKEN_SIGNATURE_INVALID"
    assert code_of(f"{signing_input}.{b64(raw[:32] + n.to_bytes(32, 'big'))}") == (
        "TOKEN_SIGNATURE_INVALID"
    )


def test_expiry_boundary_is_exclusive() -> None:
    token = mint_verification_token(SIGNER, token_id="v", expires_at=LATER, **FIELDS)
    key = SIGNER.public_key_hex()
    verify_verification_token(token, signer_public_key=key, now=LATER - timedelta(milliseconds=1))
    assert code_of(token, now=LATER) == "TOKEN_EXPIRED"


def test_argument_types() -> None:
    token = mint_verification_token(SIGNER, token_id="v", expires_at=LATER, **FIELDS)
    with pytest.raises(TypeError):
        verify_verification_token(token.encode())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        verify_verification_token(token, now=datetime(2026, 1, 1))  # naive
    with pytest.raises(TypeError):
        mint_verification_token(SIGNER.private_key_bytes(), expires_at=LATER, **FIELDS)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        mint_verification_token(SIGNER, expires_at=datetime(2026, 1, 1), **FIELDS)
    with pytest.raises(TokenError) as caught:
        mint_verification_token(SIGNER, expires_at=LATER, **(FIELDS | {"contact": ""}))
    assert caught.value.code == "TOKEN_PARAMETERS_INVALID"
    with pytest.raises(TokenError) as caught:
        mint_verification_token(SIGNER, expires_at=LATER, **(FIELDS | {"contact": "\udc00"}))
    assert caught.value.code == "TOKEN_PARAMETERS_INVALID"
    before_epoch = datetime(1969, 12, 31, tzinfo=timezone.utc)
    with pytest.raises(TokenError) as caught:
        mint_verification_token(SIGNER, expires_at=before_epoch, **FIELDS)
    assert caught.value.code == "TOKEN_PARAMETERS_INVALID"


# ---------------------------------------------------------------- properties, PyJWT as oracle

text = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40)
instants = st.integers(min_value=0, max_value=253_402_300_799_999).map(
    lambda ms: datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
)


def _pyjwt_key(pair: ewc.KeyPair) -> ec.EllipticCurvePublicKey:
    return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), pair.public_key_bytes())


@settings(max_examples=60)
@given(
    verification_type=text,
    contact=text,
    organization_id=text,
    public_key=text,
    token_id=text,
    expires_at=instants,
)
def test_minted_tokens_verify_with_pyjwt_and_ours(
    verification_type: str,
    contact: str,
    organization_id: str,
    public_key: str,
    token_id: str,
    expires_at: datetime,
) -> None:
    fields = {
        "verification_type": verification_type,
        "contact": contact,
        "organization_id": organization_id,
        "public_key": public_key,
    }
    token = mint_verification_token(SIGNER, token_id=token_id, expires_at=expires_at, **fields)
    decoded = jwt.api_jwt.decode_complete(
        token, _pyjwt_key(SIGNER), algorithms=["ES256"], options={"verify_exp": False}
    )
    assert decoded["header"] == {"typ": "JWT", "alg": "ES256"}
    whole_ms = expires_at.replace(microsecond=expires_at.microsecond // 1000 * 1000)
    assert decoded["payload"] == {
        "exp": str((whole_ms - EPOCH) // timedelta(milliseconds=1)),
        "id": token_id,
        **fields,
    }
    before = whole_ms - timedelta(milliseconds=1)
    if before.year >= 1970:
        ours = verify_verification_token(
            token, signer_public_key=SIGNER.public_key_hex(), now=before
        )
        assert ours.claims == decoded["payload"]
        assert ours.expires_at == whole_ms
    assert code_of(token, now=whole_ms) == "TOKEN_EXPIRED"
    assert code_of(token, OTHER.public_key_hex()) == "TOKEN_SIGNATURE_INVALID"


@settings(max_examples=40)
@given(payload=st.dictionaries(text, st.one_of(text, st.integers(), st.none()), max_size=6))
@example(payload={"iss": None})  # the seeded CI profile found it: PyJWT refuses to mint it
@example(payload={"iss": "https://issuer.example"})
def test_pyjwt_minted_tokens_are_read_the_same(payload: dict[str, Any]) -> None:
    """Tokens PyJWT signs (DER converted to r || s by PyJWT itself): ours agrees with PyJWT
    on the signature, and accepts exactly the payloads that carry the required claims."""
    from cryptography.hazmat.primitives import serialization

    private = serialization.load_der_private_key(_pkcs8(SIGNER.private_key_bytes()), password=None)
    full = {**claims(), **payload}
    # PyJWT's encode refuses a non-string "iss" (TypeError), so it cannot mint that token.
    assume(isinstance(full.get("iss", ""), str))
    token = jwt.encode(full, private, algorithm="ES256", headers={"typ": "JWT"})
    try:
        verified = verify_verification_token(
            token, signer_public_key=SIGNER.public_key_hex(), now=NOW
        )
    except TokenError as error:
        # A JSON integer longer than the strict reader's digit cap is refused as malformed.
        huge = any(
            isinstance(v, int) and len(str(abs(v))) > _strict_json._MAX_INT_DIGITS
            for v in full.values()
        )
        allowed = {"TOKEN_CLAIM_INVALID", "TOKEN_EXPIRED"} | (
            {"TOKEN_MALFORMED"} if huge else set()
        )
        assert error.code in allowed, error.code
    else:
        assert verified.claims == full


def _pkcs8(scalar: bytes) -> bytes:
    from cryptography.hazmat.primitives import serialization

    key = ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
