"""Hostile and malformed ID tokens give OidcError and nothing else; differential against PyJWT."""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import datetime, timezone
from typing import Any
from unittest import mock

import embedded_wallet_crypto as ewc
import jwt
import pytest
from _oidc_helpers import (
    AUDIENCE,
    CLIENT_PUBLIC_KEY,
    ES_KID,
    ES_LABEL,
    ISSUER,
    JWKS,
    NOW_TS,
    OTHER_ES_LABEL,
    claims,
    code_of,
    es256,
    rs256,
    unsigned,
    verify,
)
from embedded_wallet_crypto.vectors.generate import _reference as ref
from embedded_wallet_crypto.vectors.generate._common import key
from embedded_wallet_crypto.vectors.generate._jwt_mint import b64url, segment
from hypothesis import given, settings
from hypothesis import strategies as st

MALFORMED = "OIDC_TOKEN_MALFORMED"


def _signed_raw(payload: bytes, header: dict[str, Any] | None = None) -> str:
    """An ES256 token over arbitrary payload bytes, correctly signed by the issuer's key."""
    head = segment(header or {"alg": "ES256", "kid": ES_KID})
    signing_input = f"{head}.{b64url(payload)}"
    r, s = ref.sign_deterministic(key(ES_LABEL)[0], signing_input.encode())
    return f"{signing_input}.{b64url(ref.int32(r) + ref.int32(s))}"


VALID = es256()
HEAD, BODY, SIG = VALID.split(".")


@pytest.mark.parametrize(
    "token",
    [
        "",
        ".",
        "..",
        f"{HEAD}.{BODY}",  # two segments
        f"{HEAD}.{BODY}.{SIG}.{SIG}",  # four
        f"{HEAD}.{BODY}.",  # empty signature
        f".{BODY}.{SIG}",
        f"{HEAD}..{SIG}",
        f"{HEAD}!.{BODY}.{SIG}",  # bad base64 in each segment
        f"{HEAD}.{BODY}*.{SIG}",
        f"{HEAD}.{BODY}.{SIG}%",
        f"{HEAD}.{BODY}.{SIG}=",  # padding
        f"{HEAD}.{BODY}.{SIG[:-1]}",  # a length of 4n+1
        f"{HEAD}.{BODY.replace('-', '+').replace('_', '/')}x.{SIG}",  # standard alphabet
        f"{HEAD} .{BODY}.{SIG}",
        f"{HEAD}.{BODY}.{SIG}\n",
        f"{HEAD}\u00e9.{BODY}.{SIG}",  # non-ASCII
        f"{b64url(b'not json')}.{BODY}.{SIG}",
        f"{b64url(b'[1,2]')}.{BODY}.{SIG}",
        f"{b64url(bytes([0xFF, 0xFE]))}.{BODY}.{SIG}",
        f"{HEAD}.{b64url(b'null')}.{SIG}",
        f"{HEAD}.{b64url(b'{')}.{SIG}",
        "A" * (ewc.oidc.MAX_TOKEN_LENGTH + 1),
        "x" * 10_000_000,  # huge: refused by its length before any parsing
    ],
)
def test_malformed_tokens(token: str) -> None:
    assert code_of(token) == MALFORMED


def test_non_canonical_base64_is_refused() -> None:
    # The last character of a 64-byte segment carries 4 unused bits: set the lowest one.
    last = SIG[-1]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    twin = alphabet[alphabet.index(last) ^ 1]  # 64 bytes: 86 chars, the last has unused bits
    assert code_of(f"{HEAD}.{BODY}.{SIG[:-1]}{twin}") == MALFORMED


@pytest.mark.parametrize("token", [None, 42, 1.5, ["a.b.c"], {"token": VALID}, b"\xff.a.b"])
def test_non_text_tokens(token: Any) -> None:
    assert code_of(token) == MALFORMED


def test_token_as_ascii_bytes_is_accepted() -> None:
    assert verify(VALID.encode()).subject
    assert verify(bytearray(VALID.encode())).subject


@pytest.mark.parametrize(
    "payload",
    [
        b"[" * 20_000 + b"]" * 20_000,  # deep nesting: RecursionError inside json
        b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
        b'{"iat": NaN}',
        b'{"exp": Infinity}',
        b'{"iat": -Infinity}',
        b'{"iat": ' + b"9" * 20_000 + b"}",  # a huge integer (CPython's digit limit)
        b"\xc3\x28",  # invalid UTF-8
    ],
)
def test_hostile_payloads_give_oidc_error_only(payload: bytes) -> None:
    token = _signed_raw(payload)
    if len(token) > ewc.oidc.MAX_TOKEN_LENGTH:
        token = _signed_raw(payload[:10_000])
    assert code_of(token) == MALFORMED


def test_a_number_that_overflows_is_malformed() -> None:
    """``1e999`` would decode to infinity: the strict decoder refuses it as it refuses
    ``Infinity`` itself, the same verdict every other family's JSON reader gives."""
    payload = json.dumps(claims()).replace(f'"exp": {NOW_TS + 3590}', '"exp": 1e999')
    assert "1e999" in payload
    assert code_of(_signed_raw(payload.encode())) == MALFORMED


def _signed_texts(header: str, payload: str) -> str:
    """An ES256 token over a header and a payload given as JSON text, correctly signed."""
    signing_input = f"{b64url(header.encode())}.{b64url(payload.encode())}"
    r, s = ref.sign_deterministic(key(ES_LABEL)[0], signing_input.encode())
    return f"{signing_input}.{b64url(ref.int32(r) + ref.int32(s))}"


def _repeated(member: str, first: Any, document: dict[str, Any]) -> str:
    """``document`` as JSON text with ``member`` written twice: ``first``, then its own value.
    ``json.loads`` keeps the last; a reader that keeps the first sees ``first``."""
    rest = json.dumps({k: v for k, v in document.items() if k != member})
    return f"{{{json.dumps(member)}: {json.dumps(first)}, {json.dumps(member)}: " + (
        f"{json.dumps(document[member])}, {rest[1:]}"
    )


HEADER = {"alg": "ES256", "kid": ES_KID, "typ": "JWT"}


def test_the_token_parts_parse_as_expected() -> None:
    """The control for the two tests below: the same texts without a repeat verify."""
    assert verify(_signed_texts(json.dumps(HEADER), json.dumps(claims()))).subject


@pytest.mark.parametrize(("member", "first"), [("alg", "none"), ("kid", "other"), ("typ", "x")])
def test_a_repeated_header_member_is_malformed(member: str, first: str) -> None:
    header = _repeated(member, first, HEADER)
    assert json.loads(header) == HEADER  # a lenient reader would accept this header
    assert code_of(_signed_texts(header, json.dumps(claims()))) == MALFORMED


@pytest.mark.parametrize(
    ("member", "first"),
    [("sub", "attacker"), ("aud", "another-client"), ("nonce", "0" * 64), ("exp", NOW_TS)],
)
def test_a_repeated_claim_is_malformed(member: str, first: Any) -> None:
    payload = _repeated(member, first, claims())
    assert json.loads(payload) == claims()
    assert code_of(_signed_texts(json.dumps(HEADER), payload)) == MALFORMED


def test_hostile_headers() -> None:
    assert code_of(es256(kid=123)) == MALFORMED
    assert code_of(es256(kid={"$ref": "x"})) == MALFORMED
    assert code_of(es256(kid="x" * 10_000)) == "OIDC_KEY_NOT_FOUND"
    assert code_of(es256(b64=False, crit=["b64"])) == MALFORMED


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_random_text_gives_oidc_error_only(text: str) -> None:
    with pytest.raises(ewc.OidcError):
        verify(text)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(VALID) - 1), st.sampled_from("AZaz09-_.=+/ !\u00e9"))
def test_one_character_changed_never_verifies(index: int, replacement: str) -> None:
    token = VALID[:index] + replacement + VALID[index + 1 :]
    if token == VALID:
        return
    try:
        identity = verify(token)
    except ewc.OidcError:
        return
    # Only a change inside the header's or payload's unused base64 bits could survive, and the
    # strict decoder refuses those: anything that verifies must mean the same claims.
    assert identity.claims == claims()


# --- differential: the same verdicts as PyJWT with the same rules ------------------------------


class _FrozenDatetime(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> Any:
        return datetime.fromtimestamp(NOW_TS, tz or timezone.utc)


def _pyjwt_accepts(token: str, client_public_key: str) -> bool:
    """A careful PyJWT verifier: kid lookup, RS256/ES256, aud, iss, exp, then iat age/skew and
    the nonce by hand (PyJWT has no max-age or nonce rule)."""
    try:
        header = jwt.get_unverified_header(token)
        jwk = next(k for k in JWKS["keys"] if k["kid"] == header.get("kid"))
        if jwk["alg"] != header.get("alg"):
            return False
        with mock.patch("jwt.api_jwt.datetime", _FrozenDatetime):
            decoded = jwt.decode(
                token,
                jwt.PyJWK(jwk).key,
                algorithms=["RS256", "ES256"],
                audience=AUDIENCE,
                issuer=list(ewc.oidc.DEFAULT_ISSUERS),
                options={"require": ["exp", "iat", "iss", "aud", "sub"], "verify_iat": False},
            )
    except (jwt.PyJWTError, StopIteration):
        return False
    iat = decoded["iat"]
    nonce = hashlib.sha256(client_public_key.encode()).hexdigest()
    return (
        isinstance(iat, (int, float))
        and NOW_TS - 60 <= iat <= NOW_TS + 5
        and decoded.get("nonce") == nonce
        and isinstance(decoded["sub"], str)
        and decoded["sub"] != ""
    )


@settings(max_examples=200, deadline=None)
@given(
    iat_offset=st.integers(-120, 30),
    exp_offset=st.integers(-30, 3600),
    aud=st.sampled_from([AUDIENCE, "other", [AUDIENCE, "other"], ["other"]]),
    iss=st.sampled_from([ISSUER, "accounts.google.com", "https://evil.example"]),
    signer=st.sampled_from(["es", "rs", "es-other-key"]),
    bound=st.booleans(),
)
def test_same_verdict_as_pyjwt(
    iat_offset: int, exp_offset: int, aud: Any, iss: str, signer: str, bound: bool
) -> None:
    nonce = hashlib.sha256(CLIENT_PUBLIC_KEY.encode()).hexdigest() if bound else "unbound"
    claim_set = claims(iat=NOW_TS + iat_offset, exp=NOW_TS + exp_offset, aud=aud, iss=iss)
    claim_set["nonce"] = nonce
    if signer == "rs":
        token = rs256(claim_set)
    else:
        token = es256(claim_set, label=ES_LABEL if signer == "es" else OTHER_ES_LABEL)
    try:
        verify(token, client_public_key=CLIENT_PUBLIC_KEY)
        ours = True
    except ewc.OidcError:
        ours = False
    assert ours == _pyjwt_accepts(token, CLIENT_PUBLIC_KEY)


def test_pyjwt_oracle_accepts_a_good_token() -> None:
    assert _pyjwt_accepts(es256(), CLIENT_PUBLIC_KEY)
    assert not _pyjwt_accepts(unsigned({"alg": "none"}, claims(), ""), CLIENT_PUBLIC_KEY)
    assert base64.urlsafe_b64decode(BODY + "==")


def test_pyjwt_segments_are_decoded_by_the_strict_decoder() -> None:
    """The speed-up hook of ``_jws._StrictJWS`` is in effect: PyJWT alone accepts a padded
    segment, the JWS the library verifies with does not (a PyJWT upgrade that stops calling the
    hook would make this fail, and only cost speed)."""
    from embedded_wallet_crypto.oidc import _jws

    padded = f"{HEAD}.{BODY}.{SIG}=="[: len(VALID) + 2]
    assert jwt.PyJWS()._load(padded)
    with pytest.raises(jwt.DecodeError):
        _jws._JWS._load(padded)
