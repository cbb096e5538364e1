"""The one key-text helper, the one key comparison and the one strict JSON-object reader, and
the callers that once wrote each of them again (stamps, signed retry, passkeys, OIDC, webhooks).
"""

from __future__ import annotations

import json
from typing import Any

import embedded_wallet_crypto as ewc
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from embedded_wallet_crypto import _strict_json, passkeys
from embedded_wallet_crypto.keys import key_text, same_public_key
from embedded_wallet_crypto.signed_retry import Operation, SignedRetry

KEY = ewc.hpke.derive_key_pair(b"key and json helpers, client key")
OTHER = ewc.hpke.derive_key_pair(b"key and json helpers, other key!")
UNCOMPRESSED = KEY.public_key_hex()
COMPRESSED = KEY.public_key_hex(compressed=True)
OFF_CURVE = "04" + "00" * 64


def _encodings(key: ewc.KeyPair) -> list[Any]:
    """Every way a caller may hand over ``key``: hex (either case) or bytes, either form."""
    uncompressed, compressed = key.public_key_hex(), key.public_key_hex(compressed=True)
    return [
        uncompressed,
        uncompressed.upper(),
        compressed,
        compressed.upper(),
        bytes.fromhex(uncompressed),
        bytearray.fromhex(compressed),
        memoryview(bytes.fromhex(compressed)),
    ]


# --- keys.key_text --------------------------------------------------------------------------


@pytest.mark.parametrize("given", _encodings(KEY))
def test_key_text_is_the_key_as_given_in_lowercase_hex(given: Any) -> None:
    expected = given.lower() if isinstance(given, str) else bytes(given).hex()
    assert key_text(given) == expected
    assert len(key_text(given)) in (66, 130)  # the encoding the caller chose is kept


@pytest.mark.parametrize("bad", [OFF_CURVE, "04zz", "", " " + COMPRESSED, b"\x04" + b"\x00" * 64])
def test_key_text_validates_first(bad: Any) -> None:
    with pytest.raises(ewc.InvalidKey):
        key_text(bad)


@pytest.mark.parametrize("wrong", [None, 5, ["04"]])
def test_key_text_of_a_wrong_type_is_a_type_error(wrong: Any) -> None:
    with pytest.raises(TypeError):
        key_text(wrong)


# --- keys.same_public_key -------------------------------------------------------------------


@pytest.mark.parametrize("a", _encodings(KEY))
@pytest.mark.parametrize("b", _encodings(KEY))
def test_same_key_in_any_encoding(a: Any, b: Any) -> None:
    assert same_public_key(a, b)


@pytest.mark.parametrize("a", _encodings(KEY))
@pytest.mark.parametrize("b", _encodings(OTHER))
def test_other_key_in_any_encoding(a: Any, b: Any) -> None:
    assert not same_public_key(a, b)
    assert not same_public_key(b, a)


@pytest.mark.parametrize("bad", [OFF_CURVE, OFF_CURVE.upper(), "04zz", "", "x" * 10_000])
def test_a_malformed_key_is_never_the_same(bad: str) -> None:
    """Not even as the very same text: equal text spares a parse, never the validation."""
    assert not same_public_key(bad, bad)
    assert not same_public_key(bad, UNCOMPRESSED)
    assert not same_public_key(UNCOMPRESSED, bad)
    assert not same_public_key(bytes.fromhex(OFF_CURVE), OFF_CURVE)


@pytest.mark.parametrize("wrong", [None, 5, 10**9, ["04"]])
def test_same_public_key_of_a_wrong_type_is_a_type_error(wrong: Any) -> None:
    with pytest.raises(TypeError):
        same_public_key(UNCOMPRESSED, wrong)
    with pytest.raises(TypeError):
        same_public_key(wrong, UNCOMPRESSED)


def test_same_public_key_of_a_released_memoryview_is_a_type_error() -> None:
    # The second key's text was read before its parse: a released view raised ValueError.
    for position in (0, 1):
        view = memoryview(bytes.fromhex(UNCOMPRESSED))
        view.release()
        keys: list[Any] = [UNCOMPRESSED, UNCOMPRESSED]
        keys[position] = view
        with pytest.raises(TypeError):
            same_public_key(*keys)


# --- the callers -----------------------------------------------------------------------------


def test_session_body_keeps_the_encoding_of_a_bytes_key() -> None:
    """A compressed key given as bytes stays compressed (formats.md section 2: the form selects
    the flow); the body once held the uncompressed form of bytes input."""
    for given in (bytes.fromhex(COMPRESSED), bytes.fromhex(UNCOMPRESSED), COMPRESSED.upper()):
        body = passkeys.session_creation_body(
            client_public_key=given,
            request_id="Request:1",
            organization_id="org-1",
            account_id="a1",
            timestamp_ms=1,
        )
        assert json.loads(body)["parameters"]["targetPublicKey"] == key_text(given)


def test_payload_binding_refuses_a_malformed_client_key_even_as_the_same_text() -> None:
    payload = json.dumps({"parameters": {"targetPublicKey": OFF_CURVE}})
    with pytest.raises(ewc.InvalidKey):
        ewc.check_payload_binding(payload, OFF_CURVE)


def test_payload_binding_reads_text_with_a_lone_surrogate_as_a_mismatch() -> None:
    payload = '{"parameters":{"targetPublicKey":"\ud800"}}'
    with pytest.raises(ewc.StampError) as raised:
        ewc.check_payload_binding(payload, UNCOMPRESSED)
    assert raised.value.code == "PAYLOAD_KEY_MISMATCH"


@pytest.mark.parametrize("operation", [Operation.EXPORT_WALLET, Operation.REFRESH_SESSION])
def test_issue_takes_a_target_key_in_the_other_encoding(operation: Operation) -> None:
    """``parameters.targetPublicKey`` and ``bound_client_public_key`` name the same key in two
    encodings: not a difference; the payload binds the key as bound."""
    parameters = {"targetPublicKey": COMPRESSED.upper()}
    if operation is Operation.EXPORT_WALLET:
        parameters["walletId"] = "w"
    challenge = SignedRetry().issue(
        account_id="InternalAccount:a1",
        operation=operation,
        parameters=parameters,
        organization_id="org-1",
        bound_client_public_key=bytes.fromhex(UNCOMPRESSED),
    )
    bound = json.loads(challenge.payload_to_sign)["parameters"]["targetPublicKey"]
    assert bound == UNCOMPRESSED


# --- _strict_json.json_object ----------------------------------------------------------------


class _FamilyError(ewc.WalletCryptoError):
    pass


def _family(reason: str) -> _FamilyError:
    return _FamilyError(reason, "FAMILY_CODE", 400)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ('{"a":1,"a":1}', "the thing is not valid JSON"),
        (b'{"a":NaN}', "the thing is not valid JSON"),
        ('{"a":1e999}', "the thing is not valid JSON"),
        ('{"a":' + "1" * 65 + "}", "the thing is not valid JSON"),
        ("[" * 100_000, "the thing is not valid JSON"),
        (b"\xff{}", "the thing is not valid JSON"),
        ("[]", "the thing is not a JSON object"),
        ('"text"', "the thing is not a JSON object"),
    ],
)
def test_json_object_raises_the_familys_error(data: str | bytes, reason: str) -> None:
    with pytest.raises(_FamilyError) as raised:
        _strict_json.json_object(data, what="the thing", error=_family)
    assert (raised.value.code, raised.value.reason) == ("FAMILY_CODE", reason)


def test_json_object_reads_text_and_bytes_alike() -> None:
    for data in ('{"a":[1,2.5,"é"]}', '{"a":[1,2.5,"é"]}'.encode()):
        assert _strict_json.json_object(data, what="x", error=_family) == {"a": [1, 2.5, "é"]}


def test_webhook_header_with_a_repeated_field_is_malformed() -> None:
    spki = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), KEY.public_key_bytes()
    ).public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    with pytest.raises(ewc.StampError) as raised:
        ewc.verify_webhook_signature('{"v":"1","s":"AAAA","s":"AAAA"}', b"body", spki)
    assert raised.value.code == "WEBHOOK_SIGNATURE_MALFORMED"
