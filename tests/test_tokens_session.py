"""Session JWTs (formats.md section 14) through ``ewc.tokens``: the upstream known answer
(../shared/upstream-vectors/turnkey-sdk/session_jwt.json), the refusals with their codes, and
mint/verify properties with PyJWT (decoding) and ``cryptography`` (the double-hash P-256
signature) as the independent oracle."""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import datetime, timedelta, timezone
from typing import Any

import embedded_wallet_crypto as ewc
import jwt
import pytest
from conftest import load_upstream_json, report_counts
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    Prehashed,
    decode_dss_signature,
    encode_dss_signature,
)
from embedded_wallet_crypto.tokens import (
    NOTARIZER_PUBLIC_KEY,
    TokenError,
    mint_session_jwt,
    verify_session_jwt,
)
from hypothesis import given, settings
from hypothesis import strategies as st

VECTORS = "turnkey-sdk/session_jwt.json"
NOTARIZER = ewc.KeyPair.from_private_hex("33" * 32)
OTHER = ewc.KeyPair.from_private_hex("44" * 32)
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
LATER = NOW + timedelta(hours=1)
FIELDS = {
    "public_key": OTHER.public_key_hex(compressed=True),
    "user_id": "user-1",
    "organization_id": "org-1",
    "session_type": "SESSION_TYPE_READ_WRITE",
}
HEADER = {"alg": "ES256", "typ": "JWT"}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(header: Any, claims: Any, key: ewc.KeyPair = NOTARIZER, *, double: bool = True) -> str:
    """A session JWT built here: the notarizer's double hash (or, ``double=False``, ES256)."""

    def part(value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        return b64(text.encode())

    signing_input = f"{part(header)}.{part(claims)}".encode()
    message = hashlib.sha256(signing_input).digest() if double else signing_input
    r, s = decode_dss_signature(key.sign(message))
    return f"{signing_input.decode()}.{b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def claims(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"exp": int(LATER.timestamp()), **FIELDS}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def code_of(token: str, key: Any = None, now: datetime = NOW) -> str:
    with pytest.raises(TokenError) as caught:
        verify_session_jwt(token, notarizer_public_key=key or NOTARIZER.public_key_hex(), now=now)
    assert caught.value.status == 401
    return caught.value.code


@pytest.mark.upstream
def test_upstream_session_jwt() -> None:
    document = load_upstream_json(VECTORS)
    assert document["notarizer_public_key"]["value"] == NOTARIZER_PUBLIC_KEY
    cases = {case["id"]: case for case in document["cases"]}
    valid = cases["session-jwt-valid"]
    payload = valid["derived"]["payload"]
    expires = EPOCH + timedelta(seconds=payload["exp"])
    session = verify_session_jwt(valid["input"]["jwt"], now=expires - timedelta(seconds=1))
    assert (session.public_key, session.user_id) == (payload["public_key"], payload["user_id"])
    assert (session.organization_id, session.session_type) == (
        payload["organization_id"],
        payload["session_type"],
    )
    assert session.expires_at == expires
    assert session.claims == payload
    # Upstream checks the signature only; its exp has passed, which is TOKEN_EXPIRED here.
    assert code_of(valid["input"]["jwt"], NOTARIZER_PUBLIC_KEY, now=expires) == "TOKEN_EXPIRED"
    # The same bytes are not a standard ES256 token.
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(
            valid["input"]["jwt"],
            ec.EllipticCurvePublicKey.from_encoded_point(
                ec.SECP256R1(), bytes.fromhex(NOTARIZER_PUBLIC_KEY)
            ),
            algorithms=["ES256"],
            options={"verify_exp": False},
        )
    checked = 1
    for case_id in (
        "session-jwt-go-too-few-parts",
        "session-jwt-go-too-many-parts",
        "session-jwt-go-invalid-base64-signature",
        "session-jwt-go-empty",
    ):
        assert code_of(cases[case_id]["input"]["jwt"], NOTARIZER_PUBLIC_KEY) == "TOKEN_MALFORMED"
        checked += 1
    with pytest.raises(ewc.InvalidKey):
        verify_session_jwt(
            valid["input"]["jwt"],
            notarizer_public_key=cases["session-jwt-go-invalid-key-hex"]["input"][
                "notarizer_public_key"
            ],
        )
    checked += 1
    assert checked == len(document["cases"])
    report_counts("upstream session jwt", cases=checked)


def test_round_trip_and_bytes() -> None:
    token = mint_session_jwt(NOTARIZER, expires_at=LATER, **FIELDS)
    session = verify_session_jwt(token, notarizer_public_key=NOTARIZER.public_key_bytes(), now=NOW)
    assert session.expires_at == LATER
    assert session.claims == claims()
    header, payload, _ = token.split(".")
    assert header == "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9"
    assert list(json.loads(base64.urlsafe_b64decode(payload + "=="))) == [
        "exp",
        "public_key",
        "session_type",
        "user_id",
        "organization_id",
    ]


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("", "TOKEN_MALFORMED"),
        ("a.b.c.d", "TOKEN_MALFORMED"),
        ("x" * 9000, "TOKEN_MALFORMED"),
        ("a\udc00.b.c", "TOKEN_MALFORMED"),
        (sign({"alg": "none", "typ": "JWT"}, claims()), "TOKEN_ALGORITHM_NOT_ALLOWED"),
        (sign({"alg": "HS256", "typ": "JWT"}, claims()), "TOKEN_ALGORITHM_NOT_ALLOWED"),
        (sign({"alg": "ES256", "typ": "at+jwt"}, claims()), "TOKEN_TYPE_INVALID"),
        (sign({**HEADER, "crit": ["b64"]}, claims()), "TOKEN_HEADER_INVALID"),
        (sign(HEADER, claims(), double=False), "TOKEN_SIGNATURE_INVALID"),
        (sign(HEADER, claims(), OTHER), "TOKEN_SIGNATURE_INVALID"),
        (sign(HEADER, '{"exp":1,"exp":2}'), "TOKEN_MALFORMED"),
        (sign(HEADER, claims(exp=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(user_id=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(session_type=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(public_key=None)), "TOKEN_CLAIM_MISSING"),
        (sign(HEADER, claims(organization_id=7)), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(user_id="\ud800")), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=str(int(LATER.timestamp())))), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=float(int(LATER.timestamp())))), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=True)), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=-1)), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=253_402_300_800)), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=10**60)), "TOKEN_CLAIM_INVALID"),
        # exp written in milliseconds reads as a year past 9999
        (sign(HEADER, claims(exp=int(LATER.timestamp() * 1000))), "TOKEN_CLAIM_INVALID"),
        (sign(HEADER, claims(exp=int(NOW.timestamp()))), "TOKEN_EXPIRED"),
    ],
)
def test_refusals(token: str, code: str) -> None:
    assert code_of(token) == code


def test_signature_form_and_arguments() -> None:
    token = mint_session_jwt(NOTARIZER, expires_at=LATER, **FIELDS)
    signing_input, signature = token.rsplit(".", 1)
    raw = base64.urlsafe_b64decode(signature + "==")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    assert code_of(f"{signing_input}.{b64(der)}") == "TOKEN_SIGNATURE_MALFORMED"
    assert code_of(f"{signing_input}.{b64(raw[:-1])}") == "TOKEN_SIGNATURE_MALFORMED"
    assert code_of(f"{signing_input}.{signature}AAA") == "TOKEN_MALFORMED"  # 89 characters
    with pytest.raises(TypeError):
        verify_session_jwt(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        verify_session_jwt(token, now=1767225600)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        mint_session_jwt("signer", expires_at=LATER, **FIELDS)  # type: ignore[arg-type]
    with pytest.raises(TokenError) as caught:
        mint_session_jwt(NOTARIZER, expires_at=LATER, **(FIELDS | {"user_id": ""}))
    assert caught.value.code == "TOKEN_PARAMETERS_INVALID"


text = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40)
seconds = st.integers(min_value=0, max_value=253_402_300_799)


@settings(max_examples=60)
@given(
    public_key=text,
    user_id=text,
    organization_id=text,
    session_type=text,
    exp=seconds,
    micros=st.integers(0, 999_999),
)
def test_minted_session_jwts_match_the_oracle(
    public_key: str, user_id: str, organization_id: str, session_type: str, exp: int, micros: int
) -> None:
    fields = {
        "public_key": public_key,
        "user_id": user_id,
        "organization_id": organization_id,
        "session_type": session_type,
    }
    expires_at = EPOCH + timedelta(seconds=exp, microseconds=micros)
    token = mint_session_jwt(NOTARIZER, expires_at=expires_at, **fields)
    # The oracle: PyJWT decodes (no signature check: it is not ES256), cryptography verifies
    # the r || s signature over SHA-256(SHA-256(signing input)).
    decoded = jwt.api_jwt.decode_complete(token, options={"verify_signature": False})
    assert decoded["header"] == HEADER
    assert decoded["payload"] == {"exp": exp, **fields}
    signing_input, signature = token.rsplit(".", 1)
    raw = base64.urlsafe_b64decode(signature + "==")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    digest = hashlib.sha256(hashlib.sha256(signing_input.encode()).digest()).digest()
    public = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), NOTARIZER.public_key_bytes()
    )
    public.verify(der, digest, ec.ECDSA(Prehashed(hashes.SHA256())))
    with pytest.raises(InvalidSignature):
        public.verify(
            der,
            hashlib.sha256(signing_input.encode()).digest(),
            ec.ECDSA(Prehashed(hashes.SHA256())),
        )
    expires = EPOCH + timedelta(seconds=exp)
    if exp > 0:
        ours = verify_session_jwt(
            token,
            notarizer_public_key=NOTARIZER.public_key_hex(),
            now=expires - timedelta(seconds=1),
        )
        assert ours.claims == decoded["payload"]
        assert ours.expires_at == expires
    assert code_of(token, now=expires) == "TOKEN_EXPIRED"
    assert code_of(token, OTHER.public_key_hex()) == "TOKEN_SIGNATURE_INVALID"
