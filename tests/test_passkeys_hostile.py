"""Hostile input to ewc.passkeys: whatever arrives, the answer is a PasskeyError, never another
exception (the error contract (docs/reference/errors.md)."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import cbor2
import embedded_wallet_crypto as ewc
import pytest
from _webauthn_helpers import b64url, mutated_field
from embedded_wallet_crypto import passkeys
from embedded_wallet_crypto.passkeys import _codec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

RP_ID, ORIGIN, CHALLENGE = "localhost", "http://localhost", b"hostile-challenge"
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
AUTHENTICATOR = passkeys.SoftwareAuthenticator(attestation="packed")
ATTESTATION = AUTHENTICATOR.register(rp_id=RP_ID, origin=ORIGIN, challenge=CHALLENGE)
ASSERTION = AUTHENTICATOR.authenticate(rp_id=RP_ID, origin=ORIGIN, challenge=CHALLENGE)


SKIP = object()


def only_passkey_errors(attestation: Any = SKIP, assertion: Any = SKIP) -> str:
    """Run the verifiers given input; return the code (or "ok"); anything else fails the test."""
    try:
        if attestation is not SKIP:
            passkeys.verify_registration(
                attestation, expected_challenge=CHALLENGE, rp_id=RP_ID, origin=ORIGIN
            )
        if assertion is not SKIP:
            passkeys.verify_assertion(
                assertion,
                credential_public_key=AUTHENTICATOR.public_key,
                expected_challenge=CHALLENGE,
                rp_id=RP_ID,
                origin=ORIGIN,
                current_sign_count=0,
            )
    except ewc.PasskeyError as error:
        assert error.code in passkeys.CODES
        assert error.status == passkeys.CODES[error.code]
        return error.code
    return "ok"


DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_CBOR = b"\x81" * 10_000 + b"\x00"
NON_MAP_CBOR = [cbor2.dumps(v) for v in (0, -1, "fmt", b"authData", [1, 2], None, True, 1.5)]


@pytest.mark.parametrize(
    "value",
    [None, 1, 1.5, [], "", "{", DEEP_JSON, '{"a":' * 5000, b"\xff", "null", "[1]"],
)
def test_top_level_values(value: Any) -> None:
    code = only_passkey_errors(attestation=value)
    assert code == "PASSKEY_CREDENTIAL_MALFORMED"
    assert only_passkey_errors(assertion=value) == "PASSKEY_CREDENTIAL_MALFORMED"


@pytest.mark.parametrize("raw", [*NON_MAP_CBOR, b"", b"\xa1", DEEP_CBOR, b"\xd8\x23\x61\x61"])
def test_attestation_object_not_a_map(raw: bytes) -> None:
    code = only_passkey_errors(attestation={**ATTESTATION, "attestationObject": b64url(raw)})
    assert code == "PASSKEY_ATTESTATION_MALFORMED"


@pytest.mark.parametrize(
    "client_data",
    [DEEP_JSON.encode(), b"\xff\xfe", b'{"type":"webauthn.get","type":"x"}', b"1e999999", b"[]"],
)
def test_client_data_json_malformed(client_data: bytes) -> None:
    code = only_passkey_errors(assertion={**ASSERTION, "clientDataJson": b64url(client_data)})
    assert code == "PASSKEY_CLIENT_DATA_MALFORMED"


@pytest.mark.parametrize("text", ["a", "ab=c", "abc==", "ab c", "ab\n", "ab===", "é", "a" * 2**21])
def test_bad_base64url(text: str) -> None:
    for field in ("credentialId", "clientDataJson", "authenticatorData"):
        code = only_passkey_errors(assertion={**ASSERTION, field: text})
        assert code == "PASSKEY_CREDENTIAL_MALFORMED", (field, text[:10])
    assert only_passkey_errors(assertion={**ASSERTION, "signature": text}) == (
        "PASSKEY_SIGNATURE_INVALID"
    )


def test_cbor_tags_and_huge_lengths_in_the_credential_key() -> None:
    auth_data = base64.urlsafe_b64decode(ATTESTATION["attestationObject"] + "==")
    obj = cbor2.loads(auth_data)
    header = obj["authData"][: 37 + 16 + 2 + 32]
    for key in (b"\xc1\x1a\x00\x00\x00\x00", b"\x5b" + b"\xff" * 8, b"\xa1\x01", DEEP_CBOR):
        obj["authData"] = header + key
        attestation = {**ATTESTATION, "attestationObject": b64url(cbor2.dumps(obj))}
        assert only_passkey_errors(attestation=attestation) == (
            "PASSKEY_AUTHENTICATOR_DATA_MALFORMED"
        )


def test_cbor_prefix_reports_where_the_item_ends() -> None:
    """authData's credential key is followed by extensions: the decoder must stop exactly."""
    key = AUTHENTICATOR.public_key
    for padding in (0, 1, 5000):
        data = b"\x00" * padding + key + b"\xa1\x01\x02"
        value, end = _codec.cbor_decode_prefix(data, padding, "key", "PASSKEY_PUBLIC_KEY_INVALID")
        assert isinstance(value, dict) and end == padding + len(key)
    stream = io.BytesIO(key)
    assert cbor2.CBORDecoder(stream).decode() == cbor2.loads(key)


def _mutations(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    fields = st.sampled_from(sorted(base))
    junk = st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=60),
        st.binary(max_size=80).map(b64url),
        st.lists(st.text(max_size=5), max_size=3),
        st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    )
    return st.dictionaries(fields, junk, max_size=4).map(lambda changes: {**base, **changes})


@SETTINGS
@given(attestation=_mutations(ATTESTATION), assertion=_mutations(ASSERTION))
def test_random_fields_only_raise_passkey_errors(
    attestation: dict[str, Any], assertion: dict[str, Any]
) -> None:
    only_passkey_errors(attestation=attestation)
    only_passkey_errors(assertion=assertion)


@SETTINGS
@given(
    attestation=st.one_of(
        mutated_field(ATTESTATION, "attestationObject"),
        mutated_field(ATTESTATION, "clientDataJson"),
    ),
    assertion=st.one_of(
        *(mutated_field(ASSERTION, f) for f in ("authenticatorData", "clientDataJson", "signature"))
    ),
)
def test_mutated_bytes_only_raise_passkey_errors(
    attestation: dict[str, Any], assertion: dict[str, Any]
) -> None:
    only_passkey_errors(attestation=attestation)
    only_passkey_errors(assertion=assertion)


def test_standard_form_shape_errors() -> None:
    standard = {"id": ASSERTION["credentialId"], "rawId": ASSERTION["credentialId"]}
    for broken in (
        {**standard, "type": "public-key", "response": []},
        {**standard, "type": "other", "response": {}},
        {**standard, "rawId": b64url(b"x"), "type": "public-key", "response": {}},
        {"id": 5, "type": "public-key", "response": {}},
    ):
        assert only_passkey_errors(assertion=broken) == "PASSKEY_CREDENTIAL_MALFORMED"
        assert only_passkey_errors(attestation=json.dumps(broken)) == (
            "PASSKEY_CREDENTIAL_MALFORMED"
        )
